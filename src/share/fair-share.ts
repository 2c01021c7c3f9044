/**
 * The fair-share rule: how many leases one replica should hold when every replica runs the same nets.
 * A replica campaigns while it holds fewer than its share, and a holder above its share plus the slack
 * steps down from the excess at the end of a pass, so holdings converge after a replica joins or dies.
 *
 * Pure arithmetic: no store, no clock. share-keeper.ts reads the live replicas and applies it.
 */

/** ⌈leases ÷ live replicas⌉: the most any replica needs to hold for every lease to be held. */
export function fairShare(leases: number, liveReplicas: number): number {
  if (!Number.isInteger(leases) || leases < 0)
    throw new RangeError(`fairShare: leases must be a whole number ≥ 0, got ${String(leases)}`)
  if (!Number.isInteger(liveReplicas))
    throw new RangeError(`fairShare: liveReplicas must be a whole number, got ${String(liveReplicas)}`)
  // This replica is alive even when its own announcement has not been read back yet.
  return Math.ceil(leases / Math.max(1, liveReplicas))
}

/**
 * This replica's own share, by its rank among the live replicas (owner ids in code-unit order, this one
 * counted even when its announcement was not read back): the first `leases mod replicas` take
 * ⌈leases ÷ replicas⌉ and the others ⌊leases ÷ replicas⌋, so the shares add up to the leases exactly. A
 * ceiling for everyone let ten leases on four replicas settle at 3/3/3/1 — three replicas at their ceiling
 * and nothing free for the fourth — where ranked shares settle at 3/3/2/2, the best split there is.
 * Every replica reads the same live set, so they agree on who takes the ceiling without asking each other.
 */
export function rankedShare(leases: number, live: readonly string[], owner: string): number {
  const replicas = [...new Set([...live, owner])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const ceiling = fairShare(leases, replicas.length)
  const atCeiling = leases % replicas.length
  return atCeiling === 0 || replicas.indexOf(owner) < atCeiling ? ceiling : ceiling - 1
}

/** What a replica holding `held` leases does under its `share` with `slack`. */
export interface ShareDecision {
  /** Whether it may campaign for one more lease. */
  campaign: boolean
  /** How many of its terms to step down from (0 unless it holds more than share + slack). */
  stepDown: number
}

/**
 * Campaign while under the share; above share + slack, step down to the share (not to share + slack: a
 * replica that joined must find leases free, or it would stay empty while the others sit on their slack).
 */
export function shareDecision(held: number, share: number, slack: number): ShareDecision {
  return { campaign: held < share, stepDown: held > share + slack ? held - share : 0 }
}
