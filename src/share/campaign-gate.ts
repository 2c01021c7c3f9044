/**
 * A net's campaign gate (net-runner.ts's CampaignGate): the clock guard first (a replica whose clock is
 * off by more than the net's ttl/6 campaigns for nothing), the vacancy watch (an acquire only for a lease
 * the last vacancy read found free), then the fair share (an acquire only while held terms plus acquires
 * in flight are under the share, or under the share with one replica fewer for a lease the vacancy watch
 * saw orphaned) — the share last, as it reserves a place. It holds campaigns back and passes the share keeper's
 * step-downs to the terms; it decides nothing itself.
 */
import type { CampaignAttempt } from '../lease/run.js'
import type { ClockWatch } from './clock-watch.js'
import type { CampaignGate } from '../term/net-runner.js'
import type { ShareKeeper } from './share-keeper.js'
import type { VacancyWatch } from './vacancy-watch.js'

/** The parts a gate asks; each may be absent (then it lets through). */
export interface GateParts {
  clock: ClockWatch | undefined
  share: () => ShareKeeper | undefined
  vacancy: () => VacancyWatch | undefined
}

/** The gate of the net campaigning for `lease` with `ttlMs`. */
export function netCampaignGate(lease: string, ttlMs: number, parts: GateParts): CampaignGate {
  const { clock, share } = parts
  // Whether this campaign holds a place in the share for the acquire in flight.
  let reserved: ShareKeeper | undefined
  // Whether the last reservation was for an orphan: the term it may begin is then spared a while.
  let orphan = false
  return {
    mayCampaign: () => {
      if (clock && !clock.guard.verdict(lease, ttlMs).campaign) return false
      const vacancy = parts.vacancy()
      if (vacancy && !vacancy.mayTry(lease)) return false
      const keeper = share()
      if (!keeper) {
        vacancy?.tried(lease)
        return true
      }
      const orphaned = vacancy?.orphaned(lease) ?? false
      if (!keeper.gate.reserve(orphaned)) return false
      reserved = keeper
      orphan = orphaned
      vacancy?.tried(lease)
      return true
    },
    attempted: (kind: CampaignAttempt) => {
      // The attempt the reservation was for settled: its acquire, or the read that found the lease held.
      if ((kind !== 'acquire' && kind !== 'read') || !reserved) return
      reserved.gate.settled()
      reserved = undefined
    },
    onTerm: () => share()?.onTerm(orphan),
  }
}
