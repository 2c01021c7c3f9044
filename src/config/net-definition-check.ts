/**
 * The shape of each net definition handed to the worker (`createWorker({ nets })`, a `--config` module's
 * `nets`), checked before the configuration reads anything from it. TypeScript checks it at build time;
 * a JavaScript embedder or a cast does not, and without this a definition missing `options` failed deep
 * in the configuration as "TypeError: Cannot convert undefined or null to object". Also the two things
 * that failed later than that: a name that is no kebab-case (accepted, it printed the variable prefix
 * `LEASECRON_NET_BAD NAME_` and failed each pass at the forge lane) and an `options` entry that is no
 * option (a TypeError from inside loadConfig). Not a check of the values (the schedule, the options'
 * variables: net-section.ts) nor of the lease registry (registry-check.ts).
 */
import { type NetScope, OVERLAP_POLICIES } from '../nets/net.js'
import type { ConfigIssue } from './config-error.js'
import { describeValue } from './describe-value.js'
import { nearestName } from './nearest-name.js'

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

/**
 * defineNet's optional fields and what each must be when given: a misspelt one (`timezone`) would be
 * ignored and leave its default in place, and one of the wrong type (`catchUpWindow: 3600000`) failed
 * inside the configuration as "text.trim is not a function".
 */
const OPTIONAL_KINDS: ReadonlyArray<readonly [field: string, kind: 'string' | 'number', example: string]> = [
  ['timeZone', 'string', "an IANA zone, e.g. 'Europe/Berlin'"],
  ['catchUp', 'string', "'latest', 'all' or 'none'"],
  ['catchUpWindow', 'string', "a duration with its unit, e.g. '6h'"],
  ['catchUpMax', 'number', 'a whole number of slots, e.g. 10'],
  ['overlap', 'string', "'buffer-one', 'buffer-all', 'skip', 'replace' or 'allow'"],
  ['dayMatch', 'string', "'any' or 'all'"],
  ['startAt', 'string', "an ISO 8601 instant, e.g. '2026-12-01T00:00:00Z'"],
  ['endAt', 'string', "an ISO 8601 instant, e.g. '2027-01-01T00:00:00Z'"],
  ['jitter', 'string', "a duration with its unit, e.g. '30s'"],
  ['maxRuns', 'number', 'a whole number of runs, e.g. 12'],
  ['pingUrl', 'string', "a URL, e.g. 'https://hc-ping.com/<uuid>'"],
  ['scope', 'string', "'global', 'installation' or 'one-installation'"],
]
const OPTIONAL = OPTIONAL_KINDS.map(([field]) => field)

/**
 * The optional fields read as one of a few words with no variable to check them on the way (`overlap`
 * and `scope` are used as given): an unknown word ran the net as the default (`overlap: 'queue'` as
 * buffer-one, `scope: 'per-installation'` as global). catchUp is checked with its variable (net-section.ts).
 */
const WORDS: Readonly<Record<string, readonly string[]>> = {
  overlap: OVERLAP_POLICIES,
  scope: ['global', 'installation', 'one-installation'] satisfies readonly NetScope[],
}

/**
 * A net's name: kebab-case, as its variables (`LEASECRON_NET_<NAME>_…`) and its forge lane are made from
 * it; at most 50 characters, so `<name>.<installation id>` still fits a lane's 63.
 */
const NET_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/
const NET_NAME_MAX = 50

/** One issue per malformed net definition, naming it and its missing or mistyped fields; empty when all fit. */
export function netDefinitionIssues(nets: unknown): ConfigIssue[] {
  if (!Array.isArray(nets)) {
    return [
      { variable: 'nets', expected: `an array of net definitions (defineNet); got ${describeValue(nets)}` },
    ]
  }
  return [...nets.flatMap(definitionIssues), ...duplicateNameIssues(nets)]
}

/** The issues of the definition at `index`. */
function definitionIssues(net: unknown, index: number): ConfigIssue[] {
  const fields = typeof net === 'object' && net !== null ? (net as Record<string, unknown>) : {}
  const wrong = REQUIRED.filter(([field, kind]) => !fits(fields[field], kind))
  const name = typeof fields.name === 'string' ? ` (${JSON.stringify(fields.name)})` : ''
  const label = `nets[${index}]${name}`
  const typos = [...misspeltFieldIssues(label, fields), ...optionalTypeIssues(label, fields)]
  if (wrong.length === 0) return [...nameIssues(label, fields), ...optionIssues(label, fields), ...typos]
  return [
    {
      variable: label,
      expected:
        'a net definition (defineNet) with ' +
        wrong
          .map(
            ([field, kind]) => `\`${field}\` (${kind === 'object' ? 'an object, {} for none' : `a ${kind}`})`,
          )
          .join(', ') +
        `; got ${describe(
          net,
          wrong.map(([field]) => field),
          fields,
        )}`,
    },
    ...typos,
  ]
}

