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
 *   outcome     string?  ok | failed | timed-out | aborted | skipped | missed | paused | deferred
 *   error       string?  the last attempt's error message (first line); why, for missed and paused
 *   requests    object?  forge requests spent, by lane
 *   attempts    int?     attempts made for the claim, set with the outcome (absent in older documents: 1)
 *   manual      bool?    true for a manual run; absent for a scheduled slot
 *   installation int?    the GitHub App installation the run acted as; absent for a global net
 *
 * A claim is one `insertOne`: the `_id` index makes it atomic on MongoDB and on FerretDB alike, and a
 * duplicate-key refusal is the answer `false`. A slot accounted as not run (missed, paused) is stored
 * under its own key, `"<net>@<slot ISO>#unrun"`, never the run's, so a later claim of that slot is the
 * same plain insert and nothing but the unique index ever decides who runs it (FerretDB applies updates
 * and filtered deletes read-then-write: a delete-then-insert takeover let two claimers in). The claimer
 * then deletes the superseded `#unrun` record; until it does (or if it died first) both exist, and every
 * read prefers the run. Claims of many slots at once (`claimMany`) are one unordered `insertMany` and
 * one `deleteMany` of the superseded accounts — so a replica's batch of slots is claimed in two commands,
 * not two per slot (ledger-batch.ts gathers them). Finishes go one `updateOne` each, with no `finishMany`:
 * FerretDB 1.24 over PostgreSQL stalls on `update` commands of a few dozen statements (one of 40, or three
 * of 16 at once, never answered in a probe), and the finishes of a thousand nets arrive just so.
 * Index `history` `{net: 1, slot: -1}` serves history and
 * prune. There is no TTL index (FerretDB has none): the holder prunes to the newest N runs per net.
 * Writes use write concern `majority`, so a claim survives a primary failover.
 *
 * Every document read is parsed (run-document.ts): a malformed one is skipped — `history` leaves it out,
 * `get` answers undefined — and reported once through `onBadDocument`, never thrown. `history` leaves
 * the plainly malformed (a key field of the wrong type) out in its query, so those it never reads and
 * never reports; `get` of such a slot still does.
 */
import type { Collection, Db, Filter } from 'mongodb'
import { BadDocumentReporter, documentId, type OnBadDocument } from '../store-call/bad-document.js'
import { bulkWriteErrors } from '../store-call/bulk-write-errors.js'
import { DUPLICATE_KEY, isDuplicateKeyError } from '../store-call/duplicate-key.js'
import { type CallBounds, LONG_CALL_TIMEOUT_MS, StoreCollection } from '../store-call/store-call.js'
import { answerEach, type SentAnswer } from './batch-answers.js'
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
  type RunBatchAnswer,
  type RunClaim,
  type RunFinish,
  type RunHistoryOptions,
  type RunLedger,
  type RunLedgerCallOptions,
  type RunRecord,
  type RunSlotOptions,
  RUN_OUTCOMES,
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

/** The key an account of a slot is stored under: beside the run's key, never in its place. */
function unrunId(id: string): string {
  return `${id}#unrun`
}

/**
 * The accounts the claimed runs supersede (`#unrun`), by slot: one deleteMany a slot instant (a replica's
 * batch is one instant's slots). The slot's equality is what FerretDB 1.24 pushes down to PostgreSQL; an
 * `_id` `$in` alone it answers by reading the whole ledger (330–470 ms at 10,000 runs, every batch).
 */
function supersededBySlot(claimed: readonly RunDocument[]): Map<Date, string[]> {
  const bySlot = new Map<number, { slot: Date; ids: string[] }>()
  for (const doc of claimed) {
    const group = bySlot.get(doc.slot.getTime()) ?? { slot: doc.slot, ids: [] }
    group.ids.push(unrunId(doc._id))
    bySlot.set(doc.slot.getTime(), group)
  }
  return new Map([...bySlot.values()].map(({ slot, ids }) => [slot, ids]))
}

/**
 * How many more documents than asked `history` reads: a superseded account lives beside its run only
 * until the claimer deletes it, so a handful is plenty.
 */
const SUPERSEDED_SLACK = 8

/** The records with each slot's account left out where the slot also has a run, in their order. */
function preferRuns(records: readonly (RunRecord | undefined)[]): RunRecord[] {
  const ran = new Set(records.filter((r) => r !== undefined && !isUnrun(r)).map((r) => r?.id))
  return records.filter((r): r is RunRecord => r !== undefined && !(isUnrun(r) && ran.has(r.id)))
}

/** The net and slot an item's error names. */
function slotOf(item: { net: string; slot: Date }): { net: string; slot: Date } {
  return { net: item.net, slot: item.slot }
}

