/**
 * A third of a term's TTL in whole milliseconds: the one place the lease's cadence is computed. A holder
 * renews every third of its TTL, a candidate retries every third by default, and every store call made
 * for a term (acquire, renew, a claim, a control or ledger read) is bounded by it, so a call never runs
 * past the renewal that follows it. Whole milliseconds because `AbortSignal.timeout` throws
 * ERR_OUT_OF_RANGE for a fraction, and ttl/3 has one for most TTLs (4000 ms → 1333.33…): a call bounded so
 * threw before it was made, and a control read that failed open turned every pause into nothing (#36, #38).
 *
 * Not a retry policy, and not a signal (term/term-call-bound.ts builds one from it).
 */

/** A third of `ttlMs`, rounded up to a whole millisecond, at least 1. */
export function termCallBoundMs(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 3))
}
