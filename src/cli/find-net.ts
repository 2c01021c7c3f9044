/**
 * The configured net a command names (`once <net>`, `history <net>`), or a usage error listing the nets
 * (and, without --config, naming a worker.config.* in the working directory).
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import type { Io } from './io.js'
import { localConfigHint } from './local-config-hint.js'
import { namedNets } from '../worker/installation-nets.js'

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
  const net = nets.find((n) => n.net.name === name)
  if (net) return net
  const hint = localConfigHint(configPath)
  io.err(
    `leasecron ${command}: expected one of ${nets.map((n) => n.net.name).join(', ')}; got ${name ?? 'nothing'}${hint ? ` (${hint})` : ''}`,
  )
  return undefined
}