function isUnrun(record: RunRecord): boolean {
  const unrun: readonly (string | undefined)[] = UNRUN_OUTCOMES
  return unrun.includes(record.outcome)
}

/**
 * The runs `history` reads: `net`'s documents whose key fields have the stored types (and, with `until`,
 * whose slot is not after it). In the query, not after it: read-then-drop let 30 documents with a 2030
 * slot and a numeric owner fill the `limit` and push every real run out of /status (0 runs, state late).
 * What the filter cannot say (an unknown outcome, a fraction of a fence) the parser still skips; those
 * are rare enough for SUPERSEDED_SLACK. Only operators FerretDB 1.24 runs ($type, $gte, $lte, $in).
 */
function historyFilter(net: string, until: Date | undefined): Filter<RunDocument> {
  const shape = readableShape()
  return { net, ...shape, slot: until === undefined ? shape.slot : { $type: 'date', $lte: until } }
}

/** The stored types of a run's key fields, as historyFilter asks them. */
function readableShape() {
  return {
    _id: { $type: 'string' },
    slot: { $type: 'date' },
    owner: { $type: 'string' },
    fence: { $gte: 0 },
    startedAt: { $type: 'date' },
    outcome: { $in: [...RUN_OUTCOMES, null] },
  } satisfies Filter<RunDocument>
}

/**
 * How many of a net's documents `history` with `reportLeftOut` reads to report them: enough to name the
 * problem on a view, few enough that a collection flooded with them costs one small read.
 */
const LEFT_OUT_REPORTED = 8

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

/** The document a claim inserts: the claim, and its end still to come. */
function claimDocument(c: RunClaim): RunDocument {
  return {
    _id: runId(c.net, c.slot, c.manual),
    ...c,
    finishedAt: null,
    outcome: null,
    error: null,
    requests: null,
    attempts: null,
  }
}

/**
 * Inserts `docs` in one unordered `insertMany` and answers each: `true` written, `false` a duplicate key
 * (that slot was claimed), or the server's refusal of that document alone. The server goes on past a
 * refused document, so the others' answers stand; any other failure rejects (every item then fails).
 */
async function insertEach(
  runs: Collection<RunDocument>,
  docs: RunDocument[],
  bounds: CallBounds,
): Promise<SentAnswer[]> {
  try {
    await runs.insertMany(docs, { ...bounds.write, ordered: false })
    return docs.map(() => true)
  } catch (error) {
    const refused = bulkWriteErrors(error)
    if (!refused) throw error
    const answers: SentAnswer[] = docs.map(() => true)
    for (const r of refused) answers[r.index] = r.code === DUPLICATE_KEY ? false : { refused: r.message }
    return answers
  }
}

