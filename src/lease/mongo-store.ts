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
import type { Collection, Db, Filter } from 'mongodb'
import { BadDocumentReporter, documentId, type OnBadDocument } from '../store-call/bad-document.js'
import { isDuplicateKeyError } from '../store-call/duplicate-key.js'
import { type CallBounds, StoreCollection } from '../store-call/store-call.js'
import { termCallBoundMs } from './call-bound.js'
import { type LeaseDocument, parseLeaseDocument } from './lease-document.js'
import { NoticeBoard, noticeCount } from './notice-board.js'
import {
  type AcquireOptions,
  checkGrant,
  checkName,
  checkRenewal,
  checkTimedCall,
  checkToken,
  checkNames,
  checkVacancyCall,
  type LeaseCallOptions,
  type LeaseErrorContext,
  type LeaseExpiry,
  type LeaseGrant,
  LeaseLostError,
  type LeaseRecord,
  type LeaseStore,
  LeaseStoreError,
  type LeaseTerm,
} from './store.js'

const COMPONENT = 'MongoStore'
const RELEASED_EXPIRY = new Date(0)

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
/**
 * The most leases `list` reads (the status page and `leasecron status` list every lease each time): far
 * more than nets × installations of any deployment, so only a collection another program filled meets it.
 */
export const LIST_LIMIT = 10_000

export class MongoStore implements LeaseStore {
  readonly #leases: StoreCollection<LeaseDocument>
  readonly #bad: BadDocumentReporter
  readonly #notices = new NoticeBoard()

