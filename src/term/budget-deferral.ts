/**
 * Deferral: before a scheduled slot's pass, its installation's budget as last seen is compared with the
 * reserve (forge/installations/forge-reserve.ts); a pass that would eat into it does not run, and its slot is recorded
 * `deferred` in the run ledger (like `missed` and `paused`: a later claim — a backfill, `once --slot` —
 * may still run it) and counted (`leasecron_skipped_ticks_total{reason="deferred"}`; the ledger's
 * `leasecron_slots_total{outcome="deferred"}`).
 *
 * Not a rate limiter: the next slot asks again, with whatever budget the answers since have shown (the
 * budget refills at GitHub's reset; a deferred pass spends nothing, so it is the net's other requests and
 * the installation's other users that move it). A manual run (run now) is never deferred: an operator asked.
 */
import type { ForgeReserve } from '../forge/installations/forge-reserve.js'
import { deferralReason } from '../forge/installations/forge-reserve.js'
import type { ForgeBudget } from '../forge/installations/forge-reserve.js'
import type { Clock } from '../lease/clock.js'
import type { RunLedger } from '../runs/run-ledger.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import { callBoundSignal } from './term-call-bound.js'

/** How a net's campaign decides deferral: the reserve, and its installation's budget as last seen. */
export interface DeferralPolicy {
  reserve: ForgeReserve
  budget(): ForgeBudget | undefined
}

/** Why the slot due now must be deferred, or undefined when it may run. */
export function deferralNow(policy: DeferralPolicy | undefined): string | undefined {
  return policy === undefined ? undefined : deferralReason(policy.reserve, policy.budget())
}

/** What recording a deferred slot needs. */
export interface DeferredSlot {
  ledger: RunLedger
  /** The ledger's name of the net (`<net>:<installation>` for one installation of a per-installation net). */
  net: string
  installation: number | undefined
  owner: string
  fence: number
  clock: Clock
  log: Logger
  metrics: WorkerMetrics
  /** Bound of the ledger call (the term's renewal cadence). */
  boundMs: number
}

/**
 * Records `slot` `deferred` with `reason` and counts it. A slot that already has a record is left as it is;
 * a ledger that does not answer is logged (the slot stays without a record, like any unrecorded slot: the
 * next term's catch-up accounts it). Never rejects.
 */
export async function recordDeferred(o: DeferredSlot, slot: Date, reason: string): Promise<void> {
  o.metrics.skippedTicks.inc({ net: o.net, reason: 'deferred' })
  const at = slot.toISOString()
  const installation = o.installation === undefined ? {} : { installation: o.installation }
  try {
    await o.ledger.account(
      {
        net: o.net,
        slot,
        owner: o.owner,
        fence: o.fence,
        at: o.clock.now(),
        outcome: 'deferred',
        reason,
        ...installation,
      },
      { signal: callBoundSignal(o.boundMs) },
    )
    o.log.warn({ slot: at, ...installation, reason }, `slot not run, recorded deferred: ${reason}`)
  } catch (error) {
    o.log.warn({ slot: at, err: error }, 'could not record a deferred slot: the ledger did not answer')
  }
}
