/**
 * The worker's configuration, read from the environment and validated with zod before anything starts.
 *
 * Every invalid variable is reported at once — its name, what was expected and the value unless it is a
 * secret — so a deployment is fixed in one round, and the process exits with code 78 (EX_CONFIG) rather
 * than crash-looping. Unknown `LEASECRON_NET_*` variables are errors: a typo must not silently leave a
 * net on its defaults.
 */
import { MongoClient } from 'mongodb'
import { z } from 'zod'
import { type ForgeConfig, hasGitHubAppEnv, parseForgeEnv } from '../forge/forge-config.js'
import { checkLeaseUse, type LeaseDefinition, type LeasePacing, leasePacing } from '../leases.js'
import { MAX_TIMER_MS } from '../lease/clock.js'
import type { NetDefinition } from '../nets/net.js'
import { LOG_LEVELS, type LogLevel, scrubSecrets } from './logger.js'
import { checkSchedule } from './schedule.js'

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
      `invalid configuration (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${issues
        .map(
          (i) =>
            `  ${i.variable}: expected ${i.expected}${i.value === undefined ? '' : `, got ${JSON.stringify(i.value)}`}`,
        )
        .join('\n')}`,
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

export type ForgeChoice = { kind: 'github'; config: ForgeConfig } | { kind: 'sandbox'; reason: string }

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
  ['LEASECRON_STATUS_PAGE', 'true', '`false` turns the status page at `/` off (`/status` JSON stays)'],
  ['NODE_ENV', '(unset)', '`production` makes a missing GitHub App configuration an error'],
  [
    'LEASECRON_RUN_HISTORY',
    '1000',
    'runs kept per net in the run ledger (net_runs); the holder prunes older ones',
  ],
] as const

const SECRET_VARIABLES = new Set(['GITHUB_APP_PRIVATE_KEY', 'MONGO_URI'])

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

