/**
 * MongoStore: leases in a MongoDB collection, one document per lease
 * `{_id: name, owner, token, fence, expiresAt, renewedAt}`.
 *
 * Every call is one round trip (release adds a read only when its update matched nothing, to name the
 * holder). Acquire is one `findOneAndUpdate` with upsert that increments the fence and returns the document
 * as it was, which also names the previous holder. Release keeps the document (token `null`, expiry at the
 * epoch) so the fence counter survives it. Writes use write concern `majority`, so a granted lease survives
 * a primary failover. There is deliberately no TTL index: it would delete expired leases that their holder
 * may still renew, and with them the fence counter.
 *
 * Calls are bounded on the server too: `maxTimeMS` and the majority write concern's `wtimeoutMS` (ttl/3
 * for acquire and renew, capped by `callTimeoutMs`), so an abandoned call cannot land minutes later and a
 * replica set whose majority cannot acknowledge makes the call fail (nobody elected) instead of hanging.
 * The client's `socketTimeoutMS` should be above ttl/3 (and above `callTimeoutMs`), so the server's own
 * bound answers first.
 *
 * On FerretDB (which applies an update as read-then-write) the fence is unique among concurrent acquires
 * only where the `_id` upsert decides (a lease's first acquire); two takeovers of one expired lease racing
 * within the same instant can both be granted, with the same fence. Sequential terms still get strictly
 * increasing fences there. MongoDB applies the update atomically per document: exactly one wins.
 *
 * Every document it reads is parsed (lease-document.ts): a malformed one is reported once through
 * `onBadDocument` and shown by `list`/`get` as `corrupt`; an unusable expiry makes the lease free, an
 * unusable fence makes acquire refuse it (store.ts says why). No read of a bad document throws.
 *
 * Like every LeaseStore, it elects for load, not for exclusion; see store.ts.
 */
import { randomUUID } from 'node:crypto'
import type { Collection, Db, Filter, WriteConcernSettings } from 'mongodb'
import { BadDocumentReporter, documentId, type OnBadDocument } from '../store-call/bad-document.js'
import { isDuplicateKeyError } from '../store-call/duplicate-key.js'
import { type LeaseDocument, parseLeaseDocument } from './lease-document.js'
import {
  type AcquireOptions,
  checkGrant,
  checkName,
  checkNotAborted,
  checkRenewal,
  checkTimedCall,
  checkToken,
  type LeaseCallOptions,
  type LeaseErrorContext,
  type LeaseGrant,
  LeaseLostError,
  type LeaseRecord,
  type LeaseStore,
  LeaseStoreError,
  type LeaseTerm,
} from './store.js'

const COMPONENT = 'MongoStore'
const RELEASED_EXPIRY = new Date(0)
const DEFAULT_CALL_TIMEOUT_MS = 5_000

export type { LeaseDocument } from './lease-document.js'

export interface MongoStoreOptions {
  /** Collection name; `leases` by default. */
  collection?: string
  /**
   * The longest a call may take on the server (`maxTimeMS`, and `wtimeoutMS` of the majority write
   * concern), in ms; 5000 by default. Acquire and renew use ttl/3 when that is shorter.
   */
  callTimeoutMs?: number
  /**
   * Called once per distinct malformed lease document read (its `_id` and what is wrong); the worker logs
   * and counts it. A throwing callback is ignored.
   */
  onBadDocument?: OnBadDocument
}

/** A LeaseStore backed by MongoDB (or a wire-compatible server); see the LeaseStore contract. */
export class MongoStore implements LeaseStore {
  readonly #leases: Collection<LeaseDocument>
  readonly #callTimeoutMs: number
  readonly #bad: BadDocumentReporter

  constructor(db: Db, options: MongoStoreOptions = {}) {
    if (!db || typeof db.collection !== 'function') {
      throw new TypeError('MongoStore: expected a mongodb Db as its first argument')
    }
    const timeout = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    if (!Number.isInteger(timeout) || timeout < 1) {
      throw new TypeError(
        `MongoStore: callTimeoutMs must be a whole number of ms ≥ 1, got ${String(timeout)}`,
      )
    }
    this.#callTimeoutMs = timeout
    const collection = options.collection ?? 'leases'
    this.#leases = db.collection<LeaseDocument>(collection)
    this.#bad = new BadDocumentReporter(collection, options.onBadDocument)
  }

