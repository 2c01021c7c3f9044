/**
 * The catch-up plan: which of a net's due slots a new term runs at its election and which it records
 * `missed`, from the schedule, the present instant, the net's CATCH_UP policy and what the run ledger holds.
 * Pure (the schedule's slots come from schedule.ts, by its DST rule); catch-up.ts reads the ledger and
 * applies the plan.
 *
 * The slots looked at are the schedule's slots at or before `now` that are newer than the net's oldest
 * record the ledger returned (the floor; records after `now` are not counted), the newest `lookback` of
 * them at most. Only those without a record
 * are planned: a slot with any record (a run, `skipped`, `missed`, `paused`, a claim in flight) is left as
 * it is, so planning again right after plans nothing — except a pass an older term's holder left unfinished,
 * which the caller names `retakable` (retake.ts): it is planned as if unrecorded, so it runs again by the
 * same policy as a slot of the gap its holder's end left. A net the ledger holds nothing of has no floor: it is
 * new (or its ledger was emptied), and recording its whole past `missed` would say nothing true, so its plan
 * records nothing and runs at most the newest due slot.
 *
 * Under `latest` (the default), an election after a takeover runs every slot of the gap the takeover left,
 * oldest first: when all the unrecorded slots fell due within the takeover's bound (TTL + two retries), the
 * holder died or stepped down and a successor took over, and a minute schedule would otherwise lose the
 * slots that fell due meanwhile. An outage longer than that (a fleet down overnight) runs the newest only.
 *
 * The same plan serves a holder within its term once the run ledger answers again after it did not answer
 * a claim (`occasion: 'recovery'`): the slot it could not claim is then run late or recorded `missed`.
 *
 * What it is not: the one who runs or records anything, or a judge of whether a slot's record is right.
 */
import { formatDuration } from '../durations.js'
import type { CatchUpPolicy } from '../nets/net.js'
import { type Schedule, slotAtOrBefore, slotsAtOrBefore } from '../schedule/schedule.js'

export interface CatchUpInput {
  schedule: Schedule
  timeZone: string
  /** The election's instant: slots at or before it are due. */
  now: Date
  policy: CatchUpPolicy
  /** How old a slot may be (now − slot) and still run under `all`. */
  windowMs: number
  /** The most slots run under `all`, and of a takeover's gap under `latest`. */
  max: number
  /**
   * The longest a takeover leaves the net unheld (takeoverGapMs: TTL + two retries). Under `latest`, an
   * election whose unrecorded slots all fell due within it is a takeover: its gap's slots all run, oldest
   * first (at most `max`). Absent: `latest` runs the newest due slot only.
   */
  takeoverMs?: number
  /**
   * The slots of the net's newest runs as the ledger returned them (any order, at most `lookback` of them);
   * `undefined` when the ledger did not answer: nothing is recorded then, and the newest due slot's claim
   * decides as at any tick.
   */
  recorded: readonly Date[] | undefined
  /**
   * Of `recorded`, the slots whose record is a pass an older term's holder left unfinished and may run
   * again (retake.ts): they set the floor like any record, but are planned as if unrecorded — run, or let
   * go (the caller closes them `aborted` then, never `missed`).
   */
  retakable?: readonly Date[]
  /** The most scheduled slots looked at, newest first (a bound on the walk and on the ledger writes). */
  lookback: number
  /** The net's START_AT and END_AT: a slot outside them is neither run nor recorded (config/net-window.ts). */
  startAt?: Date | undefined
  endAt?: Date | undefined
  /**
   * Why the plan is made: at a term's election (the default), or within a term once the run ledger answers
   * again after it did not answer a claim (`recovery`). Only the reasons recorded differ.
   */
  occasion?: CatchUpOccasion
}

/** When a catch-up is planned: at an election, or after the run ledger did not answer within a term. */
export type CatchUpOccasion = 'election' | 'recovery'

/** A slot the plan records `missed`, and why (the record's reason, for the operator). */
export interface MissedSlot {
  slot: Date
  reason: string
}

export interface CatchUpPlan {
  /** The slots to run, oldest first. */
  run: Date[]
  /** The slots to record `missed`, newest first. */
  missed: MissedSlot[]
  /** The oldest record the ledger returned: no slot at or before it was looked at. Absent for a new net. */
  floor?: Date
  /** Slots between the floor and the oldest slot looked at were left unaccounted: the lookback ran out. */
  lookbackExhausted: boolean
}

/** Plans the election's catch-up; see the module's doc. Throws only what schedule.ts throws (a bad schedule). */
export function planCatchUp(input: CatchUpInput): CatchUpPlan {
  const endAt = input.endAt?.getTime()
  const due = endAt !== undefined && endAt < input.now.getTime() ? input.endAt! : input.now
  const newest = slotAtOrBefore(input.schedule, due, input.timeZone)
  if (input.startAt && newest.getTime() < input.startAt.getTime())
    return { run: [], missed: [], lookbackExhausted: false }
  // A record of a slot after the election (a replica whose clock runs ahead claimed it) says nothing of the past.
  const recorded = input.recorded?.filter((slot) => slot.getTime() <= input.now.getTime())
  if (recorded === undefined || recorded.length === 0) return firstPlan(input, newest)
  const floor = new Date(Math.min(...recorded.map((slot) => slot.getTime())))
  const retakable = new Set(input.retakable?.map((slot) => slot.getTime()))
  const held = recorded.filter((slot) => !retakable.has(slot.getTime()))
  // A retakable floor is looked at itself: the walk stops before its slot only when that slot is held.
  const walkFloor = retakable.has(floor.getTime()) ? new Date(floor.getTime() - 1) : floor
  const { unrecorded, exhausted } = unrecordedSlots(input, newest, walkFloor, held)
  return { ...decide(input, newest, unrecorded, exhausted), floor, lookbackExhausted: exhausted }
}

