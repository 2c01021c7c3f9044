/**
 * The nets as the worker campaigns for them, per installation: a per-installation net (`scope:
 * 'installation'`) becomes one net per installation, each with its own lease and ledger slots named
 * `<net>:<installation>` (the plain names when the installations come from GITHUB_INSTALLATION_ID, so an
 * upgrade finds its leases and history), and a global net stays one, acting as the first installation.
 *
 * Not the lease registry (src/leases.ts holds the base lease; the per-installation names derive from it)
 * and not discovery: it maps a set of installations known now to the nets that serve them.
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import {
  type InstallationSet,
  installationScopedName,
  listedInstallations,
} from '../forge/installations/installation-set.js'

/** One net this worker campaigns for: its configuration as run (`net`), and the configured net it comes from. */
export interface NetInstance {
  /** Names scoped to the installation for a per-installation net; `installation` set. */
  net: NetConfig
  /** The configured net (its set-up's resources are keyed by its name: one set-up serves every installation). */
  base: NetConfig
}

/**
 * The nets to campaign for when the worker acts as `installations` (in that order) under `set`. A
 * per-installation net yields one instance per installation (none when there is none); a global net one,
 * acting as the first installation (none named: no installation recorded).
 */
export function installationNets(
  nets: readonly NetConfig[],
  set: InstallationSet,
  installations: readonly number[],
): NetInstance[] {
  // Under `all` no installation is first: work naming none is nobody's (PassContext.primaryInstallation).
  const primaryInstallation = set.kind === 'all' ? null : (installations[0] ?? null)
  return nets.flatMap((base) => {
    if ((base.definition.scope ?? 'global') !== 'installation') {
      const first = installations[0]
      return [
        {
          base,
          net: first === undefined ? base : { ...base, installation: first, primaryInstallation },
        },
      ]
    }
    return installations.map((installation) => ({
      base,
      net: {
        ...base,
        installation,
        primaryInstallation,
        definition: {
          ...base.definition,
          name: installationScopedName(base.definition.name, set, installation),
          lease: installationScopedName(base.definition.lease, set, installation),
        },
      },
    }))
  })
}

/**
 * The nets as the page, /status, the admin API and the commands name them: per installation under a listed
 * GITHUB_INSTALLATION_IDS, as configured otherwise (one installation: the names do not change; `all`: the
 * installations are known only once discovered).
 */
export function namedNets(config: WorkerConfig): NetConfig[] {
  const forge = config.forge
  if (forge.kind !== 'github') return config.nets
  return installationNets(config.nets, forge.installations, listedInstallations(forge.installations)).map(
    (instance) => instance.net,
  )
}

/**
 * The nets as the page and /status list them now: each installation's nets, `installations` being the ones
 * acted as (under `all`, the latest discovery); by their configured names while none is known (`all` before
 * the first listing), so a per-installation net is never missing from the page.
 */
export function shownNets(config: WorkerConfig, installations: readonly number[] | undefined): NetConfig[] {
  const forge = config.forge
  if (forge.kind !== 'github') return config.nets
  const ids = installations ?? listedInstallations(forge.installations)
  if (ids.length === 0) return config.nets
  return installationNets(config.nets, forge.installations, ids).map((instance) => instance.net)
}

/**
 * `net` acting as an installation of `set`: its own when it names one (a per-installation net's
 * `<net>:<installation>`), else the first listed (a global net, or the one installation); `net` as it is
 * when none is known (`all` before discovery).
 */
export function actingNet(net: NetConfig, set: InstallationSet): NetConfig {
  if (net.installation !== undefined) return net
  const first = listedInstallations(set)[0]
  return first === undefined ? net : { ...net, installation: first, primaryInstallation: first }
}
