/**
 * Bounded store calls and abortable pauses for the campaign, on its Clock (so tests drive every timer).
 *
 * Not a retry policy: one call, one bound; what to do with the answer is the caller's.
 */
import type { Clock } from './clock.js'

/** A store call's outcome: its value, or why no answer came (a rejection or the bound). */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: unknown }

/**
 * Calls `call` with a signal that aborts after `ms` or when `parent` aborts, and races the call against
 * that signal, so a store that ignores it still cannot hold the campaign up. Never rejects.
 */
export async function boundedCall<T>(
  clock: Clock,
  ms: number,
  parent: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<Answer<T>> {
  const bound = new AbortController()
  const timer = clock.setTimeout(() => bound.abort(new Error(`no answer within ${Math.round(ms)} ms`)), ms)
  const onParent = () => bound.abort(parent?.reason)
  parent?.addEventListener('abort', onParent, { once: true })
  if (parent?.aborted) onParent()
  try {
    const pending = Promise.resolve().then(() => call(bound.signal))
    pending.catch(() => undefined)
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(bound.signal.reason)
      if (bound.signal.aborted) fail()
      else bound.signal.addEventListener('abort', fail, { once: true })
    })
    aborted.catch(() => undefined)
    return { ok: true, value: await Promise.race([pending, aborted]) }
  } catch (error) {
    return { ok: false, error }
  } finally {
    clock.clearTimeout(timer)
    parent?.removeEventListener('abort', onParent)
  }
}
