/**
 * The catch-up a term makes at its election: it reads the net's newest runs from the ledger, plans
 * (catch-up-plan.ts: by CATCH_UP, CATCH_UP_WINDOW and CATCH_UP_MAX) and records each slot the plan lets go
 * `missed`; the scheduler then runs the planned slots oldest first, one at a time, each through the slot
 * pass (claimed, attempted, recorded), and ends the round: one line, how many it ran and recorded missed.
 * A pass an older term's holder left unfinished is planned as a slot to run again (retake.ts) or, when the
 * plan lets it go, closed `aborted` (close-unfinished.ts).
 *
 * It stops when the term ends or passes its step-down instant, before the next write or pass: what it
 * leaves is still unrecorded, so the successor's election plans it again, and every slot is still run or
 * recorded once (the ledger's claim and account each insert only where no record is).
 *
 * A holder also makes it within its term (`occasion: 'recovery'`) once the ledger answers again after it
 * did not answer a claim (ledger-recovery.ts), so a slot lost to a store outage shorter than the TTL is run
 * late or recorded `missed` by the same plan, never silently dropped.
 *
 * What it is not: the tick loop (term-scheduler.ts runs it as the term's first piece of work, ticks arriving
 * meanwhile follow the net's OVERLAP), nor the coordinator's (node-cron decides its own fires there).
 */
import { MAX_CATCH_UP_SLOTS } from '../config/net-section.js'
import { historyUntil, type RunRecord } from '../runs/run-ledger.js'
import { closeUnfinished } from './close-unfinished.js'
import { type CatchUpPlan, type MissedSlot, planCatchUp } from './catch-up-plan.js'
import { retakableRuns, retakeNumbers } from './retake.js'
import type { ServedTerm } from './served-term.js'
import type { CatchUpRound, CatchUpStep, LookBack, LostRecord } from './term-steps.js'
import { scheduleOf } from '../schedule/schedule.js'

/** What the catch-up came to, as its line logs it. */
export interface CatchUpSummary {
  ran: number
  /** Planned slots whose pass an older term's holder left unfinished, taken over to run again (retake.ts). */
  retaken: number
  /** Slots it recorded `missed` (a slot that had a record by then is not counted). */
  missed: number
  /** Planned slots another term had claimed by the time this one came to them. */
  taken: number
  /**
   * Planned slots left unrun and unrecorded because the term ended or the ledger stopped answering: the
   * successor's catch-up (or this term's recovery) has them.
   */
  left: number
  /** Whether the ledger answered the read of the net's runs: if not, nothing older was accounted. */
  answered: boolean
  /** Of a recovery's `lost` slots, those the read found no record of: a later look back checks them again. */
  unsettled: LostRecord[]
}

/** The plan of a net that ran its MAX_RUNS: no slot run, none recorded `missed` (runs/run-cap.ts). */
const NOTHING: CatchUpPlan = { run: [], missed: [], lookbackExhausted: false }

/** Whether the net ran its MAX_RUNS slots, as the term's read counts them: it is finished. */
function finished(term: ServedTerm): boolean {
  const { maxRuns } = term.setting.net
  return maxRuns !== undefined && term.runs.runsCounted(term.net) >= maxRuns
}

/** A term's catch-up step (term-steps.ts): reads, plans and records; the scheduler runs the planned slots. */
export class TermCatchUp implements CatchUpStep {
  readonly #term: ServedTerm

  constructor(term: ServedTerm) {
    this.#term = term
  }

