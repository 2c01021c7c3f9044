/**
 * The worker's configuration, read from the environment and validated with zod before anything starts.
 *
 * Every invalid variable is reported at once — its name, what was expected and the value unless it is a
 * secret — so a deployment is fixed in one round, and the process exits with code 78 (EX_CONFIG) rather
 * than crash-looping. Every unknown `LEASECRON_*` variable is an error: a typo must not silently leave the
 * worker or a net on its defaults. One parser per section (store, process, forge, nets) feeds one list
 * of issues.
 */
import { ConnectionString } from 'mongodb-connection-string-url'
import { z } from 'zod'
import { type ForgeConfig, hasGitHubAppEnv, parseForgeEnv } from '../forge/forge-config.js'
import type { ForgeEnvIssue } from '../forge/forge-config-error.js'
import { MAX_TIMER_MS } from '../lease/clock.js'
import { checkLeaseUse, type LeaseDefinition, type LeasePacing, leasePacing } from '../leases.js'
import type { NetDefinition } from '../nets/net.js'
import { parseDuration } from '../nets/options.js'
import { LOG_LEVELS, type LogLevel } from './logger.js'
import { checkSchedule } from './schedule.js'
import { isSecretVariable, rememberSecret, rememberSecrets, scrubSecrets } from './scrub.js'

/** One problem with one variable. `value` is omitted for secrets. */
export interface ConfigIssue {
  variable: string
  expected: string
  value?: string
}

/** The configuration was rejected; the process must exit 78 without starting anything. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly code = 'CONFIG_INVALID'
  readonly exitCode = 78
  constructor(readonly issues: ConfigIssue[]) {
    super(
      scrubSecrets(
        `invalid configuration (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${issues
          .map(
            (i) =>
              `  ${i.variable}: expected ${i.expected}${i.value === undefined ? '' : `, got ${JSON.stringify(i.value)}`}`,
          )
          .join('\n')}`,
      ),
    )
  }
}

/** One net as this worker runs it. */
export interface NetConfig {
  net: NetDefinition
  enabled: boolean
  schedule: string
  intervalMs: number
  pacing: LeasePacing
  /** A term's first pass: `latest` serves the schedule's most recent slot unless the ledger has it; `none` waits. */
  catchUp: 'latest' | 'none'
  options: Record<string, unknown>
}

/**
 * Which forge the worker talks to. `unchecked` only when the caller said it needs no forge (`status`,
 * `config`): the App variables' problems are kept there instead of rejecting the configuration.
 */
export type ForgeChoice =
  | { kind: 'github'; config: ForgeConfig }
  | { kind: 'sandbox'; reason: string }
  | { kind: 'unchecked'; issues: ConfigIssue[] }

export interface LoadConfigOptions {
  /** False for commands that use no forge: missing or bad App variables are then not errors. */
  needsForge?: boolean
}

export interface WorkerConfig {
  mongo: { uri: string; db: string } | undefined
  /** Replaces the host-name part of the owner id; the random suffix stays. */
  workerId: string | undefined
  port: number
  logLevel: LogLevel
  shutdownTimeoutMs: number
  forge: ForgeChoice
  publicUrl: string | undefined
  /** Whether `GET /` serves the status page (LEASECRON_STATUS_PAGE); `/status` answers either way. */
  statusPage: boolean
  /** Runs kept per net in the run ledger; the holder prunes older ones. */
  runHistory: number
  /** LEASECRON_FORGE_CACHE_MB: bytes the forge cache may hold (memory, and the shared Mongo twin); 0 = off. */
  forgeCacheMb: number
  nets: NetConfig[]
}

/** The global variables the worker reads, with their defaults and meaning (README, `config`). */
export const GLOBAL_VARIABLES = [
  [
    'MONGO_URI',
    '(unset: in-memory store, one process)',
    'MongoDB connection string; set it to elect across replicas',
  ],
  ['MONGO_DB', 'leasecron', 'database for leases and the nets’ stores'],
  [
    'LEASECRON_WORKER_ID',
    'host name',
    'replaces the host part of the owner id (a random suffix is always added)',
  ],
  ['PORT', '8080', 'HTTP port of /healthz, /readyz and /metrics (0 picks a free one)'],
  ['LOG_LEVEL', 'info', `one of ${LOG_LEVELS.join(', ')}`],
  ['LEASECRON_SHUTDOWN_TIMEOUT_MS', '25000', 'how long a stop waits for passes in flight'],
  [
    'LEASECRON_FORGE',
    '(auto)',
    '`sandbox` forces the local sandbox forge; `github` requires the App variables',
  ],
  ['PUBLIC_URL', '(unset)', 'where runs can be read; target URL of synthetic statuses'],
  [
    'LEASECRON_FORGE_CACHE_MB',
    '64',
    'MiB of forge answers kept to revalidate GETs (free 304s); in Mongo too when MONGO_URI is set; 0 turns it off',
  ],
  ['LEASECRON_STATUS_PAGE', 'true', '`false` turns the status page at `/` off (`/status` JSON stays)'],
  ['NODE_ENV', '(unset)', '`production` makes a missing GitHub App configuration an error'],
  [
    'LEASECRON_RUN_HISTORY',
    '1000',
    'runs kept per net in the run ledger (net_runs); the holder prunes older ones',
  ],
] as const

