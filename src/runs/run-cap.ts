/**
 * MAX_RUNS, as the run ledger counts it: a net with a cap runs at most that many scheduled slots, then no
 * path runs another (the term's ticks and catch-up, `once`, a serverless trigger, a backfill) and its
 * state is `finished`, as past its END_AT.
 *
 * What counts: a scheduled slot whose pass started — a claim (its pass runs, or its holder was cut off), or
 * a run that ended with one attempt or more, whatever its outcome (`ok`, `failed`, `timed-out`, `aborted`).
 * A slot that never ran does not (`skipped`, `missed`, `paused`, `deferred`, a claim recorded `aborted`
 * with 0 attempts), nor does a manual run (run now): an operator's ask is never refused for the cap.
 *
 * The count is read, not kept: the runs are counted among the net's newest records, RUN_CAP_LOOKBACK × the
 * cap of them, so slots let go between runs do not push a run out of the count. What it is not: a counter
 * stored anywhere, or a bound on a pass's attempts (RETRIES).
 */
import type { RunOutcome } from './run-ledger.js'

/** How many of the net's newest records a count reads, per run of the cap. */
export const RUN_CAP_LOOKBACK = 2

/** What the count reads of a record. */
export interface CountedRun {
  outcome?: RunOutcome | string | undefined
  attempts?: number | undefined
  manual?: boolean | undefined
}

/** Whether `run` counts against MAX_RUNS: a scheduled slot whose pass started (see the module's doc). */
export function countsAsRun(run: CountedRun): boolean {
  if (run.manual) return false
  // A claim without an end: its pass runs now, or ran and was cut off.
  if (run.outcome === undefined) return true
  // A record written before attempts were kept reads as 1 (run-document.ts).
  return (run.attempts ?? 1) > 0
}

/** How many of `runs` count against MAX_RUNS. */
export function runsCounted(runs: readonly CountedRun[]): number {
  return runs.filter(countsAsRun).length
}
