/**
 * The configured net a command names (`once <net>`, `history <net>`), or a usage error listing the nets
 * (and, without --config, naming a worker.config.* in the working directory).
 */
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
  // Under GITHUB_INSTALLATION_IDS a per-installation net is named per installation: `<net>:<installation>`.
  const nets = namedNets(config)
  const net = nets.find((n) => n.net.name === name) ?? discoveredNet(config, name)
  if (net) return net
  const hint = localConfigHint(configPath)
  io.err(
    `leasecron ${command}: expected one of ${nets.map((n) => n.net.name).join(', ')}; got ${name ?? 'nothing'}${hint ? ` (${hint})` : ''}`,
  )
  return undefined
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
  const base = config.nets.find((n) => n.net.name === match[1] && n.net.scope === 'installation')
  return base && installationNets([base], forge.installations, [installation])[0]?.net
}