  constructor(db: Db, options: MongoStoreOptions = {}) {
    const collection = options.collection ?? 'leases'
    this.#leases = new StoreCollection<LeaseDocument>(db, collection, {
      component: COMPONENT,
      majority: true,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    })
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
    return this.#call(context, options?.signal, ttlMs, async (leases, bounds) => {
      try {
        const before = await leases.findOneAndUpdate(
          acquireFilter(call.name, call.owner, nowAt),
          {
            $set: { owner: call.owner, token },
            $inc: { fence: 1 },
            // $max over a non-date expiry writes the date (dates sort above every scalar type).
            $max: { expiresAt: new Date(call.expiresAtMs), renewedAt: nowAt },
          },
          { upsert: true, returnDocument: 'before', ...bounds.write },
        )
        const prior = before ? this.#parse(before) : undefined
        // The term's first count: its renewals then match on it from the first (one round trip).
        this.#notices.heard(call.name, noticeCount(before?.notice))
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

  /**
   * One `findOneAndUpdate` of the grant's term, whose answer also carries the lease's notice count, so a
   * holder hears a notice in the renewal's own round trip (`onNotice`).
   */
  async renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean> {
    const call = checkRenewal(COMPONENT, grant, now, ttlMs)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'renew', ...lease(call) }
    const after = await this.#call(context, options?.signal, ttlMs, (leases, bounds) =>
      leases.findOneAndUpdate(
        { _id: call.name, owner: call.owner, token: call.token },
        { $max: { expiresAt: new Date(call.expiresAtMs), renewedAt: new Date(call.nowMs) } },
        // No projection: FerretDB 1.24 refuses one on findAndModify; the document is a few fields.
        { returnDocument: 'after', ...bounds.write },
      ),
    )
    if (!after) return false
    this.#notices.heard(call.name, noticeCount(after.notice))
    return true
  }

  /**
   * One `updateMany` over every grant's term (`$or` of `_id`, owner, token and the notice count last seen
   * through this store): one round trip when all are renewed and none has a new notice. When fewer
   * matched, or a lease's count was never seen, a find reads back each lease's token and count; a term
   * still held whose count moved was left out by the update, and is renewed again without the count (and
   * read back once more if that one matched fewer). A term's token never comes back once replaced, so a
   * lease that holds it now held it when its update matched; one replaced meanwhile reads `false`, and its
   * term steps down early rather than late.
   */
  async renewMany(
    grants: readonly LeaseTerm[],
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean[]> {
    const calls = grants.map((grant) => checkRenewal(COMPONENT, grant, now, ttlMs))
    const first = calls[0]
    if (!first) return []
    const names = [...new Set(calls.map((c) => c.name))]
    const context: LeaseErrorContext = {
      component: COMPONENT,
      operation: 'renew',
      lease: names.length === 1 ? first.name : `${first.name} and ${names.length - 1} more`,
      owner: first.owner,
    }
    const terms = new Map(calls.map((c) => [termKey(c), c]))
    const expiry = { $max: { expiresAt: new Date(first.expiresAtMs), renewedAt: new Date(first.nowMs) } }
    return this.#call(context, options?.signal, ttlMs, async (leases, bounds) => {
      const seen = new Map(names.map((name) => [name, this.#notices.seen(name)]))
      const counted = termsFilter([...terms.values()], (name) => seen.get(name))
      const result = await leases.updateMany(counted, expiry, bounds.write)
      if (result.matchedCount === terms.size && names.every((n) => seen.get(n) !== undefined))
        return calls.map(() => true)
      const read = await readTerms(leases, names, bounds)
      const missed = [...terms.values()].filter((t) => {
        const doc = read.get(t.name)
        return doc?.term === termKey(t) && !matchesSeen(doc.notice, seen.get(t.name))
      })
      let holding = new Set([...read.values()].map((d) => d.term))
      if (missed.length > 0) {
        const again = await leases.updateMany(termsFilter(missed), expiry, bounds.write)
        if (again.matchedCount < missed.length) {
          const reread = await readTerms(leases, [...new Set(missed.map((t) => t.name))], bounds)
          const lost = missed.filter((t) => reread.get(t.name)?.term !== termKey(t)).map(termKey)
          holding = new Set([...holding].filter((key) => !lost.includes(key)))
        }
      }
      for (const [name, doc] of read)
        if (holding.has(doc.term)) this.#notices.heard(name, noticeCount(doc.notice))
      return calls.map((c) => holding.has(termKey(c)))
    })
  }

  /**
   * One `updateOne` that counts a notice on the lease (`$inc`), never creating it: an absent lease has no
   * holder to tell. On FerretDB, which writes back the whole document it read, a notice that races a
   * renewal of the same lease can undo that renewal's extension: the holder's next renewal (a third of
   * the TTL later, before the earlier expiry) extends it again, and the run ledger still runs each slot once.
   */
  async notify(name: string, options?: LeaseCallOptions): Promise<void> {
    const lease = checkName(COMPONENT, 'notify', name)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'notify', lease }
    await this.#call(context, options?.signal, undefined, (leases, bounds) =>
      leases.updateOne({ _id: lease }, { $inc: { notice: 1 } }, bounds.write),
    )
  }

  onNotice(listener: (name: string) => void): () => void {
    return this.#notices.subscribe(listener)
  }

  async release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void> {
    const call = checkGrant(COMPONENT, 'release', grant)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'release', ...lease(call) }
    const holder = await this.#call(context, options?.signal, undefined, async (leases, bounds) => {
      const released = await leases.updateOne(
        { _id: call.name, owner: call.owner, token: call.token },
        { $set: { token: null, expiresAt: RELEASED_EXPIRY } },
        bounds.write,
      )
      if (released.matchedCount > 0) return undefined
      const current = await leases.findOne(
        { _id: call.name },
        { projection: { owner: 1, token: 1 }, ...bounds.read },
      )
      // Released, absent, or the same owner's newer term: nothing of this term is left to give up.
      // A malformed holder (owner not a string) is still someone else: named by what is stored.
      return current && current.token !== null && current.owner !== call.owner
        ? String(current.owner)
        : undefined
    })
    if (holder !== undefined) throw new LeaseLostError({ ...context, ...lease(call), holder })
  }

  /** Every lease up to LIST_LIMIT, by name: a collection another program filled cannot flood a view. */
  async list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'list' }
    const docs = await this.#call(context, options?.signal, undefined, (leases, bounds) =>
      leases.find({}, bounds.find).sort({ _id: 1 }).limit(LIST_LIMIT).toArray(),
    )
    return docs.map((doc) => this.#parse(doc).record)
  }

  async get(name: string, options?: LeaseCallOptions): Promise<LeaseRecord | undefined> {
    const lease = checkName(COMPONENT, 'get', name)
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'get', lease }
    const doc = await this.#call(context, options?.signal, undefined, (leases, bounds) =>
      leases.findOne({ _id: lease }, bounds.read),
    )
    return doc ? this.#parse(doc).record : undefined
  }

  /**
   * One find of the leases among `names` that are held at `now` (a date expiry after it; a released lease
   * has the epoch), by `_id`; every other name is vacant. The held ones are asked for rather than the free
   * ones, so a lease never written yet, or without a usable expiry, comes out vacant as acquire would find it.
   */
  async getMany(
    names: readonly string[],
    options?: LeaseCallOptions,
  ): Promise<Array<LeaseRecord | undefined>> {
    const checked = checkNames(COMPONENT, 'get', names)
    if (checked.length === 0) return []
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'get' }
    const docs = await this.#call(context, options?.signal, undefined, (leases, bounds) =>
      leases.find({ _id: { $in: checked } }, bounds.find).toArray(),
    )
    const byName = new Map(docs.map((doc) => [doc._id, this.#parse(doc).record] as const))
    return names.map((name) => byName.get(name.trim()))
  }
  async vacant(names: readonly string[], now: Date, options?: LeaseCallOptions): Promise<string[]> {
    const call = checkVacancyCall(COMPONENT, names, now)
    if (call.names.length === 0) return []
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'vacant' }
    const held = await this.#call(context, options?.signal, undefined, (leases, bounds) =>
      leases
        .find(
          { _id: { $in: call.names }, expiresAt: { $gt: new Date(call.nowMs) } },
          { projection: { _id: 1 }, ...bounds.find },
        )
        .toArray(),
    )
    const taken = new Set(held.map((doc) => doc._id))
    return call.names.filter((name) => !taken.has(name))
  }

  /**
   * One find of `names`' expiries by `_id`. A released lease (the epoch) and a document without a date
   * expiry read as no term standing, as acquire would treat them.
   */
  async expiries(names: readonly string[], options?: LeaseCallOptions): Promise<LeaseExpiry[]> {
    const checked = checkNames(COMPONENT, 'expiries', names)
    if (checked.length === 0) return []
    const context: LeaseErrorContext = { component: COMPONENT, operation: 'expiries' }
    const docs = await this.#call(context, options?.signal, undefined, (leases, bounds) =>
      leases
        .find({ _id: { $in: checked } }, { projection: { _id: 1, expiresAt: 1 }, ...bounds.find })
        .toArray(),
    )
    const byName = new Map<string, unknown>(docs.map((doc) => [doc._id, doc.expiresAt]))
    return checked.map((name) => {
      const at = byName.get(name)
      const standing =
        at instanceof Date && !Number.isNaN(at.getTime()) && at.getTime() > RELEASED_EXPIRY.getTime()
      return { name, expiresAt: standing ? at : undefined }
    })
  }

  /** Parses a document read from the store, reporting it once when it is malformed. */
  #parse(doc: LeaseDocument): ReturnType<typeof parseLeaseDocument> {
    const parsed = parseLeaseDocument(doc)
    if (parsed.problem === undefined) this.#bad.clear(doc._id)
    else this.#bad.report(documentId(doc), parsed.problem)
    return parsed
  }

  /**
   * Runs one bounded call (store-call.ts): the server's bound is `callTimeoutMs`, or ttl/3 when shorter
   * (acquire, renew), so a call never runs, nor waits for its majority, past a third of the term. Driver
   * failures become LeaseStoreError LEASE_STORE_FAILED, aborts LEASE_CALL_ABORTED, naming the lease, owner
   * and operation.
   */
  #call<T>(
    context: LeaseErrorContext,
    signal: AbortSignal | undefined,
    ttlMs: number | undefined,
    op: (leases: Collection<LeaseDocument>, bounds: CallBounds) => Promise<T>,
  ): Promise<T> {
    const bound = this.#leases.callTimeoutMs
    const timeoutMs = ttlMs === undefined ? bound : Math.min(bound, termCallBoundMs(ttlMs))
    const error = (kind: 'failed' | 'aborted', detail: string, cause: unknown) =>
      new LeaseStoreError(kind === 'failed' ? 'LEASE_STORE_FAILED' : 'LEASE_CALL_ABORTED', context, detail, {
        cause,
      })
    return this.#leases.call({ signal, timeoutMs, error }, op)
  }
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

