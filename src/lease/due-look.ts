/**
 * A standby's look before its work falls due (issue #39). A standby that read a holder's expiry waits for
 * that expiry (or its retry), up to a TTL. A holder that stops cleanly releases its lease at once, but the
 * standby learns of it only when it next reads, and a slot that falls due meanwhile starts that much
 * late. Given the work's next due instant (the worker passes its net's next slot), a standby also looks
 * at the lease DUE_LOOK_AHEAD_MS before it, so a lease a clean stop released is taken before the slot.
 *
 * Cost: at most one read per due instant and standby, and none for a schedule whose instants come no more
 * than twice the look-ahead apart: there the standby's own reads already come round about as often.
 *
 * What it is not: a push. A release is still seen only when a standby reads; a clean stop within the
 * look-ahead of a slot is seen at the next read, as before. A dead holder is not found any sooner: its
 * lease is free only at its expiry, which the standby waits for anyway.
 */

/** How long before a due instant a standby looks: time to read, acquire and start the term's ticks. */
export const DUE_LOOK_AHEAD_MS = 2_000

/**
 * The work's next due instant strictly after `after`, or undefined when there is none (lease.run's
 * `nextDue`). A function that throws or answers anything but a later Date is taken as "none".
 */
export type NextDue = (after: Date) => Date | undefined

/**
 * Milliseconds from `nowMs` until the standby's look before the next due instant whose look is still
 * ahead (when the next instant is nearer than the look-ahead, it has looked or is too late: the one after),
 * or undefined when there is nothing to look for: no `nextDue`, no such instant, or instants too close
 * together to be worth a read each. The look-ahead is DUE_LOOK_AHEAD_MS, or half the retry when shorter.
 */
export function untilDueLookMs(
  nextDue: NextDue | undefined,
  nowMs: number,
  retryMs: number,
): number | undefined {
  if (!nextDue) return undefined
  const aheadMs = Math.min(DUE_LOOK_AHEAD_MS, retryMs / 2)
  const due = dueAfter(nextDue, nowMs)
  if (due === undefined) return undefined
  const following = dueAfter(nextDue, due)
  if (following !== undefined && following - due <= 2 * aheadMs) return undefined
  if (due - aheadMs > nowMs) return due - aheadMs - nowMs
  // This instant's look has come (or it is too near): the next pause ends at the following one's.
  return following === undefined ? undefined : following - aheadMs - nowMs
}

/** `nextDue` after `ms`, as milliseconds, when it answers a Date later than `ms`. */
function dueAfter(nextDue: NextDue, ms: number): number | undefined {
  let answer: unknown
  try {
    answer = nextDue(new Date(ms))
  } catch {
    // A schedule that cannot say its next instant leaves the standby on its expiry, as without one.
    return undefined
  }
  const at = answer instanceof Date ? answer.getTime() : Number.NaN
  return Number.isFinite(at) && at > ms ? at : undefined
}