/**
 * `LEASECRON_*` names other parts of the worker read (the run ledger's history, the forge cache, the
 * status page): known here so they are not refused as typos; their values are parsed where they are used.
 */
const OTHER_GLOBAL_NAMES: string[] = []
/** Variables of the test suite and the benchmarks, never read by the worker: not typos. */
const TOOL_PREFIXES = ['LEASECRON_TEST_', 'LEASECRON_BENCH_', 'LEASECRON_MODEL_']
/** LEASECRON_CHROMIUM: the browser the status page's test drives (README, "Development"); not the worker's. */
const TOOL_NAMES = ['LEASECRON_CHROMIUM']

/** Variables never echoed in a configuration error (scrub.ts's secret variables, and the URIs whole). */
const isUnechoed = (name: string) => isSecretVariable(name) || name === 'MONGO_URI' || name === 'MONGO_URL'

/**
 * The shortest TTL accepted: a term renews every TTL/3, and below a second a renewal's round trip to the
 * store takes the whole term, so the net would never stay elected. A value under it is most likely a
 * unit slip (`30` meant as seconds).
 */
export const MIN_TTL_MS = 1_000

/** `LEASECRON_NET_` + the net name in upper snake case. */
export function netEnvPrefix(netName: string): string {
  return `LEASECRON_NET_${netName.toUpperCase().replace(/-/g, '_')}_`
}

