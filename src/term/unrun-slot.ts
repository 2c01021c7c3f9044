/**
 * What a slot's claim came to when its pass did not run, counted and said the one way for every path
 * of a term (a tick, a catch-up, an operator's request): a slot another term claimed (`slot-taken`), a
 * claim the ledger did not answer (`claim-failed`: fail-closed, nothing ran).
 *
 * Not the debt that a claim unanswered leaves: the scheduler owes its look back (ledger-recovery.ts).
 */
import type { ServedTerm } from './served-term.js'
import type { SlotPassResult } from './slot-pass.js'

/** Counts (`leasecron_skipped_ticks_total`) and logs a slot whose pass did not run; `result` is handed on. */
export function countUnrun(term: ServedTerm, result: SlotPassResult, slot: Date): SlotPassResult {
  const { metrics } = term.setting
  const { net } = term
  if (result.kind === 'slot-taken') {
    metrics?.skippedTicks.inc({ net, reason: 'slot-taken' })
    term.log.debug(
      { slot: slot.toISOString() },
      'slot skipped: the ledger says it already ran (or runs) elsewhere',
    )
  } else if (result.kind === 'claim-failed') {
    metrics?.skippedTicks.inc({ net, reason: 'claim-failed' })
    term.log.warn(
      { slot: slot.toISOString(), err: result.error },
      'slot skipped: the run ledger did not answer the claim (fail-closed); the term looks back once it does',
    )
  }
  return result
}