/** Without a floor: nothing recorded; `latest` runs the newest due slot, `all` too within its window. */
function firstPlan(input: CatchUpInput, newest: Date): CatchUpPlan {
  const runs =
    input.policy === 'latest' || (input.policy === 'all' && inWindow(input, newest)) ? [newest] : []
  return { run: runs, missed: [], lookbackExhausted: false }
}

/**
 * The schedule's slots from `newest` back to (not including) `floor` that have no record, newest first:
 * at most `lookback` slots are looked at, recorded or not.
 */
function unrecordedSlots(
  input: CatchUpInput,
  newest: Date,
  floor: Date,
  recorded: readonly Date[],
): { unrecorded: Date[]; exhausted: boolean } {
  const held = new Set(recorded.map((slot) => slot.getTime()))
  const unrecorded: Date[] = []
  let looked = 0
  for (const slot of slotsAtOrBefore(input.schedule, newest, input.timeZone)) {
    if (slot.getTime() <= floor.getTime()) return { unrecorded, exhausted: false }
    if (input.startAt && slot.getTime() < input.startAt.getTime()) return { unrecorded, exhausted: false }
    if (looked++ >= input.lookback) return { unrecorded, exhausted: true }
    if (!held.has(slot.getTime())) unrecorded.push(slot)
  }
  // slotsAtOrBefore never ends; the loop returns from within.
  return { unrecorded, exhausted: true }
}

/** Splits the unrecorded slots (newest first) into runs and misses by the policy. */
function decide(
  input: CatchUpInput,
  newest: Date,
  unrecorded: Date[],
  exhausted: boolean,
): Pick<CatchUpPlan, 'run' | 'missed'> {
  const missed = (slots: Date[], reason: string) => slots.map((slot) => ({ slot, reason }))
  const recovery = input.occasion === 'recovery'
  if (input.policy === 'none')
    return {
      run: [],
      missed: missed(
        unrecorded,
        recovery
          ? 'CATCH_UP=none: a slot whose claim the run ledger did not answer never runs late'
          : 'CATCH_UP=none: a slot that fell due while no replica ran the net never runs',
      ),
    }
  // A lookback that ran out saw only part of the gap: older slots are unrecorded too, so no takeover's.
  if (input.policy === 'latest' && !recovery && !exhausted && takeoverGap(input, unrecorded)) {
    const { max } = input
    return {
      run: unrecorded.slice(0, max).reverse(),
      missed: missed(unrecorded.slice(max), `over the catch-up cap of ${max} slots (CATCH_UP_MAX)`),
    }
  }
  if (input.policy === 'latest') {
    const runsNewest = unrecorded[0]?.getTime() === newest.getTime()
    return {
      run: runsNewest ? [newest] : [],
      missed: missed(
        runsNewest ? unrecorded.slice(1) : unrecorded,
        recovery
          ? 'CATCH_UP=latest: the run ledger did not answer its claim, and a newer slot fell due before it answered again'
          : 'CATCH_UP=latest: only the newest due slot runs after an outage longer than a takeover',
      ),
    }
  }
  const within = unrecorded.filter((slot) => inWindow(input, slot))
  const window = formatDuration(input.windowMs)
  return {
    run: within.slice(0, input.max).reverse(),
    missed: [
      ...missed(within.slice(input.max), `over the catch-up cap of ${input.max} slots (CATCH_UP_MAX)`),
      ...missed(
        unrecorded.slice(within.length),
        `outside the catch-up window of ${window} (CATCH_UP_WINDOW)`,
      ),
    ],
  }
}

/**
 * Whether every unrecorded slot fell due within a takeover's bound of the election: the gap a holder's death
 * (or a clean hand-over) left, which `latest` runs whole — a fleet down for longer gets the newest slot only.
 * A retakable slot (a pass cut off with its holder) does not count against it: it runs with its gap.
 */
function takeoverGap(input: CatchUpInput, unrecorded: readonly Date[]): boolean {
  if (input.takeoverMs === undefined) return false
  // A cut-off pass's slot is as old as its pass was long: its holder's end, not its instant, is the takeover's.
  const retakable = new Set(input.retakable?.map((slot) => slot.getTime()))
  const oldest = unrecorded.filter((slot) => !retakable.has(slot.getTime())).at(-1)
  if (oldest === undefined) return unrecorded.length > 0
  return input.now.getTime() - oldest.getTime() <= input.takeoverMs
}

/** Whether `slot` is at most the window old at the election (a slot exactly that old still runs). */
function inWindow(input: CatchUpInput, slot: Date): boolean {
  return input.now.getTime() - slot.getTime() <= input.windowMs
}
