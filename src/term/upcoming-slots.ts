/**
 * The slots a pass is told come next (PassContext.upcoming): the schedule's next few fire times after its
 * slot, in the net's zone by schedule.ts's DST rule, within the net's START_AT and END_AT — the slots the
 * worker would serve, computed, not read: the ledger holds no slot before it falls due.
 *
 * Not a promise that they run (a pause, an outage or OVERLAP may let one go), and not the jitter's start.
 */
import type { NetConfig } from '../config/worker-config.js'
import { nextFireTime, scheduleOf } from '../schedule/schedule.js'

/** How many upcoming slots a pass is told. */
export const UPCOMING_SLOTS = 3

/** The net's next `count` slots after `after`, oldest first; fewer when END_AT comes first. */
export function upcomingSlots(
  net: Pick<NetConfig, 'schedule' | 'dayMatch' | 'timeZone' | 'startAt' | 'endAt'>,
  after: Date,
  count = UPCOMING_SLOTS,
): Date[] {
  const schedule = scheduleOf(net)
  const slots: Date[] = []
  // Before START_AT the first is its first slot (a manual run may come before it).
  let from = net.startAt && net.startAt > after ? new Date(net.startAt.getTime() - 1) : after
  while (slots.length < count) {
    const slot = nextFireTime(schedule, from, net.timeZone)
    if (net.endAt && slot.getTime() > net.endAt.getTime()) break
    slots.push(slot)
    from = slot
  }
  return slots
}
