/**
 * The clock check of the short-lived entries — `once`, `backfill` and a serverless trigger: the worker's
 * clock guard (clock-guard.ts) asked once, before their one campaign attempt and before anything is
 * written for their slot. A process whose clock is off from the store's server by more than the net's
 * ttl/6 takes no lease and records nothing: it refuses with ClockSkewError, naming the offset and the limit.
 * Without it, a `once` a day ahead, killed mid-pass, left a lease expiring tomorrow (the workers waited on
 * it), and one that finished recorded tomorrow's slot as run.
 *
 * It measures as the worker's probe does (clock-probe.ts: `hello`'s localTime, the midpoint of the round
 * trip, the shortest of a few); a server that does not answer is no verdict (the acquire then fails on its
 * own), and LEASECRON_CLOCK_GUARD=off never refuses. Not the worker's watch (clock-watch.ts): no loop.
 */
import type { WorkerConfig } from '../config/worker-config.js'
import type { Clock } from '../lease/clock.js'
import { ClockGuard } from '../share/clock-guard.js'
import { probeOnce } from '../share/clock-probe.js'
import type { ServerClock } from '../share/server-clock.js'

/** Answers measured before the verdict: the shortest round trip of these is the estimate. */
export const CLOCK_CHECK_SAMPLES = 3

/** What the check asks: the store's server for its time, and whether the guard is on. */
export interface ClockCheck {
  /** The server's time (ms since the epoch) as one answer states it; rejects when it does not answer. */
  serverTime(signal: AbortSignal): Promise<number>
  /** LEASECRON_CLOCK_GUARD: off never refuses. */
  enforce: boolean
}

/** A process refused to campaign: its clock is off from the store's server by more than the net's ttl/6. */
export class ClockSkewError extends Error {
  override readonly name = 'ClockSkewError'
  readonly code = 'CLOCK_SKEW'
  readonly component = 'clock-guard'
  readonly operation = 'clock check'
  /** EX_TEMPFAIL: nothing was done, for something that passes once the clock is set right. */
  readonly exitCode = 75

  constructor(
    readonly lease: string,
    readonly offsetMs: number,
    readonly limitMs: number,
    reason: string,
  ) {
    super(
      `lease ${lease}: not campaigning, no lease taken and nothing recorded: ${reason}; expected the offset within ±${Math.round(limitMs)} ms (the net's ttl/6) — set this host's clock right (NTP), or LEASECRON_CLOCK_GUARD=off to campaign anyway`,
    )
  }
}

/** The check of a runtime: against its Mongo server; none on the memory store (there is no other clock). */
export function runtimeClockCheck(
  runtime: { readonly mongo: Pick<ServerClock, 'serverTime'> | undefined },
  config: Pick<WorkerConfig, 'replicas'>,
): ClockCheck | undefined {
  const mongo = runtime.mongo
  if (!mongo) return undefined
  return { serverTime: (signal) => mongo.serverTime(signal), enforce: config.replicas.clockGuard }
}

/**
 * Resolves when `lease` (with `ttlMs`) may be campaigned for with this clock; rejects with ClockSkewError
 * when the measured offset exceeds ttl/6. No check (`check` undefined) or no answer resolves.
 */
export async function checkClock(
  check: ClockCheck | undefined,
  net: { lease: string; ttlMs: number },
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  if (!check?.enforce) return
  const guard = new ClockGuard({ enforce: true, onChange: () => {} })
  for (let i = 0; i < CLOCK_CHECK_SAMPLES && !signal.aborted; i++)
    await probeOnce({ serverTime: (s) => check.serverTime(s), guard, clock, signal })
  const verdict = guard.verdict(net.lease, net.ttlMs)
  if (!verdict.campaign)
    throw new ClockSkewError(net.lease, verdict.offsetMs, verdict.limitMs, verdict.reason)
}
