/**
 * The signal that carries the bound of one store call a holder makes within its term (a claim, a control
 * read, a ledger read or write); the bound itself is lease/call-bound.ts's `termCallBoundMs`.
 *
 * Not a retry policy: one call, one bound.
 */

/**
 * A signal that aborts after `boundMs` (rounded up to a whole millisecond, at least 1) or when `term`
 * aborts, whichever comes first.
 */
export function callBoundSignal(boundMs: number, term?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(boundMs)))
  return term ? AbortSignal.any([term, timeout]) : timeout
}
