/**
 * The configuration module's nets against the lease registry: each net's lease registered and used once,
 * no net declared twice. A fault here is a configuration error (78) named `leases`: the configuration may
 * be any --config module or createWorker's own lists, so no file name is given.
 */
import { checkLeaseUse, type LeaseDefinition } from '../leases.js'
import type { NetDefinition } from '../nets/net.js'
import type { EnvReader } from './env-reader.js'

/** The nets' leases are registered, each used once, and no net is declared twice. */
export function checkRegistry(
  r: EnvReader,
  nets: readonly NetDefinition[],
  leases: readonly LeaseDefinition[],
) {
  try {
    checkLeaseUse(
      leases,
      nets.map((n) => ({ net: n.name, lease: n.lease })),
    )
    const names = new Set<string>()
    for (const n of nets) {
      if (names.has(n.name)) throw new Error(`net "${n.name}" is declared twice`)
      names.add(n.name)
    }
  } catch (error) {
    r.issues.push({
      variable: 'leases',
      expected: `each net's lease registered once and used by one net; ${(error instanceof Error ? error.message : String(error)).replace(/^leases: /, '')}`,
    })
  }
}
