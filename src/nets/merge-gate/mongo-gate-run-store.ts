/**
 * MongoGateRunStore: gating runs in the MongoDB collection `gate_runs`, one document per run.
 *
 * Documented schema (every field required unless marked; absent optionals are stored as null):
 *
 *   _id                  string   the review system's run id (1-200 of [A-Za-z0-9._:-])
 *   repo                 string   "owner/name"
 *   pull                 int      pull request number
 *   headSha              string   40 or 64 lowercase hex digits
 *   gateContext          string?  commit-status context; the sweeper's GATE_CONTEXT when null
 *   state                string   running | succeeded | failed | died
 *   reason               string?  why it failed or died
 *   updatedAt            date     the review system's last word on the run
 *   settledAt            date?    set by the reconciler once the gate needs nothing more
 *   relaunchRequestedAt  date?    set by the reconciler after it posted the synthetic failure
 *
 * Index `sweep` `{settledAt: 1, updatedAt: -1, _id: -1}` serves the sweep query (equality on
 * settledAt: null, then the updatedAt range in sort order). Documents are validated on read, not by a
 * server-side validator: the review system owns the writes, and one bad document must cost one skipped
 * run, never a refused write upstream or a crashed pass here.
 *
 * Not a claim: the reconciler's marks are idempotent stamps, set only when absent.
 */
import type { Collection, Db, Filter } from 'mongodb'
import { type CallBounds, LONG_CALL_TIMEOUT_MS, StoreCollection } from '../../store-call/store-call.js'
import {
  checkGatingRun,
  checkGatingRunPatch,
  checkInstant,
  checkRunId,
  type GateRunDocument,
  type GatingRun,
  type GatingRunPatch,
  type InvalidGateRun,
  parseGateRunDocument,
  toGateRunDocument,
} from './gate-run.js'
import { GateRunError } from './gate-run-error.js'
import {
  checkPageQuery,
  type GateRunCallOptions,
  type GateRunPage,
  type GateRunPageQuery,
  type GateRunStore,
} from './gate-run-store.js'

const COMPONENT = 'MongoGateRunStore'

export interface MongoGateRunStoreOptions {
  /** Collection name; `gate_runs` by default. */
  collection?: string
  /** The longest a call may take on the server (`maxTimeMS`, and the majority's `wtimeoutMS`), in ms; 5000 by default. */
  callTimeoutMs?: number
}

/** A GateRunStore backed by MongoDB (or a wire-compatible server); see the GateRunStore contract. */
export class MongoGateRunStore implements GateRunStore {
  readonly #runs: StoreCollection<GateRunDocument>

