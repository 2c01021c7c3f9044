/**
 * The shape of each net definition handed to the worker (`createWorker({ nets })`, a `--config` module's
 * `nets`), checked before the configuration reads anything from it. TypeScript checks it at build time;
 * a JavaScript embedder or a cast does not, and without this a definition missing `options` failed deep
 * in the configuration as "TypeError: Cannot convert undefined or null to object". Not a check of the
 * values (the schedule, the options: net-section.ts) nor of the lease registry (registry-check.ts).
 */
import type { ConfigIssue } from './config-error.js'

/** defineNet's required fields and what each must be. */
const REQUIRED: ReadonlyArray<readonly [field: string, kind: 'string' | 'object' | 'function']> = [
  ['name', 'string'],
  ['lease', 'string'],
  ['schedule', 'string'],
  ['description', 'string'],
  ['options', 'object'],
  ['setup', 'function'],
  ['term', 'function'],
]

/** One issue per malformed net definition, naming it and its missing or mistyped fields; empty when all fit. */
export function netDefinitionIssues(nets: readonly unknown[]): ConfigIssue[] {
  return nets.flatMap((net, index): ConfigIssue[] => {
    const fields = typeof net === 'object' && net !== null ? (net as Record<string, unknown>) : {}
    const wrong = REQUIRED.filter(([field, kind]) => !fits(fields[field], kind))
    if (wrong.length === 0) return []
    const name = typeof fields.name === 'string' ? ` (${JSON.stringify(fields.name)})` : ''
    return [
      {
        variable: `nets[${index}]${name}`,
        expected:
          'a net definition (defineNet) with ' +
          wrong
            .map(
              ([field, kind]) =>
                `\`${field}\` (${kind === 'object' ? 'an object, {} for none' : `a ${kind}`})`,
            )
            .join(', ') +
          `; got ${describe(
            net,
            wrong.map(([field]) => field),
            fields,
          )}`,
      },
    ]
  })
}

function fits(value: unknown, kind: 'string' | 'object' | 'function'): boolean {
  if (kind === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value)
  return typeof value === kind
}

/** What was given instead, in words: `no options, setup or term`, `null`. */
function describe(net: unknown, wrong: string[], fields: Record<string, unknown>): string {
  if (typeof net !== 'object' || net === null) return net === null ? 'null' : `a ${typeof net}`
  const missing = wrong.filter((field) => fields[field] === undefined)
  const mistyped = wrong
    .filter((field) => fields[field] !== undefined)
    .map((f) => `${f} as a ${typeof fields[f]}`)
  return [missing.length > 0 ? `no ${missing.join(', ')}` : '', ...mistyped].filter(Boolean).join(', ')
}
