/**
 * MemoryGateRunStore: the in-process twin of MongoGateRunStore, for a worker without Mongo (one process
 * elects itself) and for tests. It keeps documents in the stored shape and validates them on read exactly
 * as the Mongo twin does, so a document written by someone else that fails the schema behaves the same.
 *
 * Not shared between processes and not persistent.
 */
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
  checkGateCallNotAborted,
  checkPageQuery,
  matchesInstallation,
  type GateRunCallOptions,
  type GateRunPage,
  type GateRunPageQuery,
  type GateRunStore,
} from './gate-run-store.js'

const COMPONENT = 'MemoryGateRunStore'

/** A GateRunStore held in memory; see the GateRunStore contract. */
export class MemoryGateRunStore implements GateRunStore {
  readonly #docs = new Map<string, Record<string, unknown>>()

  async record(run: GatingRun, options?: GateRunCallOptions): Promise<void> {
    const valid = checkGatingRun(COMPONENT, 'record', run)
    checkGateCallNotAborted(COMPONENT, 'record', valid.id, options)
    this.#docs.set(valid.id, { ...toGateRunDocument(valid) })
  }

  /**
   * Stores `doc` as it is, validated only on read — as a `gate_runs` document written by another program
   * would be. For migrations and tests of the skip-invalid path; `doc._id` must be a string.
   */
  insertDocument(doc: Record<string, unknown>): void {
    if (typeof doc._id !== 'string') {
      throw new GateRunError(
        'GATE_RUN_INVALID',
        { component: COMPONENT, operation: 'insertDocument' },
        '_id must be a string',
      )
    }
    this.#docs.set(doc._id, structuredClone(doc))
  }

  async update(id: string, patch: GatingRunPatch, options?: GateRunCallOptions): Promise<GatingRun> {
    const runId = checkRunId(COMPONENT, 'update', id)
    const change = checkGatingRunPatch(COMPONENT, runId, patch)
    checkGateCallNotAborted(COMPONENT, 'update', runId, options)
    const doc = this.#docs.get(runId)
    if (doc === undefined) {
      throw new GateRunError(
        'GATE_RUN_NOT_FOUND',
        { component: COMPONENT, operation: 'update', runId },
        'no such gating run',
      )
    }
    for (const [key, value] of Object.entries(change)) {
      if (value !== undefined)
        doc[key] = value instanceof Date ? new Date(Math.trunc(value.getTime())) : value
    }
    return this.#read('update', runId, doc)
  }

  async get(id: string, options?: GateRunCallOptions): Promise<GatingRun | undefined> {
    const runId = checkRunId(COMPONENT, 'get', id)
    checkGateCallNotAborted(COMPONENT, 'get', runId, options)
    const doc = this.#docs.get(runId)
    return doc === undefined ? undefined : this.#read('get', runId, doc)
  }

  async page(query: GateRunPageQuery, options?: GateRunCallOptions): Promise<GateRunPage> {
    const { from, to, after, limit, installation } = checkPageQuery(COMPONENT, query)
    checkGateCallNotAborted(COMPONENT, 'page', undefined, options)
    // The same filter and order as the Mongo query: updatedAt must be a Date to be in range at all
    // (BSON compares within a type), unsettled means settledAt missing or null.
    const matching = [...this.#docs.values()]
      .filter((d): d is Record<string, unknown> & { _id: string; updatedAt: Date } => {
        const at = d.updatedAt
        if (
          !(at instanceof Date) ||
          at < from ||
          at > to ||
          (d.settledAt !== undefined && d.settledAt !== null) ||
          !matchesInstallation(d.installation, installation)
        ) {
          return false
        }
        if (after === undefined) return true
        return (
          at < after.updatedAt || (at.getTime() === after.updatedAt.getTime() && String(d._id) < after.id)
        )
      })
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || compareDesc(a._id, b._id))
      .slice(0, limit)
    const runs: GatingRun[] = []
    const invalid: InvalidGateRun[] = []
    for (const doc of matching) {
      const parsed = parseGateRunDocument(doc)
      if ('run' in parsed) runs.push(structuredClone(parsed.run))
      else invalid.push(parsed.invalid)
    }
    const last = matching.at(-1)
    const next =
      matching.length === limit && last ? { updatedAt: new Date(last.updatedAt), id: last._id } : undefined
    return { runs, invalid, next }
  }

  async markSettled(id: string, now: Date, options?: GateRunCallOptions): Promise<boolean> {
    return this.#stampOnce('markSettled', 'settledAt', id, now, options)
  }

  async markRelaunchRequested(id: string, now: Date, options?: GateRunCallOptions): Promise<boolean> {
    return this.#stampOnce('markRelaunchRequested', 'relaunchRequestedAt', id, now, options)
  }

  #stampOnce(
    operation: string,
    field: keyof GateRunDocument,
    id: string,
    now: Date,
    options: GateRunCallOptions | undefined,
  ): boolean {
    const runId = checkRunId(COMPONENT, operation, id)
    const at = checkInstant(COMPONENT, operation, 'now', now)
    checkGateCallNotAborted(COMPONENT, operation, runId, options)
    const doc = this.#docs.get(runId)
    if (doc === undefined || (doc[field] !== undefined && doc[field] !== null)) return false
    doc[field] = at
    return true
  }

  #read(operation: string, runId: string, doc: Record<string, unknown>): GatingRun {
    const parsed = parseGateRunDocument(doc)
    if ('invalid' in parsed) {
      throw new GateRunError(
        'GATE_RUN_INVALID',
        { component: COMPONENT, operation, runId },
        `the stored document is not a valid gating run — ${parsed.invalid.problems}`,
      )
    }
    return structuredClone(parsed.run)
  }
}

// Mongo orders string _ids by binary comparison of their UTF-8 bytes; for the ASCII ids the schema allows
// that is plain code-unit order.
function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0
}