const wholeMs = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,16}$/, `a whole number of milliseconds from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `a whole number of milliseconds from ${min} to ${max}`)

/** Reads variables and collects every problem; each section parser takes one. */
interface EnvReader {
  readonly env: NodeJS.ProcessEnv
  readonly issues: ConfigIssue[]
  /** The variable's value, or undefined when unset or blank (blank means "the default"). */
  value(name: string): string | undefined
  /** Records that `variable` is wrong; its value is shown unless it is a secret. */
  problem(variable: string, expected: string): void
  /** Parses `variable` with `schema`; the fallback when unset, or (recording a problem) when invalid. */
  parse<T>(variable: string, schema: z.ZodType<T, string>, fallback: T, expected: string): T
}

function envReader(env: NodeJS.ProcessEnv): EnvReader {
  const issues: ConfigIssue[] = []
  const value = (name: string): string | undefined => {
    const raw = env[name]
    return raw === undefined || raw.trim() === '' ? undefined : raw
  }
  const problem = (variable: string, expected: string) => {
    const raw = env[variable]
    issues.push(
      isUnechoed(variable) || raw === undefined
        ? { variable, expected }
        : { variable, expected, value: scrubSecrets(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw) },
    )
  }
  return {
    env,
    issues,
    value,
    problem,
    parse(variable, schema, fallback, expected) {
      const raw = value(variable)
      if (raw === undefined) return fallback
      const result = schema.safeParse(raw)
      if (result.success) return result.data
      problem(variable, expected)
      return fallback
    },
  }
}

/**
 * Reads the configuration from `env` for the given nets and lease registry. Returns every problem at
 * once; never throws for bad input (a net's invalid schedule in the configuration module is a problem too).
 * Remembers the secret variables' values for scrub.ts, so nothing printed afterwards carries them.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv,
  nets: readonly NetDefinition[],
  leases: readonly LeaseDefinition[],
  options: LoadConfigOptions = {},
): { ok: true; config: WorkerConfig } | { ok: false; issues: ConfigIssue[] } {
  // Before anything can print a value: every later line, error and ledger entry is scrubbed of these.
  rememberSecrets(env, secretOptionVariables(nets))
  const reader = envReader(env)
  const mongo = readStore(reader)
  const process_ = readProcess(reader)
  const forge = readForge(reader, options.needsForge ?? true)
  const runHistory = readRunHistory(reader)
  const statusPage = readStatusPage(reader)
  const forgeCacheMb = readForgeCacheMb(reader)
  const known = new Set<string>()
  const netConfigs = nets.map((net) => readNet(reader, net, known))
  refuseUnknownVariables(reader, nets, known)
  checkRegistry(reader, nets, leases)
  if (reader.issues.length > 0) return { ok: false, issues: reader.issues }
  return {
    ok: true,
    config: { mongo, ...process_, forge, forgeCacheMb, runHistory, statusPage, nets: netConfigs },
  }
}

/** The variables of the nets' options marked secret, whose values must never leave the process. */
function secretOptionVariables(nets: readonly NetDefinition[]): string[] {
  return nets.flatMap((net) =>
    Object.entries(net.options)
      .filter(([, option]) => option.secret)
      .map(([suffix]) => netEnvPrefix(net.name) + suffix),
  )
}

/** LEASECRON_FORGE_CACHE_MB: MiB the forge cache may hold (memory, and the shared Mongo twin); 0 = off. */
function readForgeCacheMb(r: EnvReader): number {
  return r.parse(
    'LEASECRON_FORGE_CACHE_MB',
    z
      .string()
      .trim()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .refine((n) => n <= 65_536),
    64,
    'a whole number of MiB from 0 (off) to 65536',
  )
}

/** LEASECRON_STATUS_PAGE: whether `/` serves the status page (`/status` JSON is always served). */
function readStatusPage(r: EnvReader): boolean {
  return r.parse(
    'LEASECRON_STATUS_PAGE',
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
    true,
    '`true` or `false`',
  )
}

/** LEASECRON_RUN_HISTORY: how many runs per net the run ledger keeps (the holder prunes the rest). */
function readRunHistory(r: EnvReader): number {
  return r.parse(
    'LEASECRON_RUN_HISTORY',
    z
      .string()
      .trim()
      .regex(/^\d{1,9}$/)
      .transform(Number)
      .refine((n) => n >= 1),
    1000,
    'a whole number of runs from 1 to 999999999',
  )
}

/** MONGO_URI and MONGO_DB; MONGO_URL alone (the tests' name) is refused with a hint. */
function readStore(r: EnvReader): WorkerConfig['mongo'] {
  const uri = r.value('MONGO_URI')
  const db = r.parse(
    'MONGO_DB',
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,63}$/),
    'leasecron',
    'a database name of 1–63 characters [A-Za-z0-9_-]',
  )
  if (uri === undefined) {
    if (r.value('MONGO_URL') !== undefined)
      r.problem(
        'MONGO_URL',
        'MONGO_URI: the worker reads MONGO_URI (MONGO_URL is only the test suite’s variable); rename it, or unset MONGO_URL to run on the in-memory store',
      )
    // A database named without a server is a deployment that meant Mongo: falling back to the in-memory
    // store would run every replica as its own holder.
    else if (r.value('MONGO_DB') !== undefined)
      r.problem(
        'MONGO_URI',
        `a MongoDB connection string: MONGO_DB is set, so a database was meant, but MONGO_URI is ${r.env.MONGO_URI === undefined ? 'unset' : 'blank'} (without it the worker would run alone on the in-memory store); set MONGO_URI, or unset MONGO_DB to run in memory`,
      )
    return undefined
  }
  try {
    // Parsing only, with the parser the driver itself starts from, so that reading the configuration does
    // not load the driver (a library user's process brings its own). Option values are the driver's to
    // judge: the CLI asks it (mongoUriRefusal) before a command uses Mongo.
    rememberUriSecrets(new ConnectionString(uri.trim()))
    return { uri: uri.trim(), db }
  } catch (error) {
    const issue = mongoUriIssue(error)
    r.problem(issue.variable, issue.expected)
    return undefined
  }
}

/** The URI's password and secret option values, so that one seen alone (in a driver's error) is scrubbed. */
function rememberUriSecrets(uri: ConnectionString): void {
  rememberSecret(uri.password)
  for (const [name, value] of uri.searchParams)
    if (/password|secret|token|authMechanismProperties/i.test(name)) rememberSecret(value)
}

/** MONGO_URI's problem, from the parser's or the driver's refusal (secrets scrubbed, never the URI). */
export function mongoUriIssue(error: unknown): ConfigIssue {
  const reason = scrubSecrets(error instanceof Error ? error.message : String(error)).slice(0, 160)
  return {
    variable: 'MONGO_URI',
    expected: `a mongodb:// or mongodb+srv:// connection string the driver accepts; the driver said: ${reason}`,
  }
}

