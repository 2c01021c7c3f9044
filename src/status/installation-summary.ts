/**
 * The status snapshot by installation: `summarizeInstallations` groups the nets by the installation they
 * act as (holders per replica, runs by outcome, budget left from the rate-limit figures), and
 * `narrowToInstallation` keeps only one installation's part of a snapshot (`?installation=12`,
 * `leasecron status --installation 12`).
 *
 * Pure: it reads a snapshot's parts and builds new ones; it reads no store and parses no input (the
 * filter's text is read by installation-filter.ts).
 */
import type {
  ForgeStatus,
  InstallationHolder,
  InstallationStatus,
  NetStatus,
  RateLimitStatus,
  RunStatus,
  StatusSnapshot,
} from './status-snapshot.js'
import { laneOf } from '../term/slot-pass.js'

/** What the summary reads of a net: the CLI's plain listing builds these without a whole snapshot. */
export type SummarizedNet = Pick<NetStatus, 'name' | 'installation' | 'enabled' | 'holder' | 'runs'>

/**
 * One entry per installation some enabled net acts as, in the order the nets first name them (a net
 * disabled here is nobody's work here, so its free lease is not counted). `rateLimits` gives
 * each installation's budget (its `core` figures); `null` (the CLI sent nothing) leaves every budget null.
 */
export function summarizeInstallations(
  nets: readonly SummarizedNet[],
  rateLimits: readonly RateLimitStatus[] | null,
): InstallationStatus[] {
  const groups = new Map<number, SummarizedNet[]>()
  for (const net of nets) {
    if (net.installation === null || !net.enabled) continue
    const group = groups.get(net.installation) ?? []
    group.push(net)
    groups.set(net.installation, group)
  }
  return [...groups].map(([installation, group]) => ({
    installation,
    nets: group.map((n) => n.name),
    holders: holdersOf(group),
    unheld: group.filter((n) => n.holder === null).length,
    runs: group.some((n) => n.runs !== null) ? outcomesOf(group) : null,
    budget: budgetOf(installation, rateLimits),
  }))
}

function holdersOf(group: readonly SummarizedNet[]): InstallationHolder[] {
  const byOwner = new Map<string, InstallationHolder>()
  for (const { holder } of group) {
    if (holder === null) continue
    const entry = byOwner.get(holder.owner) ?? {
      owner: holder.owner,
      leases: 0,
      thisReplica: holder.thisReplica,
    }
    entry.leases += 1
    byOwner.set(holder.owner, entry)
  }
  return [...byOwner.values()].sort((a, b) => b.leases - a.leases || a.owner.localeCompare(b.owner))
}

function outcomesOf(group: readonly SummarizedNet[]): Partial<Record<RunStatus['outcome'], number>> {
  const counts: Partial<Record<RunStatus['outcome'], number>> = {}
  // Outcomes in a fixed (alphabetical) order, so the page and the CLI line do not reorder as runs come in.
  const runs = group.flatMap((n) => n.runs ?? []).sort((a, b) => a.outcome.localeCompare(b.outcome))
  for (const run of runs) counts[run.outcome] = (counts[run.outcome] ?? 0) + 1
  return counts
}

/** The installation's REST budget as last seen: the `core` resource (what a pass spends), any host. */
function budgetOf(
  installation: number,
  rateLimits: readonly RateLimitStatus[] | null,
): InstallationStatus['budget'] {
  const seen = rateLimits?.find((l) => l.installation === installation && l.resource === 'core')
  return seen ? { remaining: seen.remaining, limit: seen.limit, resetAt: seen.resetAt } : null
}

/**
 * The snapshot narrowed to `installation`: its nets, its summary, its rate limits and the lanes its nets
 * spent on. An installation no net acts as leaves them empty, and a note says which ones are known.
 */
export function narrowToInstallation(snapshot: StatusSnapshot, installation: number): StatusSnapshot {
  const nets = snapshot.nets.filter((n) => n.installation === installation)
  const known = snapshot.installations.map((i) => i.installation)
  const notes = known.includes(installation)
    ? snapshot.notes
    : [
        ...snapshot.notes,
        known.length === 0
          ? `no net here acts as installation ${installation}: no net names an installation (the sandbox forge, or GITHUB_INSTALLATION_IDS=all before discovery)`
          : `no net here acts as installation ${installation}; the installations shown without the filter are ${known.join(', ')}`,
      ]
  return {
    ...snapshot,
    nets,
    installations: snapshot.installations.filter((i) => i.installation === installation),
    installationFilter: installation,
    forge: narrowForge(snapshot.forge, installation, new Set(nets.map((n) => n.name))),
    notes,
  }
}

function narrowForge(forge: ForgeStatus, installation: number, nets: ReadonlySet<string>): ForgeStatus {
  const lanes = new Set([...nets].map(laneOf))
  return {
    ...forge,
    // A pass spends on its net's lane (slot-pass.ts), so the installation's nets' lanes are its own.
    lanes: forge.lanes.filter((l) => lanes.has(l.lane)),
    rateLimits: forge.rateLimits?.filter((l) => l.installation === installation) ?? null,
  }
}
