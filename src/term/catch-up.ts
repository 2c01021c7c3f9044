/**
 * The catch-up a term makes at its election: it reads the net's newest runs from the ledger, plans
 * (catch-up-plan.ts: by CATCH_UP, CATCH_UP_WINDOW and CATCH_UP_MAX), records each slot the plan lets go
 * `missed`, then runs the planned slots oldest first, one at a time, each through the slot pass (claimed,
 * attempted, recorded). It logs one line: how many it ran and recorded missed.
 *
 * It stops when the term ends or passes its step-down instant, before the next write or pass: what it
 * leaves is still unrecorded, so the successor's election plans it again, and every slot is still run or
 * recorded once (the ledger's claim and account each insert only where no record is).
 *
 * A holder also makes it within its term (`occasion: 'recovery'`) once the ledger answers again after it
 * did not answer a claim (ledger-recovery.ts), so a slot lost to a store outage shorter than the TTL is run
 * late or recorded `missed` by the same plan, never silently dropped.
 *
 * What it is not: the tick loop (scheduler.ts runs it as the term's first piece of work, ticks arriving
 * meanwhile follow the net's OVERLAP), nor the coordinator's (node-cron decides its own fires there).
 */
import { MAX_CATCH_UP_SLOTS } from '../config/net-section.js'
import type { NetConfig } from '../config/worker-config.js'
import type { Clock } from '../lease/clock.js'
import { historyUntil, type RunLedger, type RunRecord } from '../runs/run-ledger.js'
import { closeUnfinished } from './close-unfinished.js'
import { type CatchUpOccasion, type CatchUpPlan, type MissedSlot, planCatchUp } from './catch-up-plan.js'
import type { Logger } from '../observe/logger.js'
import type { LostRecord } from './ledger-recovery.js'
import type { SlotPassResult } from './slot-pass.js'
import { callBoundSignal } from './term-call-bound.js'

export interface CatchUpSpec {
  net: NetConfig
  ledger: RunLedger
  owner: string
  fence: number
  clock: Clock
  /**
   * The election's instant: the ticks serve the slots after it, the catch-up those at or before it. For a
   * recovery, the instant the holder looks back from.
   */
  now: Date
  /** At the term's election (the default), or within it after the run ledger did not answer (recovery). */
  occasion?: CatchUpOccasion
  /**
   * A recovery's slots this term got no answer for: a claim (closed `aborted` if it landed) or an end
   * (recorded now).
   */
  lost?: readonly LostRecord[]
  /** Runs kept per net (LEASECRON_RUN_HISTORY): the catch-up looks back over no more slots than that. */
  runHistory: number
  /** The term's signal: ends the catch-up, and bounds each ledger call with `boundMs`. */
  term: AbortSignal
  live(): boolean
  boundMs: number
  /**
   * Runs one slot through the slot pass and resolves when its end is recorded; undefined when the net's
   * controls let it go instead (a paused net: recorded `paused`).
   */
  runSlot(slot: Date): Promise<SlotPassResult | undefined>
  log: Logger
}