/** The process's own settings: worker id, HTTP port, log level, shutdown timeout, public URL. */
function readProcess(
  r: EnvReader,
): Pick<WorkerConfig, 'workerId' | 'port' | 'logLevel' | 'shutdownTimeoutMs' | 'publicUrl'> {
  return {
    workerId: r.parse(
      'LEASECRON_WORKER_ID',
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9._-]{1,200}$/),
      undefined as string | undefined,
      'a host-like name of 1–200 characters [A-Za-z0-9._-]',
    ),
    port: r.parse(
      'PORT',
      z
        .string()
        .trim()
        .regex(/^\d{1,5}$/)
        .transform(Number)
        .refine((n) => n <= 65535),
      8080,
      'a TCP port from 0 to 65535',
    ),
    logLevel: r.parse('LOG_LEVEL', z.enum(LOG_LEVELS), 'info' as LogLevel, `one of ${LOG_LEVELS.join(', ')}`),
    shutdownTimeoutMs: r.parse(
      'LEASECRON_SHUTDOWN_TIMEOUT_MS',
      wholeMs(0, MAX_TIMER_MS),
      25_000,
      `a whole number of milliseconds from 0 to ${MAX_TIMER_MS}`,
    ),
    publicUrl: readPublicUrl(r),
  }
}

/**
 * PUBLIC_URL: an http(s) URL without credentials. It is printed on synthetic statuses and in errors a
 * pass records, so a `user:password@` in it would be published: refused, without echoing the value.
 */
