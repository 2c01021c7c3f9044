/**
 * The clock probe: asks the store's server for its time every `intervalMs` (Mongo's `hello` answers
 * with `localTime`) and hands each answer to the clock guard as an offset sample (clock-guard.ts), and
 * the estimate to the `leasecron_clock_offset_seconds` gauge.
 *
 * It is not the guard's rule and not a health check: an unanswered probe records nothing (the last
 * estimate stands; a store that does not answer elects nobody anyway). Time is the worker's Clock.
 */
import type { Clock } from '../lease/clock.js'
import { waitFor } from '../lease/wait.js'
import { offsetSample, type ClockGuard } from './clock-guard.js'

/** How often a replica measures its offset: one `hello` per this many ms (a cheap, unlogged command). */
export const CLOCK_PROBE_INTERVAL_MS = 10_000

export interface ClockProbeOptions {
  /**
   * The server's time (ms since the epoch) as one answer states it, bounded by the caller's own call
   * timeout; rejects when it does not answer.
   */
  serverTime(signal: AbortSignal): Promise<number>
  guard: ClockGuard
  clock: Clock
  /** Ends the probe. */
  signal: AbortSignal
  /** The estimate after each answered probe (the gauge). */
  onEstimate(offsetMs: number): void
  intervalMs?: number
}

/** Probes until `signal` aborts; resolves then. Never rejects. */
export async function runClockProbe(options: ClockProbeOptions): Promise<void> {
  const { clock, signal, guard } = options
  const intervalMs = options.intervalMs ?? CLOCK_PROBE_INTERVAL_MS
  while (!signal.aborted) {
    await probeOnce(options)
    const estimate = guard.offsetMs()
    if (estimate !== undefined) options.onEstimate(estimate)
    if (!(await waitFor(intervalMs, signal, clock))) return
  }
}

/** One sample; an unanswered one is dropped (it says nothing about the clock). */
export async function probeOnce(
  options: Pick<ClockProbeOptions, 'serverTime' | 'guard' | 'clock' | 'signal'>,
): Promise<void> {
  const { clock, signal, guard } = options
  const sentAtMs = clock.now().getTime()
  const sentAtMono = clock.monotonic()
  try {
    const serverMs = await options.serverTime(signal)
    if (Number.isFinite(serverMs))
      guard.record(offsetSample(sentAtMs, serverMs, clock.monotonic() - sentAtMono))
  } catch {
    // No answer, no sample: the previous estimate stands until the server answers again.
  }
}
