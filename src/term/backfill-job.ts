/**
 * A backfill request run by the net's holder (control/backfill-request.ts): each job runs ONE slot — the
 * one at the request's cursor — through the one slot path (slot-pass.ts: claimed in the run ledger under
 * this term's fence, attempts with the net's TIMEOUT and RETRIES, recorded), then moves the cursor past
 * it, and says whether the request has more for this term. One slot a job, so the net's own ticks run
 * between a backfill's slots (the scheduler buffers a tick that falls due meanwhile: term-scheduler.ts).
 *
 * Each job reads the request afresh first: a cancel, a replacement, or a pause (a paused net's backfill
 * waits for the resume, whose notice brings it back) stops it before the next slot. The cursor is the
 * store's, moved only from where it stands, so a successor after a takeover goes on from it; a slot whose
 * holder died in its pass has a claim, so the successor's claim of it answers `slot-taken`, and the ledger
 * still decides that no slot runs twice. A claim the ledger did not answer moves nothing: the next poll
 * runs the same slot again.
 *
 * What it is not: the queue (control-requests.ts) or `leasecron backfill` without a holder (backfill.ts).
 */
import type { BackfillSlotEnd, BackfillStatus } from '../control/backfill-request.js'
import { maxRunsReached } from './one-slot.js'
import type { ServedTerm } from './served-term.js'
import { runSlotPass, type SlotPassResult } from './slot-pass.js'
import type { BackfillStep } from './term-steps.js'
import { countUnrun } from './unrun-slot.js'

/** A term's runner of backfill requests; it keeps the request's slot list once read. */
export class BackfillJobs {
  readonly #term: ServedTerm
  readonly #step: BackfillStep
  #slots: { id: string; slots: Date[] } | undefined

  constructor(term: ServedTerm, step: BackfillStep) {
    this.#term = term
    this.#step = step
  }

  /** Runs the slot at the cursor of the net's request `id`; resolves whether more remain for this term. Never rejects. */
  async runNext(id: string, abort: AbortSignal): Promise<boolean> {
    const term = this.#term
    const control = await this.#step.current()
    const request = control?.backfill
    // Ended, cancelled, replaced or unread: nothing to run (a new request comes with the next poll).
    if (!term.going() || request?.id !== id || request.cancelled || request.done >= request.total)
      return false
    if (control?.paused) {
      term.log.debug({ backfill: id }, 'backfill waits: the net is paused (it goes on once resumed)')
      return false
    }
    const slot = (await this.#slotsOf(id))?.[request.done]
    if (!slot) return false
    if (request.done === 0) started(term, request)
    const result = await term.withPass(slot, { jobAbort: abort, reason: 'backfill' }, runSlotPass)
    countUnrun(term, result, slot)
    if (result.kind === 'finished') {
      await this.#step.end(id, maxRunsReached(result.maxRuns))
      term.log.info({ backfill: id }, 'backfill ended: the net ran its MAX_RUNS')
      return false
    }
    const end = slotEnd(result)
    // Unanswered claim: the next poll runs it again. An ended term: the successor moves the cursor.
    if (end === undefined || !term.working()) return false
    const after = await this.#step.advance(id, request.done, end)
    if (after) progressed(term, after, slot, end)
    // A cancel shows at the next job's read (the request is read afresh before each slot).
    return after !== undefined && after.done < after.total && term.going()
  }

  async #slotsOf(id: string): Promise<Date[] | undefined> {
    if (this.#slots?.id === id) return this.#slots.slots
    const slots = await this.#step.slots(id)
    if (slots) this.#slots = { id, slots }
    return slots
  }
}

/** How a slot's pass counts in the request; undefined for a claim the ledger did not answer. */
function slotEnd(result: Exclude<SlotPassResult, { kind: 'finished' }>): BackfillSlotEnd | undefined {
  if (result.kind === 'slot-taken') return 'taken'
  if (result.kind === 'claim-failed') return undefined
  return result.outcome === 'ok' ? 'ok' : result.outcome === 'aborted' ? 'aborted' : 'failed'
}

function started(term: ServedTerm, request: BackfillStatus): void {
  const { id, by, reason, total } = request
  term.termLog.info(
    { backfill: id, by, reason, total, from: request.from.toISOString(), to: request.to.toISOString() },
    `backfill requested: running ${total} slot${total === 1 ? '' : 's'}, oldest first, between the net’s passes`,
  )
}

/** One line a slot (`backfill_slot`), and one when the request ends. */
function progressed(term: ServedTerm, after: BackfillStatus, slot: Date, end: BackfillSlotEnd): void {
  const fields = { backfill: after.id, slot: slot.toISOString(), end, done: after.done, total: after.total }
  term.termLog.info(fields, `backfill [${after.done}/${after.total}] ${slot.toISOString()} ${end}`)
  if (after.cancelled)
    term.termLog.info(
      { backfill: after.id, cancelledBy: after.cancelled.by, done: after.done, total: after.total },
      `backfill cancelled: ${after.done} of ${after.total} slots had their turn`,
    )
  else if (after.done >= after.total)
    term.termLog.info(
      { backfill: after.id, counts: after.counts, total: after.total },
      `backfill done: ${after.total} slots, ${after.counts.failed} failed`,
    )
}
