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
  // The race's other side is rejected where the bound is aborted, before the call's own listeners hear of
  // it (as a listener added first did): no listener of ours on the call's signal. A replica renews each
  // lease it holds through here every ttl/3, and at 1,000 leases that listener and its map were a sixth
  // of what the worker's young generation promoted to the old one (issue 39).
  let reject: (reason: unknown) => void = () => undefined
  const aborted = new Promise<never>((_, no) => {
    reject = no
  })
  aborted.catch(() => undefined)
  const abort = (reason: unknown) => {
    if (bound.signal.aborted) return
    reject(reason)
    bound.abort(reason)
  }
  const timer = clock.setTimeout(() => abort(new Error(`no answer within ${Math.round(ms)} ms`)), ms)
  const onParent = () => abort(parent?.reason)
  parent?.addEventListener('abort', onParent, { once: true })
  if (parent?.aborted) onParent()
  try {
    const pending = Promise.resolve().then(() => call(bound.signal))
    pending.catch(() => undefined)
    return { ok: true, value: await Promise.race([pending, aborted]) }
  } catch (error) {
    return { ok: false, error }
  } finally {
    clock.clearTimeout(timer)
    parent?.removeEventListener('abort', onParent)
  }
}
