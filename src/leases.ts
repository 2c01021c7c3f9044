/**
 * The one registry of lease names and their pacing.
 *
 * Every net elects through a lease named here, so two nets can never share one by accident: a worker
 * refuses to start when two nets name the same lease or a net names one that is not registered.
 * Pacing (docs/decisions/0005-a-takeover-within-the-next-minute.md, replacing 0001's): pace =
 * min(schedule interval, 60 s), TTL = min(3 × pace, 30 s), retry = min(pace, TTL).
 */

/** A registered lease. */
export interface LeaseDefinition {
  /** Kebab-case, unique in the registry; the `_id` of the lease document. */
  readonly name: string
  /** What the lease elects, for `status` and the docs. */
  readonly description: string
}

const KEBAB = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/

/** Thrown at start-up for a registry or net that breaks the one-lease-per-net rule. */
export class LeaseRegistryError extends Error {
  override readonly name = 'LeaseRegistryError'
  readonly code = 'LEASE_REGISTRY'
  readonly component = 'leases'
  constructor(
    readonly lease: string,
    detail: string,
  ) {
    super(`leases: lease "${lease}": ${detail}`)
  }
}

/** Declares a lease; the name must be kebab-case (at most 64 characters). */
export function defineLease(name: string, description: string): LeaseDefinition {
  if (typeof name !== 'string' || !KEBAB.test(name) || name.length > 64) {
    throw new LeaseRegistryError(
      String(name),
      'a lease name must be kebab-case ([a-z0-9] words joined by "-"), at most 64 characters',
    )
  }
  return Object.freeze({ name, description })
}

/**
 * The merge-gate sweeper's lease: the first net elected through a lease
 * (docs/decisions/0001-one-elected-replica-per-net.md).
 */
export const MERGE_GATE_SWEEPER_LEASE = defineLease(
  'merge-gate-sweeper',
  'one replica re-offers gating runs to the reconciler',
)

/** The board issue sync's lease: the second net elected, for the same reason as the sweeper. */
export const BOARD_ISSUE_SYNC_LEASE = defineLease(
  'board-issue-sync',
  'one replica syncs forge issues into board cards',
)

/** The built-in registry. */
export const LEASES: readonly LeaseDefinition[] = [MERGE_GATE_SWEEPER_LEASE, BOARD_ISSUE_SYNC_LEASE]

/**
 * Checks that `registry` has no duplicate names and that every entry of `uses` (net name → lease name)
 * names a registered lease, used by one net only. Throws LeaseRegistryError naming the lease otherwise.
 */
export function checkLeaseUse(
  registry: readonly LeaseDefinition[],
  uses: ReadonlyArray<{ net: string; lease: string }>,
): void {
  const known = new Set<string>()
  for (const lease of registry) {
    if (known.has(lease.name)) throw new LeaseRegistryError(lease.name, 'registered twice')
    known.add(lease.name)
  }
  const taken = new Map<string, string>()
  for (const { net, lease } of uses) {
    if (!known.has(lease)) {
      throw new LeaseRegistryError(
        lease,
        `net "${net}" names a lease that is not registered (registered: ${[...known].join(', ') || 'none'}); ` +
          `add defineLease('${lease}', '<what it elects>') to the configuration's leases`,
      )
    }
    const other = taken.get(lease)
    if (other !== undefined)
      throw new LeaseRegistryError(
        lease,
        `used by both net "${other}" and net "${net}"; each net needs its own lease`,
      )
    taken.set(lease, net)
  }
}

/** How one lease campaigns. */
export interface LeasePacing {
  /** min(schedule interval, 60 s). */
  paceMs: number
  ttlMs: number
  retryMs: number
}

/** The longest pace: a standby without a holder's expiry to wait for reads the lease at least this often. */
export const MAX_PACE_MS = 60_000

/**
 * The longest default TTL: a holder that dies is replaced within about this (a standby waits for the
 * expiry it read), so a minute schedule's next slot runs on time after a crash
 * (docs/decisions/0005-a-takeover-within-the-next-minute.md).
 */
export const MAX_DEFAULT_TTL_MS = 30_000

/**
 * Pacing for a net whose schedule fires every `intervalMs`, with per-net overrides: TTL = min(3 × pace,
 * MAX_DEFAULT_TTL_MS) and retry = min(pace, TTL) unless set. A retry longer than the TTL would only
 * delay a standby that holds no expiry to wait for (run.ts waits for a seen expiry when it is sooner).
 */
export function leasePacing(
  intervalMs: number,
  overrides: { ttlMs?: number | undefined; retryMs?: number | undefined } = {},
): LeasePacing {
  const paceMs = Math.min(intervalMs, MAX_PACE_MS)
  const ttlMs = overrides.ttlMs ?? Math.min(3 * paceMs, MAX_DEFAULT_TTL_MS)
  return { paceMs, ttlMs, retryMs: overrides.retryMs ?? Math.min(paceMs, ttlMs) }
}