/**
 * One issue per field that is none of defineNet's but within a typo of one (`timezone`, `catchup`,
 * `pingURL`): JavaScript and a jiti-loaded TypeScript module are not type-checked, and the misspelt field
 * would be ignored, running the net on the default it meant to change (UTC instead of its zone). Fields
 * far from every known one are left alone: an embedder may carry its own data on the object.
 */
function misspeltFieldIssues(label: string, fields: Record<string, unknown>): ConfigIssue[] {
  const known = [...REQUIRED.map(([field]) => field), ...OPTIONAL]
  return Object.keys(fields)
    .filter((key) => !known.includes(key))
    .flatMap((key) => {
      const meant =
        known.find((field) => field.toLowerCase() === key.toLowerCase().replace(/[_-]/g, '')) ??
        nearestName(key, known, 2)
      if (meant === undefined) return []
      return [
        {
          variable: `${label} ${key}`,
          expected: `a field of defineNet (${known.join(', ')}); this one is unknown${OPTIONAL.includes(meant) ? ` and would be ignored, leaving the default ${meant} in place` : ''} — did you mean ${meant}?`,
        },
      ]
    })
}

/**
 * One issue per optional field given with the wrong type (a number of milliseconds for `catchUpWindow`),
 * or as a word it does not take (`overlap: 'queue'`).
 */
function optionalTypeIssues(label: string, fields: Record<string, unknown>): ConfigIssue[] {
  return OPTIONAL_KINDS.flatMap(([field, kind, example]) => {
    const value = fields[field]
    if (value === undefined) return []
    const words = WORDS[field]
    const wrongType = typeof value !== kind
    if (!wrongType && (words === undefined || words.includes(value as string))) return []
    const got = wrongType ? describeValue(value) : JSON.stringify(value)
    return [{ variable: `${label} ${field}`, expected: `a ${kind}: ${example}; got ${got}` }]
  })
}

/**
 * One issue per net name listed more than once: each net's variables, lease, lane and ledger keys come from
 * its name, so two nets of one name would read one set of variables and record over each other's runs.
 */
function duplicateNameIssues(nets: readonly unknown[]): ConfigIssue[] {
  const at = new Map<string, number[]>()
  nets.forEach((net, index) => {
    const name = typeof net === 'object' && net !== null ? (net as { name?: unknown }).name : undefined
    if (typeof name === 'string') at.set(name, [...(at.get(name) ?? []), index])
  })
  return [...at]
    .filter(([, indexes]) => indexes.length > 1)
    .map(([name, indexes]) => ({
      variable: `nets[${indexes.join('], nets[')}] (${JSON.stringify(name)})`,
      expected: `each net listed once, under a name of its own; got the name ${JSON.stringify(name)} ${indexes.length} times`,
    }))
}

/** The name's issue, when it is no kebab-case name of at most NET_NAME_MAX characters. */
function nameIssues(label: string, fields: Record<string, unknown>): ConfigIssue[] {
  const name = String(fields.name)
  if (NET_NAME.test(name) && name.length <= NET_NAME_MAX) return []
  return [
    {
      variable: label,
      expected:
        `a \`name\` in kebab-case (words of a-z and 0-9 joined by "-", starting with a letter, e.g. ` +
        `"nightly-report"), at most ` +
        `${NET_NAME_MAX} characters: it names the net's variables (LEASECRON_NET_<NAME>_…) and its forge ` +
        `lane; got ${JSON.stringify(name)}`,
    },
  ]
}

/** One issue per `options` entry that is no option (integerOption, durationOption, stringOption…). */
function optionIssues(label: string, fields: Record<string, unknown>): ConfigIssue[] {
  const options = fields.options as Record<string, unknown>
  return Object.entries(options)
    .filter(([, option]) => !isOption(option))
    .map(([key, option]) => ({
      variable: `${label} options.${key}`,
      expected:
        'an option made by integerOption, durationOption, stringOption or repositoryListOption (an ' +
        `object with \`schema.safeParse\` and \`expected\`); got ${describeValue(option)}`,
    }))
}

function isOption(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const { schema, expected } = value as { schema?: unknown; expected?: unknown }
  const safeParse =
    typeof schema === 'object' && schema !== null ? (schema as { safeParse?: unknown }).safeParse : undefined
  return typeof safeParse === 'function' && typeof expected === 'string'
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