/** One term's identity as a key: lease name, owner and token. */
function termKey(t: { name: string; owner: unknown; token: unknown }): string {
  return JSON.stringify([t.name, t.owner, t.token])
}

/**
 * The filter of `terms` (each lease's current term: its name, owner and token), and, with `seen`, of each
 * lease's notice count last seen (noticeCondition). Grouped by owner and count — `_id` and `token` each
 * `$in` — rather than one `$or` branch a term: FerretDB 1.24 reads every lease of the collection for a
 * filter it cannot push down, and matches each against every branch (a renewal of 100 leases among 1,000
 * took 500 ms there, grouped 65 ms), while a single owner's equality it answers from PostgreSQL. Tokens are
 * fresh per term (store.ts), so a lease in the group matches only with its own term's token.
 */
function termsFilter(
  terms: readonly LeaseTerm[],
  seen?: (name: string) => number | undefined,
): Filter<LeaseDocument> {
  const groups = new Map<
    string,
    { owner: string; seen: number | undefined; names: string[]; tokens: string[] }
  >()
  for (const { name, owner, token } of terms) {
    const count = seen?.(name)
    const key = JSON.stringify([owner, count ?? null])
    const group = groups.get(key) ?? { owner, seen: count, names: [], tokens: [] }
    group.names.push(name)
    group.tokens.push(token)
    groups.set(key, group)
  }
  const owners = new Set([...groups.values()].map((g) => g.owner))
  const branch = (g: { owner: string; seen: number | undefined; names: string[]; tokens: string[] }) => ({
    ...(owners.size === 1 ? {} : { owner: g.owner }),
    _id: { $in: g.names },
    token: { $in: g.tokens },
    ...noticeCondition(g.seen),
  })
  const branches = [...groups.values()].map(branch)
  // One owner (a replica's own batch): its equality at the top, where FerretDB pushes it down.
  return owners.size === 1 ? { owner: [...owners][0]!, $or: branches } : { $or: branches }
}