  /** Reads, plans, records the slots let go `missed`; see the module's doc. Never rejects. */
  async plan(at: LookBack): Promise<CatchUpRound> {
    const { net, runHistory } = this.#term.setting
    const lookback = Math.min(MAX_CATCH_UP_SLOTS, runHistory)
    const recorded = await readRecorded(this.#term, at, lookback)
    const cutOff = recorded ? retakableRuns(this.#term, recorded.runs) : []
    const plan = finished(this.#term)
      ? NOTHING
      : planCatchUp({
          schedule: scheduleOf(net),
          timeZone: net.timeZone,
          startAt: net.startAt,
          endAt: net.endAt,
          now: at.now,
          policy: net.catchUp,
          windowMs: net.catchUpWindowMs,
          max: net.catchUpMax,
          takeoverMs: takeoverGapMs(net.pacing),
          recorded: recorded?.runs.map((run) => run.slot),
          retakable: cutOff.map((run) => run.slot),
          lookback,
          occasion: at.occasion,
        })
    const planned = new Set(plan.run.map((slot) => slot.getTime()))
    const retaken = cutOff.filter((run) => planned.has(run.slot.getTime()))
    if (recorded) await closeLeftUnfinished(this.#term, recorded.runs, retaken)
    // A cut-off slot the plan lets go has its record: `account` leaves it, and it was closed `aborted` above.
    const accounted = await recordMissed(this.#term, plan.missed)
    return {
      run: plan.run,
      retakes: retakeNumbers(retaken),
      end: (runs) => {
        const answered = recorded !== undefined
        const unsettled = recorded?.unsettled ?? []
        const summary = {
          ...runs,
          retaken: retaken.length,
          missed: accounted.inserted,
          left: runs.left + accounted.left,
          answered,
          unsettled,
        }
        logSummary(this.#term, at, plan, summary)
        return { settled: answered && summary.left === 0, unsettled }
      },
    }
  }
}

/**
 * The net's newest `lookback` runs; undefined when the ledger did not answer. This term's own lost claims
 * and ends are settled on the way (closeLostClaims).
 */
async function readRecorded(
  term: ServedTerm,
  at: LookBack,
  lookback: number,
): Promise<{ runs: RunRecord[]; unsettled: LostRecord[] } | undefined> {
  const { ledger } = term.setting
  try {
    // Runs dated past now (a record written by hand for 2030) would fill the look back and hide the slots
    // this catch-up must account: only slots a worker's clock could have written are read.
    const until = historyUntil(at.now)
    const runs = await ledger.history(term.net, lookback, { signal: term.callSignal(), until })
    const unsettled = await closeLostClaims(term, at.lost, runs)
    return { runs, unsettled }
  } catch (error) {
    term.termLog.warn(
      { err: error },
      'catch-up: the run ledger did not answer: no slot is recorded missed, the newest due slot’s claim decides',
    )
    return undefined
  }
}

/**
 * Closes `aborted` the runs an older term claimed and never finished (closeUnfinished), but those this
 * term runs again (`retaken`). A ledger that stops answering leaves the rest to the term's passes.
 */
async function closeLeftUnfinished(
  term: ServedTerm,
  runs: readonly RunRecord[],
  retaken: readonly RunRecord[],
): Promise<void> {
  const { ledger, clock } = term.setting
  const spec = {
    ...{ ledger, fence: term.fence, log: term.termLog },
    ...{ now: () => clock.now(), signal: () => term.callSignal(), going: () => term.working() },
  }
  try {
    await closeUnfinished(
      spec,
      runs.filter((run) => !retaken.includes(run)),
    )
  } catch (error) {
    term.termLog.warn(
      { err: error },
      'catch-up: could not close an older term’s unfinished run; the term’s passes close it',
    )
  }
}

const LOST_CLAIM =
  'the run ledger did not answer this holder’s claim in time, and the claim landed later: the pass never started'

/**
 * The slots this term got no answer for (`lost`) whose records still have no end: a claim that landed after
 * the holder stopped waiting is recorded `aborted` with the reason (its pass never started); a pass or skip
 * whose end went unanswered gets that end now (the ledger's `finish`, as the term's own). So the slot is
 * accounted, not left "running". Rejects when the ledger stops answering: the look back is owed again.
 */
async function closeLostClaims(
  term: ServedTerm,
  lostRecords: readonly LostRecord[],
  runs: readonly RunRecord[],
): Promise<LostRecord[]> {
  const { ledger, owner, clock } = term.setting
  const lost = new Map(lostRecords.map((record) => [record.slot.getTime(), record]))
  // A lost slot without a record yet stays unsettled: a claim still on its way may land after this read.
  const unsettled = new Map(lost)
  for (const run of runs) {
    const record = lost.get(run.slot.getTime())
    if (!record || run.manual) continue
    unsettled.delete(run.slot.getTime())
    if (run.outcome !== undefined || run.fence !== term.fence || run.owner !== owner) continue
    if (!term.working()) break
    // A lost end is the pass's own; a lost claim's pass never started.
    const finish = record.end ?? {
      finishedAt: clock.now(),
      outcome: 'aborted' as const,
      error: LOST_CLAIM,
      attempts: 0,
    }
    if (await ledger.finish(run.net, run.slot, owner, term.fence, finish, { signal: term.callSignal() }))
      term.termLog.warn(
        { slot: run.slot.toISOString(), outcome: finish.outcome },
        record.end
          ? 'recorded a pass’s end the ledger did not answer before'
          : `recorded aborted: ${LOST_CLAIM}`,
      )
  }
  return [...unsettled.values()]
}

/** Records each slot `missed` until the term ends: how many this term inserted, how many it left. */
async function recordMissed(term: ServedTerm, slots: readonly MissedSlot[]) {
  const { ledger, owner, clock } = term.setting
  let inserted = 0
  for (const [index, { slot, reason }] of slots.entries()) {
    if (!term.working()) return { inserted, left: slots.length - index }
    const entry = { net: term.net, slot, owner, fence: term.fence, at: clock.now(), reason }
    try {
      if (await ledger.account({ ...entry, outcome: 'missed' }, { signal: term.callSignal() })) inserted++
    } catch (error) {
      // The ledger stopped answering: the rest stays unrecorded for the next election to account.
      term.termLog.warn({ err: error, slot: slot.toISOString() }, 'catch-up: could not record a missed slot')
      return { inserted, left: slots.length - index }
    }
  }
  return { inserted, left: 0 }
}

function logSummary(term: ServedTerm, at: LookBack, plan: CatchUpPlan, summary: CatchUpSummary): void {
  const fields = {
    catchUp: term.setting.net.catchUp,
    ...(at.occasion === 'recovery'
      ? { recoveredAt: at.now.toISOString() }
      : { electedAt: at.now.toISOString() }),
    ...summary,
    ...(plan.floor ? { floor: plan.floor.toISOString() } : { newNet: true }),
    ...(plan.lookbackExhausted ? { lookbackExhausted: true } : {}),
  }
  const left = summary.left > 0 ? `, ${summary.left} left for the next holder` : ''
  const again =
    summary.retaken > 0 ? ` (${summary.retaken} of them cut off with their holder, run again)` : ''
  const what = at.occasion === 'recovery' ? 'catch-up after the run ledger answered again' : 'catch-up'
  term.termLog.info(fields, `${what}: ran ${summary.ran}${again}, missed ${summary.missed}${left}`)
}

/**
 * The longest a net's lease stays unheld when its holder dies: its TTL (the last renewal's expiry), then a
 * retry for a standby to try, and one more retry of margin (the acquire's round trip, a standby that had just
 * tried). Slots that fell due within it of an election are a takeover's gap.
 */
export function takeoverGapMs(pacing: { ttlMs: number; retryMs: number }): number {
  return pacing.ttlMs + 2 * pacing.retryMs
}
