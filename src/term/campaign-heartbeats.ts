/**
 * Campaign heartbeats for `/healthz`: when each net's lease campaign last attempted (an acquire or a
 * renewal, answered or not — lease.run's `onAttempt`). A campaign that has not attempted for longer than
 * its limit is stuck (a pass that ignores its abort, a lost timer), and a restart is the cure.
 *
 * A campaign that ended abnormally (its promise rejected: it will never attempt again) is named here from
 * then on, with its error, until the process restarts: a net that is campaigned for by nobody in this
 * process must not look healthy.
 *
 * It is not a store check: a campaign whose store does not answer still attempts, and stays live here
 * (that is `/readyz`). Time is the clock's monotonic time, so tests drive it with fake timers.
 */
import type { Clock } from '../lease/clock.js'

/** How many retry periods (or TTLs, whichever is longer) a campaign may go without an attempt. */
export const STALE_AFTER_PERIODS = 3

/** A campaign that has not attempted within its limit. */
export interface StaleCampaign {
  lease: string
  net: string
  /** Milliseconds since its last attempt (or since it began, when it never attempted). */
  silentMs: number
  limitMs: number
  /** Present when the campaign ended abnormally: its error's message (it will not attempt again). */
  endedWith?: string
}

/** One watched campaign. */
export interface CampaignHeartbeat {
  /** Records an attempt now. */
  beat(): void
  /** Stops watching (the campaign ended: a stopped worker is not a stuck one). */
  end(): void
  /** The campaign ended abnormally with `error`: it is stale from now on, naming the error. */
  fail(error: unknown): void
}

export interface CampaignHeartbeats {
  /** Watches a campaign from now; stale once silent for more than `limitMs`. */
  watch(campaign: { lease: string; net: string; limitMs: number }): CampaignHeartbeat
  /** The campaigns silent past their limit, now; empty when all are live. */
  stale(): StaleCampaign[]
}

/** The limit for a campaign's pacing: 3 × the longer of its retry pause and its TTL. */
export function staleLimitMs(pacing: { ttlMs: number; retryMs: number }): number {
  return STALE_AFTER_PERIODS * Math.max(pacing.ttlMs, pacing.retryMs)
}

/** A registry of campaign heartbeats read on the clock's monotonic time. */
export function createCampaignHeartbeats(clock: Clock): CampaignHeartbeats {
  const watched = new Set<{
    lease: string
    net: string
    limitMs: number
    lastAt: number
    endedWith?: string
  }>()
  return {
    watch(campaign) {
      const entry: { lease: string; net: string; limitMs: number; lastAt: number; endedWith?: string } = {
        ...campaign,
        lastAt: clock.monotonic(),
      }
      watched.add(entry)
      return {
        beat: () => {
          entry.lastAt = clock.monotonic()
        },
        end: () => void watched.delete(entry),
        fail: (error) => {
          entry.endedWith = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
        },
      }
    },
    stale() {
      const now = clock.monotonic()
      return [...watched]
        .filter((c) => c.endedWith !== undefined || now - c.lastAt > c.limitMs)
        .map((c) => ({
          lease: c.lease,
          net: c.net,
          silentMs: Math.round(now - c.lastAt),
          limitMs: c.limitMs,
          ...(c.endedWith === undefined ? {} : { endedWith: c.endedWith }),
        }))
    },
  }
}
