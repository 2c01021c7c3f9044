/**
 * The gate-run store contract: where gating runs live between the review system that records them and
 * the merge-gate sweeper that offers them. Two twins answer identical calls identically —
 * `MemoryGateRunStore` and `MongoGateRunStore` (collection `gate_runs`) — checked by one conformance suite.
 *
 * Not a queue and not a claim: two sweepers reading one page both get every run, and the reconciler's
 * re-read keeps that harmless. The store never reads a clock; every instant is an argument.
 */
import type { StoreCallOptions } from '../../store-call/store-call.js'
import { type GatingRun, type GatingRunPatch, type InvalidGateRun, checkInstant } from './gate-run.js'
import { GateRunError } from './gate-run-error.js'

/**
 * Options every gate-run store call accepts: `signal` bounds it (an aborted one rejects with
 * `GATE_RUN_STORE_ABORTED` and changes nothing; one aborted in flight rejects at once, its write may land).
 */
export type GateRunCallOptions = StoreCallOptions

/** Where a page continues: strictly older than this run in (updatedAt desc, id desc) order. */
export interface GateRunCursor {
  updatedAt: Date
  id: string
}

/** One page of the sweep query. */
export interface GateRunPageQuery {
  /** Oldest `updatedAt` included. */
  from: Date
  /** Newest `updatedAt` included. */
  to: Date
  /** Continue after this run (the last of the previous page); from `to` when absent. */
  after?: GateRunCursor | undefined
  /** Documents per page, 1 to 1000. */
  limit: number
  /**
   * Only this installation's runs (`id`), and with `unnamed` also the runs naming none; every run when
   * absent (a worker acting as one installation with no run naming another).
   */
  installation?: GateRunInstallationFilter | undefined
}

/** Whose runs a page holds: installation `id`'s, and the runs naming no installation when `unnamed`. */
export interface GateRunInstallationFilter {
  id: number
  unnamed: boolean
}

/** A page: the valid runs, the documents that failed validation, and where the next page starts. */
export interface GateRunPage {
  runs: GatingRun[]
  invalid: InvalidGateRun[]
  /**
   * The last document of this page (valid or not) when the page was full, so the next page can start
   * after it; undefined when the window is exhausted.
   */
  next: GateRunCursor | undefined
}

/**
 * A store of gating runs. A rejection means the answer did not arrive (a write may still land); expected
 * outcomes are return values.
 */
export interface GateRunStore {
  /**
   * Records `run`, replacing wholesale any run with the same id (recording again is how a review system
   * restarts one). Rejects with GateRunError `GATE_RUN_INVALID` for a run failing the schema.
   */
  record(run: GatingRun, options?: GateRunCallOptions): Promise<void>
  /**
   * Applies `patch` to run `id` and resolves the run as it now is. Rejects with `GATE_RUN_NOT_FOUND` when
   * there is no such run, `GATE_RUN_INVALID` for a bad patch.
   */
  update(id: string, patch: GatingRunPatch, options?: GateRunCallOptions): Promise<GatingRun>
  /** The run with `id`; undefined when absent. Rejects with `GATE_RUN_INVALID` when its document is invalid. */
  get(id: string, options?: GateRunCallOptions): Promise<GatingRun | undefined>
  /**
   * The sweep query: unsettled runs (no `settledAt`) with `from ≤ updatedAt ≤ to`, newest first, ties by id
   * descending, at most `limit` documents, starting strictly after `after`. The (updatedAt, id) cursor
   * continues from the oldest updatedAt of the previous page without losing or repeating runs that share
   * it. Documents failing validation are returned in `invalid`, never thrown.
   */
  page(query: GateRunPageQuery, options?: GateRunCallOptions): Promise<GateRunPage>
  /**
   * Sets `settledAt = now` when run `id` exists unsettled; resolves true when this call set it. Never moves
   * an existing stamp and never touches `updatedAt`.
   */
  markSettled(id: string, now: Date, options?: GateRunCallOptions): Promise<boolean>
  /** Sets `relaunchRequestedAt = now` when unset; resolves true when this call set it. */
  markRelaunchRequested(id: string, now: Date, options?: GateRunCallOptions): Promise<boolean>
}

/** Largest page a store accepts. */
export const MAX_GATE_RUN_PAGE = 1000

/** Checks a page query; throws GateRunError `GATE_RUN_INVALID` naming the field. */
export function checkPageQuery(component: string, query: GateRunPageQuery): GateRunPageQuery {
  const from = checkInstant(component, 'page', 'from', query?.from)
  const to = checkInstant(component, 'page', 'to', query?.to)
  const limit = query.limit
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GATE_RUN_PAGE) {
    throw new GateRunError(
      'GATE_RUN_INVALID',
      { component, operation: 'page' },
      `limit must be a whole number from 1 to ${MAX_GATE_RUN_PAGE}, got ${String(limit)}`,
    )
  }
  const installation = checkInstallationFilter(component, query.installation)
  const scoped = installation === undefined ? {} : { installation }
  if (query.after === undefined) return { from, to, limit, ...scoped }
  const after = {
    updatedAt: checkInstant(component, 'page', 'after.updatedAt', query.after.updatedAt),
    id: String(query.after.id),
  }
  return { from, to, limit, after, ...scoped }
}

function checkInstallationFilter(
  component: string,
  filter: GateRunInstallationFilter | undefined,
): GateRunInstallationFilter | undefined {
  if (filter === undefined) return undefined
  if (!Number.isSafeInteger(filter.id) || filter.id < 1 || typeof filter.unnamed !== 'boolean')
    throw new GateRunError(
      'GATE_RUN_INVALID',
      { component, operation: 'page' },
      `installation must be { id: a positive integer, unnamed: a boolean }, got ${JSON.stringify(filter)}`,
    )
  return { id: filter.id, unnamed: filter.unnamed }
}

/** Whether a stored document's `installation` (absent or null: none named) passes `filter`. */
export function matchesInstallation(stored: unknown, filter: GateRunInstallationFilter | undefined): boolean {
  if (filter === undefined) return true
  if (stored === undefined || stored === null) return filter.unnamed
  return stored === filter.id
}

/** Rejects a call whose signal is already aborted, before it reaches the store (GATE_RUN_STORE_ABORTED). */
export function checkGateCallNotAborted(
  component: string,
  operation: string,
  runId: string | undefined,
  options: GateRunCallOptions | undefined,
): void {
  const signal = options?.signal
  if (!signal?.aborted) return
  throw new GateRunError(
    'GATE_RUN_STORE_ABORTED',
    { component, operation, runId },
    'the call was aborted before it was sent',
    { cause: signal.reason },
  )
}
