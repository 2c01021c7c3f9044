/**
 * A schedule's slots within a range of instants, in the net's zone: every slot in [from, to], oldest
 * first, as UTC instants. Walked with nextFireTime — the function that times the scheduler's ticks, the
 * DST rule of schedule.ts included — so a listed range is exactly what a worker running through it would
 * have fired: `leasecron backfill` runs these slots, and `backfill --dry-run` shows them.
 *
 * Not a scheduler and not a store: it fires nothing and knows nothing of the ledger.
 */
import { nextFireTime, type Schedule } from './schedule.js'

/** The slots found, and whether the range holds more than the `max` asked for (then `slots` has `max`). */
export interface SlotRange {
  slots: Date[]
  more: boolean
}

/**
 * The slots of `schedule` (valid: checked by checkSchedule) read in `timeZone` from `from` to `to`, both
 * inclusive, at most `max` of them (each costs a fraction of a millisecond: the bound keeps a range of
 * years of a per-second schedule from walking for hours). Throws schedule.ts's error for an expression
 * that never fires.
 */
export function slotsBetween(
  schedule: Schedule,
  from: Date,
  to: Date,
  timeZone: string,
  max: number,
): SlotRange {
  const slots: Date[] = []
  const end = to.getTime()
  // The first slot at or after `from`: slots are whole seconds, so one strictly after the instant before it.
  for (let slot = nextFireTime(schedule, new Date(from.getTime() - 1), timeZone); slot.getTime() <= end; ) {
    if (slots.length >= max) return { slots, more: true }
    slots.push(slot)
    slot = nextFireTime(schedule, slot, timeZone)
  }
  return { slots, more: false }
}
