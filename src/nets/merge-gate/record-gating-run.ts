/**
 * The embedder's entry points for gating runs: how a review system (or a test, or the demo) tells
 * leasecron about a run it started and about each change to it. Thin, validating calls over a
 * GateRunStore; the sweeper never calls them (it only stamps `settledAt` / `relaunchRequestedAt`).
 */
import {
  checkGatingRun,
  checkGatingRunPatch,
  checkRunId,
  type GatingRun,
  type GatingRunPatch,
} from './gate-run.js'
import type { GateRunCallOptions, GateRunStore } from './gate-run-store.js'

/**
 * Validates `run` and records it in `store`, replacing any run with the same id. Throws GateRunError
 * `GATE_RUN_INVALID` naming each bad field before anything is written; store failures reject with
 * `GATE_RUN_STORE_FAILED` (`GATE_RUN_STORE_ABORTED` when `options.signal` aborts). Resolves the run as
 * recorded (instants truncated to the millisecond).
 */
export async function recordGatingRun(
  store: GateRunStore,
  run: GatingRun,
  options?: GateRunCallOptions,
): Promise<GatingRun> {
  const valid = checkGatingRun('recordGatingRun', 'record', run)
  await store.record(valid, options)
  return valid
}

/**
 * Applies `patch` to run `id` (its `updatedAt` is required: the review system's instant) and resolves the
 * run as it now is. Throws `GATE_RUN_INVALID` for a bad id or patch, `GATE_RUN_NOT_FOUND` when the store
 * has no such run.
 */
export async function updateGatingRun(
  store: GateRunStore,
  id: string,
  patch: GatingRunPatch,
  options?: GateRunCallOptions,
): Promise<GatingRun> {
  const runId = checkRunId('updateGatingRun', 'update', id)
  return store.update(runId, checkGatingRunPatch('updateGatingRun', runId, patch), options)
}
