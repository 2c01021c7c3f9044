/**
 * Retakes: a pass cut off by its holder's end — the holder was killed, or stalled past its term, while the
 * pass ran — is run again by the next term, as the same slot, at that term's election. Nets are idempotent
 * (nets/net.ts), so running the slot again finishes what the cut-off pass may have left half done, where
 * recording it `aborted` would lose the slot until the next one repairs it.
 *
 * The successor takes the unfinished run over with the ledger's `retake` (the record's owner and fence
 * become the successor's, so the old term's late finish is refused), and the catch-up plans it with the gap
 * the holder's end left (catch-up-plan.ts: `retakable`): under CATCH_UP=none, or past what `latest` runs
 * after a long outage, it is closed `aborted` as before. RETAKES bounds how often one slot is taken over, so
 * a pass that kills its own process cannot crash-loop the fleet. It defaults to the net's RETRIES: a retake
 * is one more attempt of the slot, and a retaken pass gets the retries left (RETRIES less the retakes so
 * far). So by default (RETRIES 0) nothing runs twice: a holder that stalled past its term rather than died
 * may still finish the cut-off pass after the successor ran it again — the lease's own exception
 * (lease/run.ts) — which a net that asked for retries accepts, and one that did not never meets. Why:
 * docs/decisions/0004-run-a-cut-off-pass-again-only-for-nets-that-retry.md.
 *
 * What it is not: a retry of a failed pass (RETRIES, pass-attempts.ts, within one term), nor of a manual run
 * (its instant is no slot of the schedule, so the plan never runs it: it is closed `aborted`, and an
 * operator asks again), nor mutual exclusion.
 */
import type { RunRecord } from '../runs/run-ledger.js'
import type { ServedTerm } from './served-term.js'

/** Of `runs`, those an older term claimed and left unfinished that `term` may run again (RETAKES). */
export function retakableRuns(term: ServedTerm, runs: readonly RunRecord[]): RunRecord[] {
  const { retakes, retries } = term.setting.net.attempts
  const limit = retakes ?? retries
  return runs.filter(
    (run) => run.outcome === undefined && run.fence < term.fence && !run.manual && (run.retakes ?? 0) < limit,
  )
}

/** The retake's number of each run by its slot's instant (ms): what the scheduler hands the slot pass. */
export function retakeNumbers(runs: readonly RunRecord[]): Map<number, number> {
  return new Map(runs.map((run) => [run.slot.getTime(), (run.retakes ?? 0) + 1]))
}
