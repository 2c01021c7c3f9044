/**
 * The signal that carries the bound of one store call a holder makes within its term (a claim, a control
 * read, a ledger read or write); the bound itself is lease/call-bound.ts's `termCallBoundMs`.
 *
 * Not a retry policy: one call, one bound.
 */
import { followAbort } from '../lease/follow-abort.js'

/**
 * A signal that aborts after `boundMs` (rounded up to a whole millisecond, at least 1) or when `term`
 * aborts, whichever comes first. The bound aborts with a `TimeoutError`, as `AbortSignal.timeout` does;
 * the term's end with the term's reason. The signal follows the term only until its bound passes
 * (follow-abort.ts: `AbortSignal.any` would leave an entry on the term's signal for every call).
 */
export function callBoundSignal(boundMs: number, term?: AbortSignal): AbortSignal {
  const ms = Math.max(1, Math.ceil(boundMs))
  if (!term) return AbortSignal.timeout(ms)
  const call = new AbortController()
  const unfollow = followAbort(term, call)
  // Real time and unref'd, as AbortSignal.timeout's: a call's bound never holds the process open.
  const timer = setTimeout(() => {
    unfollow()
    call.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))
  }, ms)
  timer.unref()
  return call.signal
}
