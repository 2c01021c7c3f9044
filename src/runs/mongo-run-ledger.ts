/**
 * MongoRunLedger: the run ledger in the MongoDB collection `net_runs`, one document per claimed slot.
 *
 * Documented schema (absent optionals stored as null):
 *
 *   _id         string   "<net>@<slot ISO>" — the unique key that decides a claim; "<net>@manual@<slot ISO>"
 *                        for a manual run (run now), so it never collides with a scheduled slot
 *   net         string
 *   slot        date     the schedule instant the pass serves
 *   owner       string   the worker that claimed it
 *   fence       int      the fence of the claiming term
 *   startedAt   date
 *   finishedAt  date?    set by the pass's end
 *   outcome     string?  ok | failed | timed-out | aborted | skipped | missed | paused
 *   error       string?  the last attempt's error message (first line); why, for missed and paused
 *   requests    object?  forge requests spent, by lane
 *   attempts    int?     attempts made for the claim, set with the outcome (absent in older documents: 1)
 *   manual      bool?    true for a manual run; absent for a scheduled slot
 *
 * A claim is one `insertOne`: the `_id` index makes it atomic on MongoDB and on FerretDB alike, and a
 * duplicate-key refusal is the answer `false` — unless the record there says the slot never ran (missed,
 * paused): then the claim deletes that record (filtered on its outcome) and inserts again, so the insert
 * still decides between concurrent claimers (FerretDB's non-atomic delete cannot let two in). A claimer
 * that dies between the delete and the insert leaves the slot without a record; the next catch-up or
 * backfill accounts for it again. Index `history` `{net: 1, slot: -1}` serves history and
 * prune. There is no TTL index (FerretDB has none): the holder prunes to the newest N runs per net.
 * Writes use write concern `majority`, so a claim survives a primary failover.
 *
 * Every document read is parsed (run-document.ts): a malformed one is skipped — `history` leaves it out,
 * `get` answers undefined — and reported once through `onBadDocument`, never thrown.
 */
import type { Collection, Db } from 'mongodb'
import { BadDocumentReporter, documentId, type OnBadDocument } from '../store-call/bad-document.js'
import { isDuplicateKeyError } from '../store-call/duplicate-key.js'
import { type CallBounds, LONG_CALL_TIMEOUT_MS, StoreCollection } from '../store-call/store-call.js'
import { type RunDocument, parseRunDocument } from './run-document.js'
import {
  checkAccount,
  checkClaim,
  checkCount,
  checkFinish,
  checkInstant,
  checkNet,
  checkTerm,
} from './run-ledger-checks.js'
import {
  type RunAccount,
  type RunClaim,
  type RunFinish,
  type RunLedger,
  type RunLedgerCallOptions,
  type RunRecord,
  type RunSlotOptions,
  runId,
  UNRUN_OUTCOMES,
} from './run-ledger.js'
import { RunLedgerError, type RunLedgerErrorContext } from './run-ledger-error.js'

const COMPONENT = 'MongoRunLedger'

export type { RunDocument } from './run-document.js'

export interface MongoRunLedgerOptions {
  /** Collection name; `net_runs` by default. */
  collection?: string
  /**
   * Called once per distinct malformed run document read (its `_id` and what is wrong), which is then
   * skipped; the worker logs and counts it. A throwing callback is ignored.
   */
  onBadDocument?: OnBadDocument
  /** The longest a call may take on the server (`maxTimeMS`, and the majority's `wtimeoutMS`), in ms; 5000 by default. */
  callTimeoutMs?: number
}

/** Inserts `doc`: `true` when this call wrote it, `false` when a record with its `_id` was there. */
async function insertFirst(
  runs: Collection<RunDocument>,
  doc: RunDocument,
  bounds: CallBounds,
): Promise<boolean> {
  try {
    await runs.insertOne(doc, bounds.write)
    return true
  } catch (error) {
    if (isDuplicateKeyError(error)) return false
    throw error
  }
}

/** A RunLedger backed by MongoDB (or a wire-compatible server); see the RunLedger contract. */
export class MongoRunLedger implements RunLedger {
  readonly #runs: StoreCollection<RunDocument>
  readonly #bad: BadDocumentReporter

