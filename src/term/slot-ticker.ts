/**
 * A term's ticks: one timer at a time, set for the schedule's next slot in the net's zone (nextFireTime);
 * when it fires, the slot served is slotAtOrBefore(now), and the next timer is set. The DST rule of
 * schedule.ts therefore decides both when a pass starts and which slot it claims.
 *
 * Why not node-cron's own ticks (it still validates schedules): probed under fake timers on real change
 * days, node-cron 4.6 in Europe/Berlin never fires `30 2 * * *` on the spring day, fires it in autumn at the
 * second 02:30 (an hour after the first), and skips the first 02:00–02:59 of a quarter-hourly schedule
 * and of `0 * * * *` altogether; on Lord Howe Island it skips the first 01:30–01:59. Deriving the slot from its
 * tick would still lose the spring slot (no tick comes that day), so the timer is the rule's own.
 *
 * With an offset (a per-installation net's spread, slot-spread.ts) each tick comes `offsetMs` after its
 * slot and serves the newest slot whose spread instant has passed; the slots themselves do not move.
 *
 * What it is not: a catch-up. A timer that fires late (a blocked event loop, a suspended host) serves the
 * latest slot due, as a tick would; the ledger claim refuses a slot already served (`slot-taken`).
 */
import { type Clock, MAX_TIMER_MS, type TimerHandle } from '../lease/clock.js'
import { nextFireTime, slotAtOrBefore } from '../schedule/schedule.js'

export interface SlotTickerOptions {
  schedule: string
  timeZone: string
  clock: Clock
  /** How long after each slot its tick comes (ms, below the gap to the next slot's tick); 0 by default. */
  offsetMs?: number
  /** Called for each tick with the slot it serves. */
  onSlot(slot: Date): void
}

export interface SlotTicker {
  /** Clears the pending timer; no tick follows. */
  stop(): void
}

/** Starts ticking from the clock's present instant: the first tick is the schedule's next slot. */
export function startSlotTicker(options: SlotTickerOptions): SlotTicker {
  const { schedule, timeZone, clock } = options
  const offset = options.offsetMs ?? 0
  let timer: TimerHandle | undefined
  let stopped = false
  const arm = (due: Date) => {
    // Node's timers cannot wait past MAX_TIMER_MS: a longer wait wakes early and re-arms for the same slot.
    const delay = Math.min(Math.max(0, due.getTime() - clock.now().getTime()), MAX_TIMER_MS)
    timer = clock.setTimeout(() => fire(due), delay)
  }
  const fire = (due: Date) => {
    timer = undefined
    if (stopped) return
    const now = clock.now()
    // Woken before the slot (a long wait cut short, or a wall clock set back): wait on for it.
    if (now.getTime() < due.getTime()) return arm(due)
    // The slot whose tick this is: the newest whose spread instant (slot + offset) has passed.
    const ofSlots = new Date(now.getTime() - offset)
    options.onSlot(slotAtOrBefore(schedule, ofSlots, timeZone))
    if (!stopped) arm(spread(nextFireTime(schedule, ofSlots, timeZone)))
  }
  const spread = (slot: Date) => new Date(slot.getTime() + offset)
  // The first tick is for the first slot after now: the term's catch-up serves the ones at or before it.
  arm(spread(nextFireTime(schedule, clock.now(), timeZone)))
  return {
    stop() {
      stopped = true
      if (timer !== undefined) clock.clearTimeout(timer)
      timer = undefined
    },
  }
}