  async acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: AcquireOptions,
  ): Promise<LeaseGrant | false> {
    const call = checkTimedCall(COMPONENT, 'acquire', name, owner, now, ttlMs)
    const token =
      options?.token === undefined
        ? randomUUID()
        : checkToken(COMPONENT, 'acquire', call.name, call.owner, options.token)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'acquire', ...lease(call) }
    const nowAt = new Date(call.nowMs)
    return this.#call(context, options?.signal, async () => {
      try {
        const before = await this.#leases.findOneAndUpdate(
          acquireFilter(call.name, call.owner, nowAt),
          {
            $set: { owner: call.owner, token },
            $inc: { fence: 1 },
            // $max over a non-date expiry writes the date (dates sort above every scalar type).
            $max: { expiresAt: new Date(call.expiresAtMs), renewedAt: nowAt },
          },
          { upsert: true, returnDocument: 'before', ...this.#bounds(ttlMs) },
        )
        const prior = before ? this.#parse(before) : undefined
        return {
          name: call.name,
          owner: call.owner,
          token,
          fence: (prior?.fence ?? 0) + 1,
          expiresAt: new Date(Math.max(prior?.expiresAtMs ?? 0, call.expiresAtMs)),
          ...(prior?.owner === undefined ? {} : { previousHolder: prior.owner }),
        }
      } catch (error) {
        if (isDuplicateKeyError(error)) return false
        throw error
      }
    })
  }

  async renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean> {
    const call = checkRenewal(COMPONENT, grant, now, ttlMs)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'renew', ...lease(call) }
    return this.#call(context, options?.signal, async () => {
      const result = await this.#leases.updateOne(
        { _id: call.name, owner: call.owner, token: call.token },
        { $max: { expiresAt: new Date(call.expiresAtMs), renewedAt: new Date(call.nowMs) } },
        this.#bounds(ttlMs),
      )
      return result.matchedCount > 0
    })
  }

  async release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void> {
    const call = checkGrant(COMPONENT, 'release', grant)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'release', ...lease(call) }
    const holder = await this.#call(context, options?.signal, async () => {
      const released = await this.#leases.updateOne(
        { _id: call.name, owner: call.owner, token: call.token },
        { $set: { token: null, expiresAt: RELEASED_EXPIRY } },
        this.#bounds(),
      )
      if (released.matchedCount > 0) return undefined
      const current = await this.#leases.findOne(
        { _id: call.name },
        { projection: { owner: 1, token: 1 }, maxTimeMS: this.#callTimeoutMs },
      )
      // Released, absent, or the same owner's newer term: nothing of this term is left to give up.
      // A malformed holder (owner not a string) is still someone else: named by what is stored.
      return current && current.token !== null && current.owner !== call.owner
        ? String(current.owner)
        : undefined
    })
    if (holder !== undefined) throw new LeaseLostError({ ...context, ...lease(call), holder })
  }

  async list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'list' }
    const docs = await this.#call(context, options?.signal, () =>
      this.#leases.find({}, { maxTimeMS: this.#callTimeoutMs }).sort({ _id: 1 }).toArray(),
    )
    return docs.map((doc) => this.#parse(doc).record)
  }

  async get(name: string, options?: LeaseCallOptions): Promise<LeaseRecord | undefined> {
    const lease = checkName(COMPONENT, 'get', name)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'get', lease }
    const doc = await this.#call(context, options?.signal, () =>
      this.#leases.findOne({ _id: lease }, { maxTimeMS: this.#callTimeoutMs }),
    )
    return doc ? this.#parse(doc).record : undefined
  }

  /** Parses a document read from the store, reporting it once when it is malformed. */
  #parse(doc: LeaseDocument): ReturnType<typeof parseLeaseDocument> {
    const parsed = parseLeaseDocument(doc)
    if (parsed.problem === undefined) this.#bad.clear(doc._id)
    else this.#bad.report(documentId(doc), parsed.problem)
    return parsed
  }

  /** Server-side bounds of one write: a call never runs, nor waits for its majority, past them. */
  #bounds(ttlMs?: number): { maxTimeMS: number; writeConcern: WriteConcernSettings } {
    const ms = Math.max(1, Math.min(this.#callTimeoutMs, Math.trunc((ttlMs ?? Infinity) / 3)))
    return { maxTimeMS: ms, writeConcern: { w: 'majority', wtimeoutMS: ms } }
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

/**
 * Who may start a term: anyone once the lease is expired, released (expiry at the epoch) or has no usable
 * expiry (a term that cannot be proven held is not held), and the same owner with no later stamp. Never
 * a lease whose fence is not a number ≥ 0: no fence could be proven greater than every earlier term's.
 * When the filter misses an existing lease, the upsert collides on `_id` and the duplicate-key refusal is
 * the answer. The fence condition sits inside `$and`: FerretDB seeds an upsert's document from top-level
 * operator conditions too, and an `$inc` onto `{$type: …}` fails instead of colliding.
 */
function acquireFilter(name: string, owner: string, nowAt: Date): Filter<LeaseDocument> {
  return {
    _id: name,
    // A comparison matches numbers only (type bracketing): a missing, null or string fence fails it.
    $and: [{ fence: { $gte: 0 } }],
    $or: [
      { owner, renewedAt: { $lte: nowAt } },
      { expiresAt: { $lte: nowAt } },
      { expiresAt: { $not: { $type: 'date' } } },
    ],
  }
}

function lease(call: { name: string; owner: string }): { lease: string; owner: string } {
  return { lease: call.name, owner: call.owner }
}
