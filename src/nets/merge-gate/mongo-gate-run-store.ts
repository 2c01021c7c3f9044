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
import type { Collection, Db, Filter, WriteConcernSettings } from 'mongodb'
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
import { describeError, GateRunError } from './gate-run-error.js'
import {
  checkPageQuery,
  type GateRunPage,
  type GateRunPageQuery,
  type GateRunStore,
} from './gate-run-store.js'

const COMPONENT = 'MongoGateRunStore'
const MAJORITY: WriteConcernSettings = { w: 'majority' }

export interface MongoGateRunStoreOptions {
  /** Collection name; `gate_runs` by default. */
  collection?: string
}

/** A GateRunStore backed by MongoDB (or a wire-compatible server); see the GateRunStore contract. */
export class MongoGateRunStore implements GateRunStore {
  readonly #runs: Collection<GateRunDocument>

  constructor(db: Db, options: MongoGateRunStoreOptions = {}) {
    if (!db || typeof db.collection !== 'function') {
      throw new TypeError('MongoGateRunStore: expected a mongodb Db as its first argument')
    }
    this.#runs = db.collection<GateRunDocument>(options.collection ?? 'gate_runs', { writeConcern: MAJORITY })
  }

  /** Creates the `sweep` index (idempotent); the net's setup calls it once per process. */
  async ensureIndexes(): Promise<void> {
    await this.#call('ensureIndexes', undefined, () =>
      this.#runs.createIndex({ settledAt: 1, updatedAt: -1, _id: -1 }, { name: 'sweep' }),
    )
  }

  async record(run: GatingRun): Promise<void> {
    const valid = checkGatingRun(COMPONENT, 'record', run)
    const doc = toGateRunDocument(valid)
    await this.#call('record', valid.id, () => this.#runs.replaceOne({ _id: doc._id }, doc, { upsert: true }))
  }

  async update(id: string, patch: GatingRunPatch): Promise<GatingRun> {
    const runId = checkRunId(COMPONENT, 'update', id)
    const change = checkGatingRunPatch(COMPONENT, runId, patch)
    const set: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(change)) {
      if (value !== undefined)
        set[key] = value instanceof Date ? new Date(Math.trunc(value.getTime())) : value
    }
    const after = await this.#call('update', runId, () =>
      this.#runs.findOneAndUpdate({ _id: runId }, { $set: set }, { returnDocument: 'after' }),
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

  async get(id: string): Promise<GatingRun | undefined> {
    const runId = checkRunId(COMPONENT, 'get', id)
    const doc = await this.#call('get', runId, () => this.#runs.findOne({ _id: runId }))
    return doc === null ? undefined : this.#read('get', runId, doc)
  }

  async page(query: GateRunPageQuery): Promise<GateRunPage> {
    const { from, to, after, limit } = checkPageQuery(COMPONENT, query)
    const filter: Filter<GateRunDocument> = { settledAt: null, updatedAt: { $gte: from, $lte: to } }
    if (after !== undefined) {
      filter.$or = [
        { updatedAt: { $lt: after.updatedAt } },
        { updatedAt: after.updatedAt, _id: { $lt: after.id } },
      ]
    }
    const docs = await this.#call('page', undefined, () =>
      this.#runs.find(filter).sort({ updatedAt: -1, _id: -1 }).limit(limit).toArray(),
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

  async markSettled(id: string, now: Date): Promise<boolean> {
    return this.#stampOnce('markSettled', 'settledAt', id, now)
  }

  async markRelaunchRequested(id: string, now: Date): Promise<boolean> {
    return this.#stampOnce('markRelaunchRequested', 'relaunchRequestedAt', id, now)
  }

  async #stampOnce(
    operation: string,
    field: 'settledAt' | 'relaunchRequestedAt',
    id: string,
    now: Date,
  ): Promise<boolean> {
    const runId = checkRunId(COMPONENT, operation, id)
    const at = checkInstant(COMPONENT, operation, 'now', now)
    // `field: null` matches missing or null: the stamp is set once and never moved.
    const result = await this.#call(operation, runId, () =>
      this.#runs.updateOne({ _id: runId, [field]: null } as Filter<GateRunDocument>, {
        $set: { [field]: at },
      }),
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

  async #call<T>(operation: string, runId: string | undefined, op: () => Promise<T>): Promise<T> {
    try {
      return await op()
    } catch (error) {
      throw new GateRunError(
        'GATE_RUN_STORE_FAILED',
        { component: COMPONENT, operation, runId },
        `the store did not answer: ${describeError(error)}`,
        { cause: error },
      )
    }
  }
}