/** What the catch-up came to, as its line logs it. */
export interface CatchUpSummary {
  ran: number
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

/** Reads, plans, records and runs; see the module's doc. Never rejects. */
export async function catchUp(spec: CatchUpSpec): Promise<CatchUpSummary> {
  const lookback = Math.min(MAX_CATCH_UP_SLOTS, spec.runHistory)
  const recorded = await readRecorded(spec, lookback)
  const { net } = spec
  const plan = planCatchUp({
    schedule: net.schedule,
    timeZone: net.timeZone,
    now: spec.now,
    policy: net.catchUp,
    windowMs: net.catchUpWindowMs,
    max: net.catchUpMax,
    recorded: recorded?.slots,
    lookback,
    ...(spec.occasion ? { occasion: spec.occasion } : {}),
  })
  const accounted = await recordMissed(spec, plan.missed)
  const runs = await runPlanned(spec, plan.run)
  const left = runs.left + accounted.left
  const answered = recorded !== undefined
  const unsettled = recorded?.unsettled ?? []
  const summary = { ...runs, missed: accounted.inserted, left, answered, unsettled }
  logSummary(spec, plan, summary)
  return summary
}

/**
 * The slots of the net's newest `lookback` runs; undefined when the ledger did not answer. Runs an older
 * term claimed and never finished are closed `aborted` on the way (closeUnfinished).
 */
async function readRecorded(
  spec: CatchUpSpec,
  lookback: number,
): Promise<{ slots: Date[]; unsettled: LostRecord[] } | undefined> {
  try {
    // Runs dated past now (a record written by hand for 2030) would fill the look back and hide the slots
    // this catch-up must account: only slots a worker's clock could have written are read.
    const until = historyUntil(spec.now)
    const runs = await spec.ledger.history(spec.net.definition.name, lookback, { signal: bound(spec), until })
    const unsettled = await closeLostClaims(spec, runs)
    await closeUnfinished(
      {
        ...{ ledger: spec.ledger, fence: spec.fence, log: spec.log },
        ...{ now: () => spec.clock.now(), signal: () => bound(spec), going: () => going(spec) },
      },
      runs,
    )
    return { slots: runs.map((run) => run.slot), unsettled }
  } catch (error) {
    spec.log.warn(
      { err: error },
      'catch-up: the run ledger did not answer: no slot is recorded missed, the newest due slot’s claim decides',
    )
    return undefined
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
async function closeLostClaims(spec: CatchUpSpec, runs: readonly RunRecord[]): Promise<LostRecord[]> {
  const lost = new Map((spec.lost ?? []).map((record) => [record.slot.getTime(), record]))
  // A lost slot without a record yet stays unsettled: a claim still on its way may land after this read.
  const unsettled = new Map(lost)
  for (const run of runs) {
    const record = lost.get(run.slot.getTime())
    if (!record || run.manual) continue
    unsettled.delete(run.slot.getTime())
    if (run.outcome !== undefined || run.fence !== spec.fence || run.owner !== spec.owner) continue
    if (!going(spec)) break
    // A lost end is the pass's own; a lost claim's pass never started.
    const finish = record.end ?? {
      finishedAt: spec.clock.now(),
      outcome: 'aborted' as const,
      error: LOST_CLAIM,
      attempts: 0,
    }
    if (await spec.ledger.finish(run.net, run.slot, spec.owner, spec.fence, finish, { signal: bound(spec) }))
      spec.log.warn(
        { slot: run.slot.toISOString(), outcome: finish.outcome },
        record.end
          ? 'recorded a pass’s end the ledger did not answer before'
          : `recorded aborted: ${LOST_CLAIM}`,
      )
  }
  return [...unsettled.values()]
}

/** Records each slot `missed` until the term ends: how many this term inserted, how many it left. */
async function recordMissed(spec: CatchUpSpec, slots: readonly MissedSlot[]) {
  let inserted = 0
  for (const [index, { slot, reason }] of slots.entries()) {
    if (!going(spec)) return { inserted, left: slots.length - index }
    const at = spec.clock.now()
    const entry = { net: spec.net.definition.name, slot, owner: spec.owner, fence: spec.fence, at, reason }
    try {
      if (await spec.ledger.account({ ...entry, outcome: 'missed' }, { signal: bound(spec) })) inserted++
    } catch (error) {
      // The ledger stopped answering: the rest stays unrecorded for the next election to account.
      spec.log.warn({ err: error, slot: slot.toISOString() }, 'catch-up: could not record a missed slot')
      return { inserted, left: slots.length - index }
    }
  }
  return { inserted, left: 0 }
}

/** Runs the planned slots oldest first, one at a time, until the term ends or passes its step-down. */
async function runPlanned(spec: CatchUpSpec, slots: readonly Date[]) {
  const counts = { ran: 0, taken: 0, left: 0 }
  for (const [index, slot] of slots.entries()) {
    if (!going(spec)) {
      counts.left = slots.length - index
      break
    }
    const result = await spec.runSlot(slot)
    if (result?.kind === 'ran') counts.ran++
    else if (result?.kind === 'slot-taken') counts.taken++
  }
  return counts
}

function logSummary(spec: CatchUpSpec, plan: CatchUpPlan, summary: CatchUpSummary): void {
  const fields = {
    catchUp: spec.net.catchUp,
    ...(spec.occasion === 'recovery'
      ? { recoveredAt: spec.now.toISOString() }
      : { electedAt: spec.now.toISOString() }),
    ...summary,
    ...(plan.floor ? { floor: plan.floor.toISOString() } : { newNet: true }),
    ...(plan.lookbackExhausted ? { lookbackExhausted: true } : {}),
  }
  const left = summary.left > 0 ? `, ${summary.left} left for the next holder` : ''
  const what = spec.occasion === 'recovery' ? 'catch-up after the run ledger answered again' : 'catch-up'
  spec.log.info(fields, `${what}: ran ${summary.ran}, missed ${summary.missed}${left}`)
}

/** Whether the term may still write and run: not ended, not past its step-down instant. */
function going(spec: CatchUpSpec): boolean {
  return !spec.term.aborted && spec.live()
}

function bound(spec: CatchUpSpec): AbortSignal {
  return callBoundSignal(spec.boundMs, spec.term)
}