function readPublicUrl(r: EnvReader): string | undefined {
  const raw = r.value('PUBLIC_URL')
  if (raw !== undefined && hasUrlCredentials(raw)) {
    r.issues.push({
      variable: 'PUBLIC_URL',
      expected:
        'an http(s) URL without credentials; this one carries a user or password (user:password@), which would be published on every status it links from (value not shown)',
    })
    return undefined
  }
  return r.parse(
    'PUBLIC_URL',
    z
      .string()
      .trim()
      .url()
      .refine((u) => /^https?:\/\//.test(u))
      .transform((u) => u.replace(/\/+$/, '')),
    undefined as string | undefined,
    'an http(s) URL',
  )
}

/** Whether `text` parses as a URL whose authority carries a user name or password. */
function hasUrlCredentials(text: string): boolean {
  try {
    const url = new URL(text.trim())
    return url.username !== '' || url.password !== ''
  } catch {
    return false
  }
}

/**
 * The forge: the sandbox when asked for, or when nothing points at GitHub; the App otherwise. Anything
 * that names GitHub (LEASECRON_FORGE=github, an App variable, GITHUB_API_URL, NODE_ENV=production) makes
 * every missing App variable an error, each named, never a silent fall-back to the sandbox.
 */
function readForge(r: EnvReader, needsForge: boolean): ForgeChoice {
  const choice = r.value('LEASECRON_FORGE')?.trim()
  if (choice !== undefined && choice !== 'sandbox' && choice !== 'github') {
    r.problem('LEASECRON_FORGE', '`sandbox` or `github`')
    return { kind: 'sandbox', reason: 'LEASECRON_FORGE is invalid' }
  }
  if (choice === 'sandbox') return { kind: 'sandbox', reason: 'LEASECRON_FORGE=sandbox' }
  const why = githubReason(r, choice)
  if (why === undefined) return { kind: 'sandbox', reason: 'no GitHub App variables are set' }
  const parsed = parseForgeEnv(r.env)
  if (parsed.ok) {
    // The key may come from a file: its content is as secret as GITHUB_APP_PRIVATE_KEY's.
    rememberSecret(parsed.config.privateKey)
    return { kind: 'github', config: parsed.config }
  }
  const issues = parsed.errors.map((issue) => explainForgeIssue(issue, why))
  if (!needsForge) return { kind: 'unchecked', issues }
  r.issues.push(...issues)
  return { kind: 'sandbox', reason: 'the GitHub App variables are invalid' }
}

/** Why the worker must use a GitHub App, or undefined when nothing asks for one. */
function githubReason(r: EnvReader, choice: string | undefined): string | undefined {
  if (choice === 'github') return 'LEASECRON_FORGE=github'
  if (hasGitHubAppEnv(r.env)) return 'some GitHub App variables are set'
  if (r.env.NODE_ENV === 'production') return 'NODE_ENV=production'
  if (r.value('GITHUB_API_URL') !== undefined) return 'GITHUB_API_URL is set'
  return undefined
}

/** Adds why an App is expected to a missing variable's message, so the fix is plain. */
function explainForgeIssue(issue: ForgeEnvIssue, why: string): ConfigIssue {
  if (!/not set|neither is set/.test(issue.expected)) return issue
  return {
    ...issue,
    expected: `${issue.expected} (required: ${why}; the sandbox is never used silently — LEASECRON_FORGE=sandbox uses it on purpose)`,
  }
}

/** One net's ENABLED, SCHEDULE, TTL_MS, RETRY_MS and options; records the names it read in `known`. */
function readNet(r: EnvReader, net: NetDefinition, known: Set<string>): NetConfig {
  const prefix = netEnvPrefix(net.name)
  const variable = (suffix: string) => {
    known.add(prefix + suffix)
    return prefix + suffix
  }
  const enabled = r.parse(
    variable('ENABLED'),
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
    true,
    '`true` or `false`',
  )
  const { schedule, intervalMs } = readSchedule(r, net, variable('SCHEDULE'))
  const pacing = readPacing(r, intervalMs, variable('TTL_MS'), variable('RETRY_MS'))
  const catchUp = r.parse(variable('CATCH_UP'), z.enum(['latest', 'none']), 'latest', '`latest` or `none`')
  const options: Record<string, unknown> = {}
  for (const [suffix, option] of Object.entries(net.options)) {
    const name = variable(suffix)
    const result = option.schema.safeParse(r.env[name])
    if (result.success) options[suffix] = result.data
    else if (option.secret) r.issues.push({ variable: name, expected: option.expected })
    else r.problem(name, option.expected)
  }
  return { net, enabled, schedule, intervalMs, pacing, catchUp, options }
}

function readSchedule(
  r: EnvReader,
  net: NetDefinition,
  scheduleVar: string,
): { schedule: string; intervalMs: number } {
  const text = r.value(scheduleVar) ?? net.schedule
  const check = checkSchedule(text)
  if (check.ok) return { schedule: text.trim(), intervalMs: check.intervalMs }
  // A net's own schedule comes from the configuration module (the shipped one or the user's): its fault
  // is a configuration error too (78), named after the net rather than a variable.
  if (r.value(scheduleVar) === undefined)
    r.issues.push({
      variable: `net "${net.name}" (worker configuration module)`,
      expected: `its schedule ${JSON.stringify(net.schedule)} to be valid (or ${scheduleVar} set to one): ${check.expected}`,
    })
  else r.problem(scheduleVar, check.expected)
  return { schedule: net.schedule, intervalMs: 60_000 }
}

/**
 * TTL_MS and RETRY_MS over the schedule's default pacing. A retry below TTL/30 would campaign in a hot
 * loop against the store, so it is refused with that reason rather than accepted.
 */
function readPacing(r: EnvReader, intervalMs: number, ttlVar: string, retryVar: string): LeasePacing {
  const ttlMs = r.parse(
    ttlVar,
    wholeMs(MIN_TTL_MS, MAX_TIMER_MS),
    undefined as number | undefined,
    ttlExpected(r.value(ttlVar)),
  )
  const ttlForFloor = leasePacing(intervalMs, { ttlMs }).ttlMs
  const minRetry = Math.max(1, Math.ceil(ttlForFloor / 30))
  const maxRetry = Math.floor(MAX_TIMER_MS / 1.2)
  const retryMs = r.parse(
    retryVar,
    wholeMs(minRetry, maxRetry),
    undefined as number | undefined,
    `a whole number of milliseconds from ${minRetry} (TTL/30: a shorter pause, or 0, would campaign in a hot loop against the store) to ${maxRetry}`,
  )
  const pacing = leasePacing(intervalMs, { ttlMs, retryMs })
  if (pacing.ttlMs > MAX_TIMER_MS) {
    r.issues.push({
      variable: ttlVar,
      expected: `set: the schedule's pace gives a TTL over ${MAX_TIMER_MS} ms`,
    })
  }
  return pacing
}

/** What a TTL must be; for a small whole number, the value it likely meant in milliseconds. */
function ttlExpected(raw: string | undefined): string {
  const expected = `a whole number of milliseconds from ${MIN_TTL_MS} (a shorter term cannot be renewed in time, so the net would never stay elected) to ${MAX_TIMER_MS} (timers cannot wait longer)`
  const n = raw !== undefined && /^\d{1,4}$/.test(raw.trim()) ? Number(raw) : undefined
  if (n === undefined || n >= MIN_TTL_MS || n === 0) return expected
  return `${expected}; the value is in milliseconds — if ${n} meant seconds, write ${n * 1000}`
}

/** Every `LEASECRON_*` the worker does not read is refused: a typo must not leave a default in place. */
function refuseUnknownVariables(r: EnvReader, nets: readonly NetDefinition[], knownNet: Set<string>): void {
  const known = new Set<string>([...GLOBAL_VARIABLES.map(([name]) => name), ...OTHER_GLOBAL_NAMES])
  const prefixes = nets.map((n) => `${netEnvPrefix(n.name)}*`).join(', ')
  for (const name of Object.keys(r.env)) {
    if (!name.startsWith('LEASECRON_') || TOOL_PREFIXES.some((p) => name.startsWith(p))) continue
    if (TOOL_NAMES.includes(name)) continue
    if (known.has(name) || knownNet.has(name)) continue
    const near = nearestName(name, [...known, ...knownNet])
    r.issues.push({
      variable: name,
      expected: name.startsWith('LEASECRON_NET_')
        ? `a known per-net variable (${prefixes} followed by ENABLED, SCHEDULE, TTL_MS, RETRY_MS or the net's options); this one is unknown${near ? ` — did you mean ${near}?` : ''}`
        : `a known variable (${[...known].filter((n) => n.startsWith('LEASECRON_')).join(', ')}); this one is unknown${near ? ` — did you mean ${near}?` : ''}`,
    })
  }
}

/** The known name closest to a typo by edit distance, for the hint; undefined when none is close. */
function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    // A name that extends a known one (LEASECRON_FORGE_KIND) most likely meant that one.
    const distance = editDistance(name, candidate) - (name.startsWith(candidate) ? 0.5 : 0)
    if (!best || distance < best.distance) best = { name: candidate, distance }
  }
  return best && best.distance <= Math.max(3, Math.floor(name.length / 4)) ? best.name : undefined
}

