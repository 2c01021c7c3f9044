/**
 * Abortable waits on a Clock: the one way the worker pauses (backoff between retries, the shutdown
 * timeout, waiting for a connection), so tests drive every timer through the clock or fake timers.
 *
 * Not a scheduler and not a retry policy: it waits and says whether the wait ran to its end.
 */
import { type Clock, MAX_TIMER_MS, systemClock } from './clock.js'

/**
 * Waits `ms` on `clock`. Resolves `true` when the time elapsed, `false` as soon as `signal` aborts
 * (at once when it already has). Never rejects. Delays above the timer limit are capped to it.
 */
export function waitFor(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false)
    const onAbort = () => {
      clock.clearTimeout(handle)
      resolve(false)
    }
    const handle = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort)
        resolve(true)
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    )
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Waits for `promise` to settle or `signal` to abort, whichever comes first. Resolves `true` when the
 * promise settled (fulfilled or rejected: the caller reads the promise itself for its outcome), `false`
 * when the signal aborted first. Never rejects.
 */
export function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    const onAbort = () => resolve(false)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort)
        resolve(true)
      },
      () => {
        signal.removeEventListener('abort', onAbort)
        resolve(true)
      },
    )
  })
}

/**
 * Waits for `promise` to settle for at most `ms` on `clock`. Resolves `true` when it settled in time,
 * `false` when the time ran out first (the promise goes on; nothing is cancelled). Never rejects.
 */
export async function settledWithin(
  promise: Promise<unknown>,
  ms: number,
  clock: Clock = systemClock,
): Promise<boolean> {
  const done = new AbortController()
  const settled = promise.then(
    () => true,
    () => true,
  )
  const result = await Promise.race([settled, waitFor(ms, done.signal, clock).then(() => false)])
  done.abort()
  return result
}
