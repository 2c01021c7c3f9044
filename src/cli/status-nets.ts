/**
 * The nets `leasecron status` reports on: the nets as commands name them and, under
 * GITHUB_INSTALLATION_IDS=all, each installation's copy of a per-installation net whose lease is in the
 * store. A command does not list the App's installations (that is a forge call as the App); the leases the
 * replicas campaigned for already name them. Without this, under `all` every lease showed "no run recorded"
 * and `--installation` found no net. Not the listing itself (status.ts), nor the page's nets (shownNets).
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { installationNets, namedNets } from '../worker/installation-nets.js'

/** The nets to report, given the names of the leases in the store. */
export function statusNets(config: WorkerConfig, leaseNames: readonly string[]): NetConfig[] {
  const named = namedNets(config)
  const forge = config.forge
  if (forge.kind !== 'github' || forge.installations.kind !== 'all') return named
  const perInstallation = config.nets.filter((n) => n.definition.scope === 'installation')
  const ids = new Set<number>()
  for (const name of leaseNames) {
    const match = /^(.+):([1-9][0-9]{0,14})$/.exec(name)
    if (match && perInstallation.some((n) => n.definition.lease === match[1])) ids.add(Number(match[2]))
  }
  const stored = new Set(leaseNames)
  const discovered = installationNets(
    perInstallation,
    forge.installations,
    [...ids].sort((a, b) => a - b),
  )
    .map((instance) => instance.net)
    .filter((n) => stored.has(n.definition.lease))
  return [...named, ...discovered]
}