/**
 * The renewal's condition on a lease's notice count last seen: none before the first (the read-back then
 * learns it); 0 also matches a lease written before notices existed (no count stored).
 */
function noticeCondition(seen: number | undefined): Filter<LeaseDocument> {
  if (seen === undefined) return {}
  return seen === 0 ? { $or: [{ notice: 0 }, { notice: { $exists: false } }] } : { notice: seen }
}

/** Whether a stored count satisfies `noticeCondition(seen)`, as the server matched it. */
function matchesSeen(stored: unknown, seen: number | undefined): boolean {
  if (seen === undefined) return true
  return seen === 0 ? stored === 0 || stored === undefined : stored === seen
}

/** One find of `names`' terms (as `termKey`) and stored notice counts, by name. */
async function readTerms(
  leases: Collection<LeaseDocument>,
  names: readonly string[],
  bounds: CallBounds,
): Promise<Map<string, { term: string; notice: unknown }>> {
  const docs = await leases
    .find({ _id: { $in: [...names] } }, { projection: { owner: 1, token: 1, notice: 1 }, ...bounds.find })
    .toArray()
  return new Map(
    docs.map((d) => [
      d._id,
      { term: termKey({ name: d._id, owner: d.owner, token: d.token }), notice: d.notice },
    ]),
  )
}

function lease(call: { name: string; owner: string }): { lease: string; owner: string } {
  return { lease: call.name, owner: call.owner }
}
