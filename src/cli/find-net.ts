/**
 * The configured net a command names (`once <net>`, `history <net>`), or a usage error listing the nets
 * (and, without --config, naming a worker.config.* in the working directory).
 */
import { nearestName } from '../config/nearest-name.js'
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import type { Io } from './io.js'
import { localConfigHint } from './local-config-hint.js'
import { installationNets, namedNets } from '../worker/installation-nets.js'

/** The net called `name`; undefined after saying which nets there are. `configPath` is --config's value. */
export function findNet(
  command: string,
  name: string | undefined,
  config: WorkerConfig,
  io: Io,
  configPath: string | undefined,
): NetConfig | undefined {
  const net = resolveNet(name, config)
  if (net) return net
  const hint = localConfigHint(configPath)
  const got = name ?? `no <net> argument (usage: leasecron ${command} <net>)`
  const near = name === undefined ? undefined : nearNet(name, config)
  io.err(
    `leasecron ${command}: expected one of ${expectedNames(config)}; got ${got}${near ? ` — did you mean ${near}?` : ''}${hint ? ` (${hint})` : ''}`,
  )
  return undefined
}

/**
 * The net a mistyped name most likely meant (`merge-gate-sweper`), within two edits or a third of its
 * length, as a mistyped command is (did-you-mean.ts): in a list of long, similar names the one meant is
 * easy to miss.
 */
function nearNet(name: string, config: WorkerConfig): string | undefined {
  const names = [
    ...namedNets(config).map((n) => n.definition.name),
    ...config.nets.map((n) => n.definition.name),
  ]
  return nearestName(name, [...new Set(names)], Math.max(2, Math.floor(name.length / 3)))
}

/**
 * The net called `name` as commands name it, without a word: under GITHUB_INSTALLATION_IDS a
 * per-installation net is named per installation, `<net>:<installation>`.
 */
export function resolveNet(name: string | undefined, config: WorkerConfig): NetConfig | undefined {
  return namedNets(config).find((n) => n.definition.name === name) ?? discoveredNet(config, name)
}

/**
 * The names a command takes, for its usage error. Under `all` the installations are not known to a command,
 * so a per-installation net is shown as `<net>:<installation>` with the rule spelled out: listing the
 * (empty) named nets read "expected one of ; got board-issue-sync".
 */
function expectedNames(config: WorkerConfig): string {
  const forge = config.forge
  if (forge.kind !== 'github' || forge.installations.kind !== 'all')
    return namedNets(config)
      .map((n) => n.definition.name)
      .join(', ')
  const names = config.nets.map((n) =>
    n.definition.scope === 'installation' ? `${n.definition.name}:<installation>` : n.definition.name,
  )
  const example = config.nets.find((n) => n.definition.scope === 'installation')
  return example
    ? `${names.join(', ')} (GITHUB_INSTALLATION_IDS=all: a per-installation net is named by the installation it acts as, e.g. ${example.definition.name}:12)`
    : names.join(', ')
}

/**
 * Under GITHUB_INSTALLATION_IDS=all the installations are not known to a command: `<net>:<installation>` of
 * a per-installation net names that installation's net (its lease, its slots) whatever the App lists now.
 * The commands that run a pass check it against the listing (undiscovered-installation.ts).
 */
function discoveredNet(config: WorkerConfig, name: string | undefined): NetConfig | undefined {
  const forge = config.forge
  const match = name === undefined ? null : /^([a-z0-9-]+):([1-9][0-9]{0,14})$/.exec(name)
  if (forge.kind !== 'github' || forge.installations.kind !== 'all' || match === null) return undefined
  const installation = Number(match[2])
  const base = config.nets.find(
    (n) => n.definition.name === match[1] && n.definition.scope === 'installation',
  )
  return base && installationNets([base], forge.installations, [installation])[0]?.net
}
