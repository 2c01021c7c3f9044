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
import type { ServedTerm } from './served-term.js'
import type { DeferralStep } from './term-steps.js'

/** How a net's campaign decides deferral: the reserve, and its installation's budget as last seen. */
export interface DeferralPolicy {
  reserve: ForgeReserve
  budget(): ForgeBudget | undefined
}

/** Why the slot due now must be deferred, or undefined when it may run. */
export function deferralNow(policy: DeferralPolicy | undefined): string | undefined {
  return policy === undefined ? undefined : deferralReason(policy.reserve, policy.budget())
}

/** The deferral step of one term (term-steps.ts): the policy, asked before each scheduled slot. */
export class BudgetDeferral implements DeferralStep {
  readonly #term: ServedTerm
  readonly #policy: DeferralPolicy

  constructor(term: ServedTerm, policy: DeferralPolicy) {
    this.#term = term
    this.#policy = policy
  }

  /**
   * Records `slot` `deferred` and counts it when the budget is at its reserve: true if so. A slot that
   * already has a record is left as it is; a ledger that does not answer is logged (the slot stays without
   * a record, like any unrecorded slot: the next term's catch-up accounts it). Never rejects.
   */
  async deferred(slot: Date): Promise<boolean> {
    const reason = deferralNow(this.#policy)
    if (reason === undefined) return false
    await this.#record(slot, reason)
    return true
  }

  async #record(slot: Date, reason: string): Promise<void> {
    const { setting, net, fence, log } = this.#term
    setting.metrics?.skippedTicks.inc({ net, reason: 'deferred' })
    const at = slot.toISOString()
    const { installation } = setting.net
    const scoped = installation === undefined ? {} : { installation }
    try {
      const entry = { net, slot, owner: setting.owner, fence, at: setting.clock.now(), reason, ...scoped }
      await setting.ledger.account(
        { ...entry, outcome: 'deferred' },
        { signal: this.#term.callSignal('none') },
      )
      log.warn({ slot: at, ...scoped, reason }, `slot not run, recorded deferred: ${reason}`)
    } catch (error) {
      log.warn({ slot: at, err: error }, 'could not record a deferred slot: the ledger did not answer')
    }
  }
}
