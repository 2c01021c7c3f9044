/**
 * The reserve: the part of an installation's hourly REST budget a pass must leave to the installation's
 * other users (people's tools, other Apps' jobs acting as the same installation). Before a pass the worker
 * compares the installation's last seen `x-ratelimit-remaining` with it; a pass that would eat into it is
 * recorded `deferred` instead of run.
 *
 * Not a rate limiter: it decides from the last answer seen, never asks GitHub, and never delays a request
 * (Octokit's throttling does that). A pass's cost is not known beforehand, so "would eat into" means the
 * remaining budget is at or under the reserve already.
 */

/** LEASECRON_FORGE_RESERVE: points, or a fraction of the limit. */
export type ForgeReserve = { kind: 'points'; points: number } | { kind: 'fraction'; fraction: number }

/** 10 % of the limit: the threshold the LeasecronForgeBudgetLow alert and the low-budget warning use. */
export const DEFAULT_FORGE_RESERVE: ForgeReserve = { kind: 'fraction', fraction: 0.1 }

/** The last budget seen for one installation's core REST resource. */
export interface ForgeBudget {
  limit: number
  remaining: number
  /** When the budget refills (epoch seconds), when the answer said. */
  reset?: number
}

/** The reserve in points for a budget of `limit`. */
export function reservePoints(reserve: ForgeReserve, limit: number): number {
  return reserve.kind === 'points' ? reserve.points : Math.ceil(limit * reserve.fraction)
}

/**
 * Why a pass must be deferred, or undefined when it may run: no budget seen yet (the first pass learns it)
 * or a reserve of 0 always runs; `remaining` at or under the reserve defers.
 */
export function deferralReason(reserve: ForgeReserve, budget: ForgeBudget | undefined): string | undefined {
  if (budget === undefined) return undefined
  const points = reservePoints(reserve, budget.limit)
  if (points <= 0 || budget.remaining > points) return undefined
  const reset = budget.reset === undefined ? '' : ` until ${new Date(budget.reset * 1000).toISOString()}`
  return `rate limit: ${budget.remaining} of ${budget.limit} points left, at or under the reserve of ${points} (LEASECRON_FORGE_RESERVE)${reset}`
}