/**
 * Reads the configuration from `env` for the given nets and lease registry. Returns every problem at
 * once; never throws for bad input.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv,
  nets: readonly NetDefinition[],
  leases: readonly LeaseDefinition[],
): { ok: true; config: WorkerConfig } | { ok: false; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = []
  const value = (name: string): string | undefined => {
    const raw = env[name]
    return raw === undefined || raw.trim() === '' ? undefined : raw
  }
  const problem = (variable: string, expected: string) => {
    const raw = env[variable]
    issues.push(
      SECRET_VARIABLES.has(variable) || raw === undefined
        ? { variable, expected }
        : { variable, expected, value: raw.length > 200 ? `${raw.slice(0, 200)}…` : raw },
    )
  }
  const parse = <T>(variable: string, schema: z.ZodType<T, string>, fallback: T, expected: string): T => {
    const raw = value(variable)
    if (raw === undefined) return fallback
    const result = schema.safeParse(raw)
    if (result.success) return result.data
    problem(variable, expected)
    return fallback
  }

  let mongo: WorkerConfig['mongo']
  const mongoUri = value('MONGO_URI')
  const mongoDb = parse(
    'MONGO_DB',
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,63}$/),
    'leasecron',
    'a database name of 1–63 characters [A-Za-z0-9_-]',
  )
  if (mongoUri !== undefined) {
    try {
      // Parsing only: the driver validates the connection string on construction and connects later.
      new MongoClient(mongoUri.trim())
      mongo = { uri: mongoUri.trim(), db: mongoDb }
    } catch (error) {
      problem(
        'MONGO_URI',
        `a mongodb:// or mongodb+srv:// connection string (${scrubSecrets(error instanceof Error ? error.message : String(error)).slice(0, 160)})`,
      )
    }
  }

  const workerId = parse(
    'LEASECRON_WORKER_ID',
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9._-]{1,200}$/),
    undefined as string | undefined,
    'a host-like name of 1–200 characters [A-Za-z0-9._-]',
  )
  const port = parse(
    'PORT',
    z
      .string()
      .trim()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .refine((n) => n <= 65535),
    8080,
    'a TCP port from 0 to 65535',
  )
  const logLevel = parse(
    'LOG_LEVEL',
    z.enum(LOG_LEVELS),
    'info' as LogLevel,
    `one of ${LOG_LEVELS.join(', ')}`,
  )
  const shutdownTimeoutMs = parse(
    'LEASECRON_SHUTDOWN_TIMEOUT_MS',
    wholeMs(0, MAX_TIMER_MS),
    25_000,
    `a whole number of milliseconds from 0 to ${MAX_TIMER_MS}`,
  )
  const publicUrl = parse(
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

  const statusPage = parse(
    'LEASECRON_STATUS_PAGE',
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
    true,
    '`true` or `false`',
  )

  const runHistory = parse(
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

  let forge: ForgeChoice = { kind: 'sandbox', reason: 'no GitHub App variables are set' }
  const forgeChoice = value('LEASECRON_FORGE')?.trim()
  if (forgeChoice !== undefined && forgeChoice !== 'sandbox' && forgeChoice !== 'github') {
    problem('LEASECRON_FORGE', '`sandbox` or `github`')
  } else if (forgeChoice === 'sandbox') {
    forge = { kind: 'sandbox', reason: 'LEASECRON_FORGE=sandbox' }
  } else if (forgeChoice === 'github' || hasGitHubAppEnv(env) || env.NODE_ENV === 'production') {
    const parsed = parseForgeEnv(env)
    if (parsed.ok) forge = { kind: 'github', config: parsed.config }
    else {
      if (env.NODE_ENV === 'production' && !hasGitHubAppEnv(env)) {
        issues.push({
          variable: 'GITHUB_APP_ID',
          expected:
            'the GitHub App variables (NODE_ENV=production never falls back to the sandbox; set LEASECRON_FORGE=sandbox to use it on purpose)',
        })
      } else issues.push(...parsed.errors)
    }
  }

  const netConfigs: NetConfig[] = []
  const known = new Set<string>()
  for (const net of nets) {
    const prefix = netEnvPrefix(net.name)
    const variable = (suffix: string) => {
      known.add(prefix + suffix)
      return prefix + suffix
    }
    const enabled = parse(
      variable('ENABLED'),
      z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
      true,
      '`true` or `false`',
    )
    const scheduleVar = variable('SCHEDULE')
    let schedule = net.schedule
    let intervalMs = 60_000
    const check = checkSchedule(value(scheduleVar) ?? net.schedule)
    if (check.ok) {
      schedule = (value(scheduleVar) ?? net.schedule).trim()
      intervalMs = check.intervalMs
    } else if (env[scheduleVar] !== undefined) problem(scheduleVar, check.expected)
    else throw new Error(`net "${net.name}": its default schedule is invalid: ${check.expected}`)
    const ttlMs = parse(
      variable('TTL_MS'),
      wholeMs(3, MAX_TIMER_MS),
      undefined as number | undefined,
      `a whole number of milliseconds from 3 to ${MAX_TIMER_MS} (timers cannot wait longer)`,
    )
    const maxRetry = Math.floor(MAX_TIMER_MS / 1.2)
    const retryMs = parse(
      variable('RETRY_MS'),
      wholeMs(1, maxRetry),
      undefined as number | undefined,
      `a whole number of milliseconds from 1 to ${maxRetry}`,
    )
    const catchUp = parse(variable('CATCH_UP'), z.enum(['latest', 'none']), 'latest', '`latest` or `none`')
    const options: Record<string, unknown> = {}
    for (const [suffix, option] of Object.entries(net.options)) {
      const name = variable(suffix)
      const result = option.schema.safeParse(env[name])
      if (result.success) options[suffix] = result.data
      else if (option.secret) issues.push({ variable: name, expected: option.expected })
      else problem(name, option.expected)
    }
    const pacing = leasePacing(intervalMs, { ttlMs, retryMs })
    if (pacing.ttlMs > MAX_TIMER_MS) {
      issues.push({
        variable: variable('TTL_MS'),
        expected: `set: the schedule's pace gives a TTL over ${MAX_TIMER_MS} ms`,
      })
    }
    netConfigs.push({ net, enabled, schedule, intervalMs, pacing, catchUp, options })
  }
  for (const name of Object.keys(env)) {
    if (name.startsWith('LEASECRON_NET_') && !known.has(name)) {
      const nets_ = nets.map((n) => netEnvPrefix(n.name)).join('*, ')
      issues.push({
        variable: name,
        expected: `a known per-net variable (${nets_}* followed by ENABLED, SCHEDULE, TTL_MS, RETRY_MS, CATCH_UP or the net's options); this one is unknown`,
      })
    }
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
    issues.push({
      variable: 'worker.config.ts',
      expected: error instanceof Error ? error.message : String(error),
    })
  }

  if (issues.length > 0) return { ok: false, issues }
  return {
    ok: true,
    config: {
      mongo,
      workerId,
      port,
      logLevel,
      shutdownTimeoutMs,
      forge,
      publicUrl,
      statusPage,
      runHistory,
      nets: netConfigs,
    },
  }
}

/** The configuration with secrets replaced, for `leasecron config` and the start-up log. */
export function redactedConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    mongo: config.mongo
      ? { uri: scrubSecrets(config.mongo.uri), db: config.mongo.db }
      : '(none: in-memory store)',
    workerId: config.workerId ?? '(host name)',
    port: config.port,
    logLevel: config.logLevel,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    forge:
      config.forge.kind === 'github'
        ? {
            kind: 'github',
            appId: config.forge.config.appId,
            installationId: config.forge.config.installationId,
            apiUrl: config.forge.config.apiUrl,
            privateKey: '[redacted]',
          }
        : config.forge,
    publicUrl: config.publicUrl ?? '(unset)',
    statusPage: config.statusPage,
    runHistory: config.runHistory,
    nets: config.nets.map((n) => ({
      name: n.net.name,
      lease: n.net.lease,
      enabled: n.enabled,
      schedule: n.schedule,
      catchUp: n.catchUp,
      ...n.pacing,
      options: Object.fromEntries(
        Object.entries(n.options).map(([k, v]) => [k, n.net.options[k]?.secret ? '[redacted]' : v]),
      ),
    })),
  }
}
