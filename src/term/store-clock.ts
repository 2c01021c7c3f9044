/**
 * The clock a term's ticks keep: this replica's own, less its measured offset to the store's server
 * (share/clock-guard.ts), so every replica starts a slot at the same instant — the server's — and one whose
 * clock runs ahead does not start a slot before its time (a daily report at 00:00 that ran at 23:59:55
 * would read the wrong day). It shifts by the offset as measured; the guard elects no replica whose offset
 * exceeds ttl/6 (5 s at the default TTL), so that is the most a new term's ticks move.
 *
 * What it is not: a clock discipline for the rest of the term. Its timers, deadlines and the instants it
 * writes (a run's start and end) stay on the replica's own clock; only which slot is due, and when, follows
 * the server's.
 */
import type { Clock } from '../lease/clock.js'

/**
 * `clock` with `now()` moved back by `offsetMs()` (this replica's wall clock minus the server's, read at
 * each call); `clock` itself when there is no offset to follow.
 */
export function storeClock(clock: Clock, offsetMs: (() => number) | undefined): Clock {
  if (offsetMs === undefined) return clock
  return {
    now: () => new Date(clock.now().getTime() - offsetMs()),
    monotonic: () => clock.monotonic(),
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    clearTimeout: (handle) => clock.clearTimeout(handle),
  }
}
