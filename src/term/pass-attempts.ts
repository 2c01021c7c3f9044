/**
 * The attempts of one slot's pass under its one claim. Each attempt gets its own signal, aborted when the
 * term ends (the attempt is `aborted`) or when the net's TIMEOUT passes (`timed-out`). A `failed` or
 * `timed-out` attempt is retried up to RETRIES times after a doubling backoff, and only while the term
 * holds: a retry must start before the term's step-down deadline and before the schedule's next slot, so
 * retries never overlap the next slot's pass nor outlive the term that claimed the slot. Every wait goes
 * through lease/wait.ts on the given clock.
 *
 * Not the claim or the record (slot-pass.ts makes both, once per slot), and not the lane: an attempt is
 * the caller's function, run as given. An attempt is awaited to its end: a pass that ignores its signal
 * still holds its slot until it returns (the Pass contract asks it to return soon).
 */
import type { AttemptPolicy } from '../config/worker-config.js'
import type { Clock } from '../lease/clock.js'
import { followAny } from '../lease/follow-abort.js'
import { waitFor } from '../lease/wait.js'
import type { PassOutcome } from '../runs/run-ledger.js'
import type { Logger } from '../observe/logger.js'
import { PassTimeoutError } from './pass-timeout-error.js'

/** The doubling backoff never waits longer than this between two attempts. */
export const MAX_RETRY_WAIT_MS = 3_600_000

export interface AttemptsSpec {
  net: string
  slot: Date
  policy: AttemptPolicy
  /** The term's signal: ends the attempt in flight (`aborted`) and any wait for a retry. */
  term: AbortSignal
  live(): boolean
  /** The term's step-down deadline, on the clock's monotonic scale: no retry starts at or after it. */
  stepDownAt(): number
  /** The schedule's next slot (wall clock): no retry starts at or after it. */
  nextSlotAt: Date
  clock: Clock
  log: Logger
  /** Told each attempt's outcome, number and error (metrics, the pass's span); a throwing hook is the hook's problem. */
  onAttempt?(outcome: PassOutcome, attempt: number, error?: unknown): void
}

/** How the slot's attempts ended: the last attempt's outcome and error, and how many were made. */
export interface AttemptsEnd {
  outcome: PassOutcome
  error?: unknown
  attempts: number
}

/** One attempt of the pass with `signal`; rejects when the pass threw. */
export type Attempt = (signal: AbortSignal, attempt: number) => Promise<void>

/** Runs `attempt` until one ends `ok` or `aborted`, or no retry may start. Never rejects. */
export async function runAttempts(spec: AttemptsSpec, attempt: Attempt): Promise<AttemptsEnd> {
  for (let n = 1; ; n++) {
    const ended = await runAttempt(spec, attempt, n)
    spec.onAttempt?.(ended.outcome, n, ended.error)
    if (ended.outcome === 'ok' || ended.outcome === 'aborted') return { ...ended, attempts: n }
    const retry = retryWait(spec, n)
    if (retry.waitMs === undefined) {
      if (retry.why) spec.log.info({ attempt: n, outcome: ended.outcome }, `no retry: ${retry.why}`)
      return { ...ended, attempts: n }
    }
    const { waitMs } = retry
    spec.log.warn(
      { attempt: n, outcome: ended.outcome, err: ended.error, retryInMs: waitMs },
      `pass attempt ${n} ${ended.outcome}; retrying in ${waitMs} ms`,
    )
    // A term that ends during the wait leaves the last attempt's outcome: nothing was aborted mid-run.
    if (!(await waitFor(waitMs, spec.term, spec.clock)) || !spec.live()) return { ...ended, attempts: n }
  }
}

/** One attempt under its own signal: the term's, and the TIMEOUT's through the clock. */
async function runAttempt(
  spec: AttemptsSpec,
  attempt: Attempt,
  n: number,
): Promise<{ outcome: PassOutcome; error?: unknown }> {
  const timeout = new AbortController()
  const settled = new AbortController()
  // Both follow the term only while the attempt runs (follow-abort.ts: AbortSignal.any would leave an entry
  // on the term's signal for every attempt on Node 20).
  const waiting = followAny([settled.signal, spec.term])
  const running = followAny([spec.term, timeout.signal])
  const timeoutMs = spec.policy.timeoutMs
  void waitFor(timeoutMs, waiting.signal, spec.clock).then((elapsed) => {
    if (elapsed) timeout.abort(new PassTimeoutError(spec.net, spec.slot, n, timeoutMs))
  })
  const ended = (fallback: PassOutcome, error?: unknown) => {
    // A pass that ended quietly on its abort is recorded with why it was aborted (a term's end, a pause
    // with --abort, OVERLAP=replace), not with nothing.
    if (spec.term.aborted) return { outcome: 'aborted' as const, error: error ?? spec.term.reason }
    // The timeout's own error says what happened; the pass's answer to the abort (an AbortError) does not.
    if (timeout.signal.aborted) return { outcome: 'timed-out' as const, error: timeout.signal.reason }
    return error === undefined ? { outcome: fallback } : { outcome: fallback, error }
  }
  try {
    await attempt(running.signal, n)
    return ended('ok')
  } catch (error) {
    return ended('failed', error)
  } finally {
    settled.abort()
    waiting.unfollow()
    running.unfollow()
  }
}

/** The wait before the retry after attempt `n`; none (and why, when a retry was due) when it may not start. */
function retryWait(spec: AttemptsSpec, n: number): { waitMs?: number; why?: string } {
  const { retries, retryBackoffMs } = spec.policy
  if (n > retries) return n > 1 ? { why: `all ${retries} retries made` } : {}
  const waitMs = Math.min(retryBackoffMs * 2 ** (n - 1), MAX_RETRY_WAIT_MS)
  if (!spec.live()) return { why: 'the term has ended' }
  if (spec.clock.monotonic() + waitMs >= spec.stepDownAt())
    return { why: `a retry in ${waitMs} ms would start past the term's step-down deadline` }
  if (spec.clock.now().getTime() + waitMs >= spec.nextSlotAt.getTime())
    return {
      why: `a retry in ${waitMs} ms would start at or after the next slot (${spec.nextSlotAt.toISOString()})`,
    }
  return { waitMs }
}