  constructor(db: Db, options: MongoRunLedgerOptions = {}) {
    const collection = options.collection ?? 'net_runs'
    this.#runs = new StoreCollection<RunDocument>(db, collection, {
      component: COMPONENT,
      majority: true,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    })
    this.#bad = new BadDocumentReporter(collection, options.onBadDocument)
  }

  /** Creates the `history` index (idempotent); the worker calls it once at start-up. */
  async ensureIndexes(options?: RunLedgerCallOptions): Promise<void> {
    const context = { component: COMPONENT, operation: 'ensureIndexes' }
    await this.#call(
      context,
      options,
      (runs, bounds) => runs.createIndex({ net: 1, slot: -1 }, { name: 'history', ...bounds.read }),
      LONG_CALL_TIMEOUT_MS,
    )
  }

  async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const c = checkClaim(COMPONENT, claim)
    const doc: RunDocument = {
      _id: runId(c.net, c.slot, c.manual),
      ...c,
      finishedAt: null,
      outcome: null,
      error: null,
      requests: null,
      attempts: null,
    }
    return this.#call(
      { component: COMPONENT, operation: 'claim', net: c.net, slot: c.slot },
      options,
      async (runs, bounds) => {
        if (await insertFirst(runs, doc, bounds)) return true
        const unrun = { _id: doc._id, outcome: { $in: [...UNRUN_OUTCOMES] } }
        const taken = await runs.deleteOne(unrun, bounds.write)
        return taken.deletedCount === 1 && (await insertFirst(runs, doc, bounds))
      },
    )
  }

  async account(entry: RunAccount, options?: RunLedgerCallOptions): Promise<boolean> {
    const a = checkAccount(COMPONENT, entry)
    const doc: RunDocument = {
      _id: runId(a.net, a.slot),
      net: a.net,
      slot: a.slot,
      owner: a.owner,
      fence: a.fence,
      startedAt: a.at,
      finishedAt: a.at,
      outcome: a.outcome,
      error: a.reason ?? null,
      requests: null,
      attempts: 0,
    }
    return this.#call(
      { component: COMPONENT, operation: 'account', net: a.net, slot: a.slot },
      options,
      (runs, bounds) => insertFirst(runs, doc, bounds),
    )
  }

  async finish(
    net: string,
    slot: Date,
    owner: string,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    const name = checkNet(COMPONENT, 'finish', net)
    const at = checkInstant({ component: COMPONENT, operation: 'finish', net: name }, 'slot', slot)
    const context = { component: COMPONENT, operation: 'finish', net: name, slot: at }
    const term = checkTerm(context, owner, fence)
    const f = checkFinish(context, finish)
    const set = {
      finishedAt: f.finishedAt,
      outcome: f.outcome,
      error: f.error ?? null,
      requests: f.requests ?? null,
      attempts: f.attempts ?? 1,
    }
    return this.#call(context, options, async (runs, bounds) => {
      const result = await runs.updateOne(
        { _id: runId(name, at, options?.manual), owner: term.owner, fence: term.fence },
        { $set: set },
        bounds.write,
      )
      return result.matchedCount === 1
    })
  }

  async get(net: string, slot: Date, options?: RunSlotOptions): Promise<RunRecord | undefined> {
    const name = checkNet(COMPONENT, 'get', net)
    const at = checkInstant({ component: COMPONENT, operation: 'get', net: name }, 'slot', slot)
    const doc = await this.#call(
      { component: COMPONENT, operation: 'get', net: name, slot: at },
      options,
      (runs, bounds) => runs.findOne({ _id: runId(name, at, options?.manual) }, bounds.read),
    )
    return doc === null ? undefined : this.#parse(doc)
  }

  async history(net: string, limit: number, options?: RunLedgerCallOptions): Promise<RunRecord[]> {
    const name = checkNet(COMPONENT, 'history', net)
    const context = { component: COMPONENT, operation: 'history', net: name }
    const count = checkCount(context, 'limit', limit, 1)
    const docs = await this.#call(context, options, (runs, bounds) =>
      runs.find({ net: name }, bounds.read).sort({ slot: -1 }).limit(count).toArray(),
    )
    return docs.map((doc) => this.#parse(doc)).filter((record) => record !== undefined)
  }

  /** Two round trips: find the newest slot past `keep`, then delete it and everything older. */
  async prune(net: string, keep: number, options?: RunLedgerCallOptions): Promise<number> {
    const name = checkNet(COMPONENT, 'prune', net)
    const context = { component: COMPONENT, operation: 'prune', net: name }
    const kept = checkCount(context, 'keep', keep, 0)
    return this.#call(context, options, async (runs, bounds) => {
      const [first] = await runs
        .find({ net: name }, { projection: { slot: 1 }, ...bounds.read })
        .sort({ slot: -1 })
        .skip(kept)
        .limit(1)
        .toArray()
      if (!first) return 0
      const result = await runs.deleteMany({ net: name, slot: { $lte: first.slot } }, bounds.write)
      return result.deletedCount
    })
  }

  /** A stored run as a record, or undefined (reported once) when it is malformed. */
  #parse(doc: RunDocument): RunRecord | undefined {
    const parsed = parseRunDocument(doc)
    if (parsed.ok) {
      this.#bad.clear(parsed.record.id)
      return parsed.record
    }
    this.#bad.report(documentId(doc), parsed.problem)
    return undefined
  }

  /**
   * Runs driver calls bounded (store-call.ts): an aborted signal rejects before sending; an abort in flight
   * rejects at once while the driver call goes on (a claim may still land — the caller ran no pass for it,
   * and the slot stays claimed: fail-closed). Driver failures become RUN_LEDGER_FAILED with the cause,
   * aborts RUN_LEDGER_ABORTED.
   */
  #call<T>(
    context: RunLedgerErrorContext,
    options: RunLedgerCallOptions | undefined,
    op: (runs: Collection<RunDocument>, bounds: CallBounds) => Promise<T>,
    timeoutMs?: number,
  ): Promise<T> {
    const error = (kind: 'failed' | 'aborted', detail: string, cause: unknown) =>
      new RunLedgerError(kind === 'failed' ? 'RUN_LEDGER_FAILED' : 'RUN_LEDGER_ABORTED', context, detail, {
        cause,
      })
    return this.#runs.call({ signal: options?.signal, timeoutMs, error }, op)
  }
}
