/**
 * The bound of one store call a holder makes within its term (a claim, a control read, a ledger read or
 * write): a third of the net's TTL, its renewal cadence, in whole milliseconds, and the signal that
 * carries it. Written once, because `AbortSignal.timeout` throws ERR_OUT_OF_RANGE for a fraction, and
 * ttl/3 has one for most TTLs (4000 ms → 1333.33…): a call bounded so threw before it was made, and a
 * control read that fails open turned every pause into nothing (issue #36).
 *
 * Not the lease's own pacing (lease/term.ts renews every ttl/3 through the Clock, where a fraction is fine),
 * nor a retry policy: one call, one bound.
 */

/** A third of `ttlMs`, rounded up to a whole millisecond, at least 1. */
export function termCallBoundMs(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 3))
}

/**
 * A signal that aborts after `boundMs` (rounded up to a whole millisecond, at least 1) or when `term`
 * aborts, whichever comes first.
 */
export function callBoundSignal(boundMs: number, term?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(boundMs)))
  return term ? AbortSignal.any([term, timeout]) : timeout
}
