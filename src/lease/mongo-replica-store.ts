/**
 * MongoReplicaStore: replica announcements in a MongoDB collection (`replicas` by default), one document
 * per replica `{_id: owner, expiresAt, announcedAt}`.
 *
 * `announce` is one upsert by `_id` setting the expiry (the latest announcement wins: a `$max` kept the
 * expiry a clock 24 h ahead wrote for a day); only the replica itself writes its document,
 * so FerretDB's read-then-write update races with nobody, and two upserts of the same new owner colliding
 * on `_id` mean the other one landed (the duplicate-key refusal is taken as done). `live` is one find on
 * `now < expiresAt ≤ horizon` (the horizon: replica-store.ts's checkLive, when the announce ttl is given),
 * at most MAX_LIVE_REPLICAS owners by `_id`. Nothing relies on a TTL index (FerretDB has none): expiry is decided on read, and
 * `sweep` deletes what expired long ago. Writes use write concern `majority`, as the lease store does.
 */
import type { Collection, Db } from 'mongodb'
import { isDuplicateKeyError } from '../store-call/duplicate-key.js'
import { type CallBounds, StoreCollection } from '../store-call/store-call.js'
import {
  checkAnnounce,
  checkInstant,
  checkLive,
  checkLiveRead,
  checkReplica,
  type LiveOptions,
  type ReplicaStore,
} from './replica-store.js'
import { type LeaseCallOptions, type LeaseErrorContext, LeaseStoreError } from './store.js'

const COMPONENT = 'MongoReplicaStore'

interface ReplicaDocument {
  _id: string
  expiresAt: Date
  announcedAt: Date
}

export interface MongoReplicaStoreOptions {
  /** Collection name; `replicas` by default. */
  collection?: string
  /** The longest a call may take on the server, in ms; 5000 by default. */
  callTimeoutMs?: number
  /** The most owners one `live` read answers; MAX_LIVE_REPLICAS by default (smaller in tests). */
  liveRead?: number
}

/** A ReplicaStore backed by MongoDB (or a wire-compatible server); see the ReplicaStore contract. */
export class MongoReplicaStore implements ReplicaStore {
  readonly #replicas: StoreCollection<ReplicaDocument>
  readonly #liveRead: number

  constructor(db: Db, options: MongoReplicaStoreOptions = {}) {
    this.#liveRead = checkLiveRead(COMPONENT, options.liveRead)
    this.#replicas = new StoreCollection<ReplicaDocument>(db, options.collection ?? 'replicas', {
      component: COMPONENT,
      majority: true,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    })
  }

  async announce(owner: string, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<void> {
    const call = checkAnnounce(COMPONENT, owner, now, ttlMs, options?.signal)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'announce', owner: call.owner }
    await this.#call(context, options, async (replicas, bounds) => {
      try {
        await replicas.updateOne(
          { _id: call.owner },
          { $set: { expiresAt: new Date(call.expiresAtMs), announcedAt: new Date(call.nowMs) } },
          { upsert: true, ...bounds.write },
        )
      } catch (error) {
        // The same owner's concurrent first announcement created the document: it is announced.
        if (!isDuplicateKeyError(error)) throw error
      }
    })
  }

  async live(now: Date, options?: LiveOptions): Promise<string[]> {
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'live' }
    const { nowMs, horizonMs } = checkLive(COMPONENT, now, options?.ttlMs)
    const horizon = Number.isFinite(horizonMs) ? { $lte: new Date(horizonMs) } : {}
    const docs = await this.#call(context, options, (replicas, bounds) =>
      replicas
        .find({ expiresAt: { $gt: new Date(nowMs), ...horizon } }, { projection: { _id: 1 }, ...bounds.find })
        .sort({ _id: 1 })
        .limit(this.#liveRead)
        .toArray(),
    )
    return docs.map((doc) => String(doc._id))
  }

  async withdraw(owner: string, options?: LeaseCallOptions): Promise<void> {
    const who = checkReplica(COMPONENT, 'withdraw', owner)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'withdraw', owner: who }
    await this.#call(context, options, (replicas, bounds) => replicas.deleteOne({ _id: who }, bounds.write))
  }

  async sweep(before: Date, options?: LeaseCallOptions): Promise<number> {
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'sweep' }
    const at = new Date(checkInstant(context, 'before', before))
    const result = await this.#call(context, options, (replicas, bounds) =>
      replicas.deleteMany({ expiresAt: { $lte: at } }, bounds.write),
    )
    return result.deletedCount
  }

  /** One bounded call; driver failures become LeaseStoreError LEASE_STORE_FAILED, aborts LEASE_CALL_ABORTED. */
  #call<T>(
    context: LeaseErrorContext,
    options: LeaseCallOptions | undefined,
    op: (replicas: Collection<ReplicaDocument>, bounds: CallBounds) => Promise<T>,
  ): Promise<T> {
    const error = (kind: 'failed' | 'aborted', detail: string, cause: unknown) =>
      new LeaseStoreError(kind === 'failed' ? 'LEASE_STORE_FAILED' : 'LEASE_CALL_ABORTED', context, detail, {
        cause,
      })
    return this.#replicas.call({ signal: options?.signal, error }, op)
  }
}
