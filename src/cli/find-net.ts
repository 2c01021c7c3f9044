/** The configured net a command names (`once <net>`, `history <net>`), or a usage error listing the nets. */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import type { Io } from './io.js'

/** The net called `name`; undefined after saying which nets there are. */
export function findNet(
  command: string,
  name: string | undefined,
  config: WorkerConfig,
  io: Io,
): NetConfig | undefined {
  const net = config.nets.find((n) => n.net.name === name)
  if (!net)
    io.err(
      `leasecron ${command}: expected one of ${config.nets.map((n) => n.net.name).join(', ')}; got ${name ?? 'nothing'}`,
    )
  return net
}
