/**
 * MongoStore: leases in a MongoDB collection, one document per lease `{_id: name, owner, expiresAt, renewedAt}`.
 *
 * Every call is one round trip (release adds a read only when its delete matched nothing). Writes use
 * write concern `majority`, so a granted lease survives a primary failover. There is deliberately no TTL
 * index: it would delete expired leases that their holder may still renew.
 *
 * Like every LeaseStore, it elects for load, not for exclusion; see store.ts.
 */
import { type Collection, type Db, MongoServerError, type WriteConcernSettings } from 'mongodb'
import {
  checkName,
  checkNotAborted,
  checkOwner,
  checkTimedCall,
  type LeaseCallOptions,
  type LeaseErrorContext,
  LeaseLostError,
  type LeaseRecord,
  type LeaseStore,
  LeaseStoreError,
} from './store.js'

const COMPONENT = 'MongoStore'
const DUPLICATE_KEY = 11000
const MAJORITY: WriteConcernSettings = { w: 'majority' }

/** The stored shape of one lease. */
export interface LeaseDocument {
  _id: string
  owner: string
  expiresAt: Date
  renewedAt: Date
}

export interface MongoStoreOptions {
  /** Collection name; `leases` by default. */
  collection?: string
}

/** A LeaseStore backed by MongoDB (or a wire-compatible server); see the LeaseStore contract. */
export class MongoStore implements LeaseStore {
  readonly #leases: Collection<LeaseDocument>

  constructor(db: Db, options: MongoStoreOptions = {}) {
    if (!db || typeof db.collection !== 'function') {
      throw new TypeError('MongoStore: expected a mongodb Db as its first argument')
    }
    this.#leases = db.collection<LeaseDocument>(options.collection ?? 'leases', { writeConcern: MAJORITY })
  }

  async acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean> {
    const call = checkTimedCall(COMPONENT, 'acquire', name, owner, now, ttlMs)
    const context: LeaseErrorContext = {
      component: COMPONENT,
      operation: 'acquire',
      lease: call.name,
      owner: call.owner,
    }
    const nowAt = new Date(call.nowMs)
    return this.#call(context, options?.signal, async () => {
      try {
        // One conditional upsert: when the document exists but is held unexpired by another owner, the
        // filter misses, the upsert tries to insert the same _id, and the duplicate-key refusal is the answer.
        const result = await this.#leases.updateOne(
          { _id: call.name, $or: [{ owner: call.owner }, { expiresAt: { $lte: nowAt } }] },
          { $set: { owner: call.owner }, $max: { expiresAt: new Date(call.expiresAtMs), renewedAt: nowAt } },
          { upsert: true },
        )
        return result.matchedCount + result.upsertedCount > 0
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false
        throw error
      }
    })
  }

  async renew(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean> {
    const call = checkTimedCall(COMPONENT, 'renew', name, owner, now, ttlMs)
    const context: LeaseErrorContext = {
      component: COMPONENT,
      operation: 'renew',
      lease: call.name,
      owner: call.owner,
    }
    return this.#call(context, options?.signal, async () => {
      const result = await this.#leases.updateOne(
        { _id: call.name, owner: call.owner },
        { $max: { expiresAt: new Date(call.expiresAtMs), renewedAt: new Date(call.nowMs) } },
      )
      return result.matchedCount > 0
    })
  }

  async release(name: string, owner: string, options?: LeaseCallOptions): Promise<void> {
    const lease = checkName(COMPONENT, 'release', name)
    const who = checkOwner(COMPONENT, 'release', lease, owner)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'release', lease, owner: who }
    const holder = await this.#call(context, options?.signal, async () => {
      const deleted = await this.#leases.deleteOne({ _id: lease, owner: who })
      if (deleted.deletedCount > 0) return undefined
      const current = await this.#leases.findOne({ _id: lease }, { projection: { owner: 1 } })
      return current?.owner
    })
    if (holder !== undefined) throw new LeaseLostError({ ...context, lease, owner: who, holder })
  }

  async list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'list' }
    const docs = await this.#call(context, options?.signal, () =>
      this.#leases.find({}).sort({ _id: 1 }).toArray(),
    )
    return docs.map((d) => ({ name: d._id, owner: d.owner, expiresAt: d.expiresAt, renewedAt: d.renewedAt }))
  }

  /**
   * Runs one driver call bounded by `signal`: an aborted signal rejects before sending; an abort in flight
   * rejects at once while the driver call goes on (its write may land; the contract says so). Driver
   * failures become LeaseStoreError naming the lease, owner and operation, with the driver error as cause.
   */
  async #call<T>(
    context: LeaseErrorContext,
    signal: AbortSignal | undefined,
    op: () => Promise<T>,
  ): Promise<T> {
    checkNotAborted(context, signal)
    const pending = op().catch((error: unknown) => {
      throw new LeaseStoreError(
        'LEASE_STORE_FAILED',
        context,
        `the store did not answer: ${describe(error)}`,
        {
          cause: error,
        },
      )
    })
    if (!signal) return pending
    let onAbort: (() => void) | undefined
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () =>
        reject(
          new LeaseStoreError(
            'LEASE_CALL_ABORTED',
            context,
            'the call was aborted before its answer arrived',
            {
              cause: signal.reason,
            },
          ),
        )
      signal.addEventListener('abort', onAbort, { once: true })
    })
    pending.catch(() => undefined)
    try {
      return await Promise.race([pending, aborted])
    } finally {
      signal.removeEventListener('abort', onAbort!)
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return `${error.name}${code === undefined ? '' : ` ${String(code)}`}: ${error.message.split('\n')[0]}`
  }
  return String(error)
}