/** Levenshtein distance (insertions, deletions, substitutions), two rows at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
    previous = current
  }
  return previous[b.length]!
}

/** The nets' leases are registered, each used once, and no net is declared twice. */
function checkRegistry(r: EnvReader, nets: readonly NetDefinition[], leases: readonly LeaseDefinition[]) {
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
      variable: 'worker.config.ts',
      expected: error instanceof Error ? error.message : String(error),
    })
  }
}

/** Milliseconds as a user writes a duration: the largest unit that divides it (`60m` → `1h`, `90s`). */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}

/**
 * The configuration with secrets replaced, for `leasecron config` and the start-up log. Durations of
 * the nets' options are written with their unit (`60m`, `192h`), as the variables take them, so the
 * output can be pasted back.
 */
export function redactedConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    mongo: config.mongo
      ? { uri: scrubSecrets(config.mongo.uri), db: config.mongo.db }
      : '(none: in-memory store)',
    workerId: config.workerId ?? '(host name)',
    port: config.port,
    logLevel: config.logLevel,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    forge: redactedForge(config.forge),
    publicUrl: config.publicUrl ?? '(unset)',
    statusPage: config.statusPage,
    runHistory: config.runHistory,
    forgeCacheMb: config.forgeCacheMb,
    nets: config.nets.map((n) => ({
      name: n.net.name,
      lease: n.net.lease,
      enabled: n.enabled,
      schedule: n.schedule,
      catchUp: n.catchUp,
      ...n.pacing,
      options: Object.fromEntries(
        Object.entries(n.options).map(([k, v]) => [k, optionText(n.net.options[k], v)]),
      ),
    })),
  }
}

function redactedForge(forge: ForgeChoice): Record<string, unknown> {
  if (forge.kind === 'github')
    return {
      kind: 'github',
      appId: forge.config.appId,
      installationId: forge.config.installationId,
      apiUrl: forge.config.apiUrl,
      privateKey: '[redacted]',
    }
  if (forge.kind === 'unchecked')
    return {
      kind: 'unchecked',
      note: 'this command uses no forge; `run` and `once` would refuse these',
      issues: forge.issues,
    }
  return forge
}

/** An option's value as its variable takes it: redacted when secret, a duration with its unit. */
function optionText(option: NetDefinition['options'][string] | undefined, value: unknown): unknown {
  if (option?.secret) return '[redacted]'
  if (option && typeof value === 'number' && parseDuration(option.defaultText) !== undefined)
    return formatDuration(value)
  return value
}