  constructor(db: Db, options: MongoGateRunStoreOptions = {}) {
    this.#runs = new StoreCollection<GateRunDocument>(db, options.collection ?? 'gate_runs', {
      component: COMPONENT,
      majority: true,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    })
  }

  /** Creates the `sweep` index (idempotent); the net's setup calls it once per process. */
  async ensureIndexes(options?: GateRunCallOptions): Promise<void> {
    const index = { settledAt: 1, updatedAt: -1, _id: -1 } as const
    await this.#call(
      'ensureIndexes',
      undefined,
      options,
      (runs, bounds) => runs.createIndex(index, { name: 'sweep', ...bounds.read }),
      LONG_CALL_TIMEOUT_MS,
    )
  }

  async record(run: GatingRun, options?: GateRunCallOptions): Promise<void> {
    const valid = checkGatingRun(COMPONENT, 'record', run)
    const doc = toGateRunDocument(valid)
    await this.#call('record', valid.id, options, (runs, bounds) =>
      runs.replaceOne({ _id: doc._id }, doc, { upsert: true, ...bounds.write }),
    )
  }

  async update(id: string, patch: GatingRunPatch, options?: GateRunCallOptions): Promise<GatingRun> {
    const runId = checkRunId(COMPONENT, 'update', id)
    const change = checkGatingRunPatch(COMPONENT, runId, patch)
    const set: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(change)) {
      if (value !== undefined)
        set[key] = value instanceof Date ? new Date(Math.trunc(value.getTime())) : value
    }
    const after = await this.#call('update', runId, options, (runs, bounds) =>
      runs.findOneAndUpdate({ _id: runId }, { $set: set }, { returnDocument: 'after', ...bounds.write }),
    )
    if (after === null) {
      throw new GateRunError(
        'GATE_RUN_NOT_FOUND',
        { component: COMPONENT, operation: 'update', runId },
        'no such gating run',
      )
    }
    return this.#read('update', runId, after)
  }

  async get(id: string, options?: GateRunCallOptions): Promise<GatingRun | undefined> {
    const runId = checkRunId(COMPONENT, 'get', id)
    const doc = await this.#call('get', runId, options, (runs, bounds) =>
      runs.findOne({ _id: runId }, bounds.read),
    )
    return doc === null ? undefined : this.#read('get', runId, doc)
  }

  async page(query: GateRunPageQuery, options?: GateRunCallOptions): Promise<GateRunPage> {
    const { from, to, after, limit, installation } = checkPageQuery(COMPONENT, query)
    const filter: Filter<GateRunDocument> = { settledAt: null, updatedAt: { $gte: from, $lte: to } }
    const and: Filter<GateRunDocument>[] = []
    if (after !== undefined) {
      and.push({
        $or: [
          { updatedAt: { $lt: after.updatedAt } },
          { updatedAt: after.updatedAt, _id: { $lt: after.id } },
        ],
      })
    }
    // `installation: null` matches a missing field too: the runs written before runs named theirs.
    if (installation !== undefined)
      and.push(
        installation.unnamed
          ? { $or: [{ installation: installation.id }, { installation: null }] }
          : { installation: installation.id },
      )
    if (and.length > 0) filter.$and = and
    const docs = await this.#call('page', undefined, options, (runs, bounds) =>
      runs.find(filter, bounds.find).sort({ updatedAt: -1, _id: -1 }).limit(limit).toArray(),
    )
    const runs: GatingRun[] = []
    const invalid: InvalidGateRun[] = []
    for (const doc of docs) {
      const parsed = parseGateRunDocument(doc)
      if ('run' in parsed) runs.push(parsed.run)
      else invalid.push(parsed.invalid)
    }
    const last = docs.at(-1)
    const next =
      docs.length === limit && last ? { updatedAt: last.updatedAt, id: String(last._id) } : undefined
    return { runs, invalid, next }
  }

  async markSettled(id: string, now: Date, options?: GateRunCallOptions): Promise<boolean> {
    return this.#stampOnce('markSettled', 'settledAt', id, now, options)
  }

  async markRelaunchRequested(id: string, now: Date, options?: GateRunCallOptions): Promise<boolean> {
    return this.#stampOnce('markRelaunchRequested', 'relaunchRequestedAt', id, now, options)
  }

  async #stampOnce(
    operation: string,
    field: 'settledAt' | 'relaunchRequestedAt',
    id: string,
    now: Date,
    options: GateRunCallOptions | undefined,
  ): Promise<boolean> {
    const runId = checkRunId(COMPONENT, operation, id)
    const at = checkInstant(COMPONENT, operation, 'now', now)
    // `field: null` matches missing or null: the stamp is set once and never moved.
    const unset = { _id: runId, [field]: null } as Filter<GateRunDocument>
    const result = await this.#call(operation, runId, options, (runs, bounds) =>
      runs.updateOne(unset, { $set: { [field]: at } }, bounds.write),
    )
    return result.modifiedCount > 0
  }

  #read(operation: string, runId: string, doc: unknown): GatingRun {
    const parsed = parseGateRunDocument(doc)
    if ('invalid' in parsed) {
      throw new GateRunError(
        'GATE_RUN_INVALID',
        { component: COMPONENT, operation, runId },
        `the stored document is not a valid gating run — ${parsed.invalid.problems}`,
      )
    }
    return parsed.run
  }

  /** One bounded call (store-call.ts): failures are GATE_RUN_STORE_FAILED, aborts GATE_RUN_STORE_ABORTED. */
  #call<T>(
    operation: string,
    runId: string | undefined,
    options: GateRunCallOptions | undefined,
    op: (runs: Collection<GateRunDocument>, bounds: CallBounds) => Promise<T>,
    timeoutMs?: number,
  ): Promise<T> {
    const context = { component: COMPONENT, operation, runId }
    const error = (kind: 'failed' | 'aborted', detail: string, cause: unknown) =>
      new GateRunError(
        kind === 'failed' ? 'GATE_RUN_STORE_FAILED' : 'GATE_RUN_STORE_ABORTED',
        context,
        detail,
        {
          cause,
        },
      )
    return this.#runs.call({ signal: options?.signal, timeoutMs, error }, op)
  }
}
