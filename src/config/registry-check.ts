/**
 * The configuration module's nets against the lease registry: each net's lease registered and used once,
 * no net declared twice. A fault here is a configuration error (78) named `leases`: the configuration may
 * be any --config module or createWorker's own lists, so no file name is given.
 */
import { checkLeaseUse, type LeaseDefinition } from '../leases.js'
import type { NetDefinition } from '../nets/net.js'
import { describeValue } from './describe-value.js'
import type { EnvReader } from './env-reader.js'

/** The nets' leases are registered, each used once, and no net is declared twice. */
export function checkRegistry(
  r: EnvReader,
  nets: readonly NetDefinition[],
  leases: readonly LeaseDefinition[],
) {
  const entry = leaseEntryIssue(leases)
  if (entry) {
    r.issues.push(entry)
    return
  }
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

/**
 * Why `leases` is not a list of defineLease results, naming the first entry that is not one (a bare
 * name, `leases: ['l1']`, read as no lease at all before); undefined when it is. A plain JavaScript
 * configuration module reaches here unchecked by the types.
 */
function leaseEntryIssue(leases: unknown): { variable: string; expected: string } | undefined {
  const expected =
    "a lease from defineLease(name, description), e.g. defineLease('my-lease', 'what it elects')"
  if (!Array.isArray(leases))
    return {
      variable: 'leases',
      expected: `an array of leases, each ${expected}; got ${describeValue(leases)}`,
    }
  const index = leases.findIndex(
    (l: unknown) => typeof l !== 'object' || l === null || typeof (l as { name?: unknown }).name !== 'string',
  )
  if (index < 0) return undefined
  const got: unknown = leases[index]
  const hint =
    typeof got === 'string' ? `; write defineLease(${quoted(got)}, '<what it elects>') in its place` : ''
  return {
    variable: `leases[${index}]`,
    expected: `${expected}; got ${typeof got === 'string' ? `the string ${JSON.stringify(got)}` : describeValue(got)}${hint}`,
  }
}

/** `name` as JavaScript source: in the single quotes the other hints use, when it needs no escaping. */
function quoted(name: string): string {
  return /^[\w .-]*$/.test(name) ? `'${name}'` : JSON.stringify(name)
}
