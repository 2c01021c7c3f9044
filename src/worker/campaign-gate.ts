/**
 * A net's campaign gate (scheduler.ts's CampaignGate): the clock guard first (a replica whose clock is
 * off by more than the net's ttl/6 campaigns for nothing), then the fair share (an acquire only while
 * held terms plus acquires in flight are under the share). It holds campaigns back and passes the share
 * keeper's step-downs to the terms; it decides nothing itself.
 */
import type { CampaignAttempt } from '../lease/run.js'
import type { ClockWatch } from './clock-watch.js'
import type { CampaignGate } from './scheduler.js'
import type { ShareKeeper } from './share-keeper.js'

/** The gate of the net campaigning for `lease` with `ttlMs`; either part may be absent (then it lets through). */
export function netCampaignGate(
  lease: string,
  ttlMs: number,
  clock: ClockWatch | undefined,
  share: () => ShareKeeper | undefined,
): CampaignGate {
  // Whether this campaign holds a place in the share for the acquire in flight.
  let reserved: ShareKeeper | undefined
  return {
    mayCampaign: () => {
      if (clock && !clock.guard.verdict(lease, ttlMs).campaign) return false
      const keeper = share()
      if (!keeper) return true
      if (!keeper.gate.reserve()) return false
      reserved = keeper
      return true
    },
    attempted: (kind: CampaignAttempt) => {
      if (kind !== 'acquire' || !reserved) return
      reserved.gate.settled()
      reserved = undefined
    },
    onTerm: (stepDown) => share()?.onTerm(stepDown) ?? (() => {}),
  }
}