/** One finish as `finish` writes it: the record it names, the claim's owner and fence, and its end. */
/** The fields a finish sets on its record. */
function finishSet(f: RunFinish) {
  return {
    finishedAt: f.finishedAt,
    outcome: f.outcome,
    error: f.error ?? null,
    requests: f.requests ?? null,
    attempts: f.attempts ?? 1,
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
    const doc = claimDocument(c)
    return this.#call(
      { component: COMPONENT, operation: 'claim', net: c.net, slot: c.slot },
      options,
      async (runs, bounds) => {
        if (!(await insertFirst(runs, doc, bounds))) return false
        // The run supersedes an account of the slot; a leftover one is harmless (reads prefer the run).
        await runs.deleteOne({ _id: unrunId(doc._id) }, bounds.write).catch(() => undefined)
        return true
      },
    )
  }

  /**
   * One unordered `insertMany` of the checked claims (insertEach), then one `deleteMany` of the accounts
   * the new runs supersede, as `claim` deletes its one. A duplicate key is that claim's `false` with no
   * second try: an account lives under its own key (`#unrun`), so a duplicate is always a run — what
   * `claim`'s own insert answers `false` to. A claim the server refused for another reason rejects alone
   * (RUN_LEDGER_FAILED); a call the store did not answer rejects every claim sent in it, each naming its
   * slot (a claim may still have landed: fail-closed, as `claim`'s aborted call).
   */
  claimMany(claims: readonly RunClaim[], options?: RunLedgerCallOptions): Promise<RunBatchAnswer[]> {
    const check = (claim: RunClaim) => {
      const c = checkClaim(COMPONENT, claim)
      return { value: claimDocument(c), context: { component: COMPONENT, operation: 'claim', ...slotOf(c) } }
    }
    return answerEach(claims, check, (docs) =>
      this.#call({ component: COMPONENT, operation: 'claimMany' }, options, async (runs, bounds) => {
        const answers = await insertEach(runs, docs, bounds)
        const won = docs.filter((_, i) => answers[i] === true)
        for (const [slot, ids] of supersededBySlot(won))
          await runs.deleteMany({ slot, _id: { $in: ids } }, bounds.write).catch(() => undefined)
        return answers
      }),
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
      ...(a.installation === undefined ? {} : { installation: a.installation }),
    }
    return this.#call(
      { component: COMPONENT, operation: 'account', net: a.net, slot: a.slot },
      options,
      async (runs, bounds) => {
        if ((await runs.findOne({ _id: doc._id }, bounds.read)) !== null) return false
        return insertFirst(runs, { ...doc, _id: unrunId(doc._id) }, bounds)
      },
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
    const set = finishSet(checkFinish(context, finish))
    return this.#call(context, options, async (runs, bounds) => {
      const result = await runs.updateOne(
        { _id: runId(name, at, options?.manual), owner: term.owner, fence: term.fence },
        { $set: set },
        bounds.write,
      )
      return result.matchedCount === 1
    })
  }

  /** One filtered update (no outcome, an older fence): on FerretDB it is read-then-write, and a race with
   * the old term's own late finish leaves either end, both of a pass that ran once. */
  async close(
    net: string,
    slot: Date,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    const name = checkNet(COMPONENT, 'close', net)
    const at = checkInstant({ component: COMPONENT, operation: 'close', net: name }, 'slot', slot)
    const context = { component: COMPONENT, operation: 'close', net: name, slot: at }
    const closer = checkCount(context, 'fence', fence, 0)
    const set = finishSet(checkFinish(context, finish))
    return this.#call(context, options, async (runs, bounds) => {
      const result = await runs.updateOne(
        { _id: runId(name, at, options?.manual), outcome: null, fence: { $lt: closer } },
        { $set: set },
        bounds.write,
      )
      return result.matchedCount === 1
    })
  }

  async retake(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const c = checkClaim(COMPONENT, claim, 'retake')
    const context = { component: COMPONENT, operation: 'retake', net: c.net, slot: c.slot }
    return this.#call(context, options, async (runs, bounds) => {
      const result = await runs.updateOne(
        { _id: runId(c.net, c.slot, c.manual), outcome: null, fence: { $lt: c.fence } },
        { $set: { owner: c.owner, fence: c.fence, startedAt: c.startedAt }, $inc: { retakes: 1 } },
        bounds.write,
      )
      return result.matchedCount === 1
    })
  }

  async get(net: string, slot: Date, options?: RunSlotOptions): Promise<RunRecord | undefined> {
    const name = checkNet(COMPONENT, 'get', net)
    const at = checkInstant({ component: COMPONENT, operation: 'get', net: name }, 'slot', slot)
    const docs = await this.#call(
      { component: COMPONENT, operation: 'get', net: name, slot: at },
      options,
      (runs, bounds) => {
        const id = runId(name, at, options?.manual)
        return runs.find({ _id: { $in: [id, unrunId(id)] } }, bounds.read).toArray()
      },
    )
    return preferRuns(docs.map((d) => this.#parse(d)))[0]
  }

  async history(net: string, limit: number, options?: RunHistoryOptions): Promise<RunRecord[]> {
    const name = checkNet(COMPONENT, 'history', net)
    const context = { component: COMPONENT, operation: 'history', net: name }
    const count = checkCount(context, 'limit', limit, 1)
    const until = options?.until === undefined ? undefined : checkInstant(context, 'until', options.until)
    const [docs, leftOut] = await this.#call(context, options, async (runs, bounds) => {
      const read = runs.find(historyFilter(name, until), bounds.find).sort({ slot: -1 })
      const found = await read.limit(count + SUPERSEDED_SLACK).toArray()
      if (!options?.reportLeftOut) return [found, []]
      const unreadable = { net: name, $nor: [readableShape()] } as Filter<RunDocument>
      return [found, await runs.find(unreadable, bounds.find).limit(LEFT_OUT_REPORTED).toArray()]
    })
    for (const doc of leftOut) this.#parse(doc)
    return preferRuns(docs.map((doc) => this.#parse(doc))).slice(0, count)
  }

  /**
   * Two round trips: find the newest slot past `keep`, then delete it and everything older (with `until`,
   * among the slots at or before it only).
   */
  async prune(net: string, keep: number, options?: RunHistoryOptions): Promise<number> {
    const name = checkNet(COMPONENT, 'prune', net)
    const context = { component: COMPONENT, operation: 'prune', net: name }
    const kept = checkCount(context, 'keep', keep, 0)
    const until = options?.until === undefined ? undefined : checkInstant(context, 'until', options.until)
    const within: Filter<RunDocument> =
      until === undefined ? { net: name } : { net: name, slot: { $lte: until } }
    return this.#call(context, options, async (runs, bounds) => {
      const [first] = await runs
        .find(within, { projection: { slot: 1 }, ...bounds.read })
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
