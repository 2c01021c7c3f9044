/**
 * The forge meter: counts every attempt the transport sends — each retry, each redirect hop, each
 * answer whatever its status, and each attempt that got no answer — by host, API and lane (ADR-117,
 * Decision point 6). Once per UTC hour it writes one log line for the hour that ended, when the first
 * request of a later hour arrives (`forge HTTP: N requests in the hour ending …` — always "requests", so
 * log searches need one pattern), and `flush()` writes the hour being counted when the process stops.
 * It also feeds Prometheus counters and the installation's rate-limit gauges.
 *
 * Not the transport (it never sees a request, only what the transport reports) and not a rate limiter:
 * it measures, it never delays or refuses.
 */
import { Counter, Gauge, Registry } from 'prom-client'
import type { ForgeLogger } from './forge-logger.js'

/** Which GitHub API an attempt went to. */
export type ForgeApi = 'rest' | 'graphql'

/** What became of one attempt: the HTTP status, or `error` when no response arrived. */
export type ForgeAttemptOutcome = number | 'error'

/** One attempt as the transport saw it. */
export interface ForgeAttempt {
  host: string
  api: ForgeApi
  lane: string
  outcome: ForgeAttemptOutcome
}

/** One counted key and its count, as in the hourly line. */
export interface ForgeMeterEntry {
  host: string
  api: ForgeApi
  lane: string
  count: number
}

/** The structured twin of the hourly line, for log pipelines. */
export interface ForgeHourReport {
  event: 'forge_http_hour'
  total: number
  /** The instant the hour ends, `2026-09-30T15:00Z`. */
  hour: string
  entries: ForgeMeterEntry[]
  /** Set when counting began after the hour started, `14:20:05Z`. */
  countedFrom?: string
  /** Set when the hour was flushed at stop before it ended, `14:50:00Z`. */
  until?: string
  stopping?: boolean
}

/** Cumulative counts since the meter started, by key and status class. */
export interface ForgeMeterTotal extends ForgeMeterEntry {
  status: StatusClass
}

type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'error'

/** Options for `createForgeMeter`. */
export interface ForgeMeterOptions {
  logger: ForgeLogger
  /** The meter's notion of now; injectable so tests pin hours and flushes to fixed instants. */
  clock?: () => Date
  /** Where the Prometheus metrics register; a private registry when absent. */
  registry?: Registry
  /** Distinct hosts counted per hour before new hosts fold into `(other hosts)`; 64 by default. */
  maxHostsPerHour?: number
}

/** The meter the transport reports to. */
export interface ForgeMeter {
  /** Counts one attempt at the meter's now; logs the previous hour first if this one opens a later hour. */
  record(attempt: ForgeAttempt): void
  /** Updates the rate-limit gauges from a response's `x-ratelimit-*` headers; warns once below 10%. */
  observeRateLimit(host: string, headers: Record<string, string | string[] | undefined>): void
  /**
   * Logs the hour being counted, noting `until …, stopping` when it has not ended yet, and stops
   * counting it; a second flush (or a flush with nothing counted) logs nothing.
   */
  flush(): void
  /** Every attempt since the meter started, by host, API, lane and status class (tests, status). */
  totals(): ForgeMeterTotal[]
  /** The registry holding forge_requests_total and the rate-limit gauges. */
  readonly registry: Registry
}

const HOUR_MS = 3_600_000
const OTHER_HOSTS = '(other hosts)'
const LOW_BUDGET_FRACTION = 0.1

interface HourBucket {
  start: number
  countedFrom: number
  total: number
  counts: Map<string, ForgeMeterEntry>
  hosts: Set<string>
}

/** Creates a meter; counting begins at the clock's now, so a mid-hour start is noted as `counted from`. */
export function createForgeMeter(options: ForgeMeterOptions): ForgeMeter {
  const clock = options.clock ?? (() => new Date())
  const logger = options.logger
  const maxHosts = options.maxHostsPerHour ?? 64
  const registry = options.registry ?? new Registry()
  const metrics = registerMetrics(registry)
  const startedAt = clock().getTime()
  const totals = new Map<string, ForgeMeterTotal>()
  const lowBudget = new Set<string>()
  let bucket: HourBucket | undefined
  let flushed = false

  function report(done: HourBucket, now: number | undefined): void {
    if (done.total === 0) return
    const entries = [...done.counts.values()].sort(
      (a, b) => b.count - a.count || entryKey(a).localeCompare(entryKey(b)),
    )
    const end = done.start + HOUR_MS
    const fields: ForgeHourReport = {
      event: 'forge_http_hour',
      total: done.total,
      hour: hourStamp(end),
      entries,
    }
    const notes: string[] = []
    if (done.countedFrom > done.start) {
      fields.countedFrom = timeStamp(done.countedFrom)
      notes.push(`counted from ${fields.countedFrom}`)
    }
    if (now !== undefined && now < end) {
      fields.until = timeStamp(now)
      fields.stopping = true
      notes.push(`until ${fields.until}, stopping`)
    }
    const list = entries.map((e) => `${entryKey(e)}=${e.count}`).join(', ')
    const noteText = notes.length > 0 ? ` (${notes.join(', ')})` : ''
    logger.info(
      fields as unknown as Record<string, unknown>,
      `forge HTTP: ${done.total} requests in the hour ending ${fields.hour}${noteText} — ${list}`,
    )
  }

  return {
    registry,
    record(attempt) {
      const now = clock().getTime()
      const start = Math.floor(now / HOUR_MS) * HOUR_MS
      if (bucket !== undefined && bucket.start !== start) {
        report(bucket, undefined)
        bucket = undefined
      }
      if (bucket === undefined) {
        bucket = {
          start,
          countedFrom: Math.max(start, startedAt),
          total: 0,
          counts: new Map(),
          hosts: new Set(),
        }
        flushed = false
      }
      let host = attempt.host
      if (!bucket.hosts.has(host)) {
        if (bucket.hosts.size >= maxHosts) host = OTHER_HOSTS
        else bucket.hosts.add(host)
      }
      const entry = { host, api: attempt.api, lane: attempt.lane, count: 0 }
      const key = entryKey(entry)
      const counted = bucket.counts.get(key) ?? entry
      counted.count++
      bucket.counts.set(key, counted)
      bucket.total++

      const status = statusClass(attempt.outcome)
      const totalKey = `${entryKey(attempt)} ${status}`
      const total = totals.get(totalKey) ?? {
        host: attempt.host,
        api: attempt.api,
        lane: attempt.lane,
        status,
        count: 0,
      }
      total.count++
      totals.set(totalKey, total)
      metrics.requests.inc({ host: attempt.host, api: attempt.api, lane: attempt.lane, status })
    },
    observeRateLimit(host, headers) {
      const limit = numberHeader(headers['x-ratelimit-limit'])
      const remaining = numberHeader(headers['x-ratelimit-remaining'])
      const reset = numberHeader(headers['x-ratelimit-reset'])
      if (limit === undefined || remaining === undefined) return
      const resource = stringHeader(headers['x-ratelimit-resource']) ?? 'core'
      const labels = { host, resource }
      metrics.limit.set(labels, limit)
      metrics.remaining.set(labels, remaining)
      if (reset !== undefined) metrics.reset.set(labels, reset)
      const key = `${host} ${resource}`
      const low = limit > 0 && remaining < limit * LOW_BUDGET_FRACTION
      if (low && !lowBudget.has(key)) {
        lowBudget.add(key)
        logger.warn(
          { event: 'forge_rate_limit_low', host, resource, remaining, limit, reset },
          `forge rate limit: ${remaining} of ${limit} ${resource} requests left on ${host}, under 10%`,
        )
      } else if (!low && lowBudget.has(key)) {
        lowBudget.delete(key)
        logger.info(
          { event: 'forge_rate_limit_recovered', host, resource, remaining, limit, reset },
          `forge rate limit: ${remaining} of ${limit} ${resource} requests left on ${host}, recovered`,
        )
      }
    },
    flush() {
      if (flushed || bucket === undefined) return
      flushed = true
      report(bucket, clock().getTime())
      bucket = undefined
    },
    totals() {
      return [...totals.values()].map((t) => ({ ...t }))
    },
  }
}

function registerMetrics(registry: Registry) {
  // A registry shared by two forges (tests, embedders) keeps one set of metrics instead of throwing.
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined
  const requests =
    existing<Counter<'host' | 'api' | 'lane' | 'status'>>('forge_requests_total') ??
    new Counter({
      name: 'forge_requests_total',
      help: 'Forge HTTP attempts sent by the transport, by host, API, lane and status class',
      labelNames: ['host', 'api', 'lane', 'status'] as const,
      registers: [registry],
    })
  const gauge = (name: string, help: string) =>
    existing<Gauge<'host' | 'resource'>>(name) ??
    new Gauge({ name, help, labelNames: ['host', 'resource'] as const, registers: [registry] })
  return {
    requests,
    limit: gauge('forge_ratelimit_limit', 'Last x-ratelimit-limit seen, per host and resource'),
    remaining: gauge('forge_ratelimit_remaining', 'Last x-ratelimit-remaining seen, per host and resource'),
    reset: gauge(
      'forge_ratelimit_reset_seconds',
      'Last x-ratelimit-reset seen (epoch seconds), per host and resource',
    ),
  }
}

function entryKey(e: { host: string; api: ForgeApi; lane: string }): string {
  return `${e.host} ${e.api} ${e.lane}`
}

function statusClass(outcome: ForgeAttemptOutcome): StatusClass {
  if (outcome === 'error') return 'error'
  if (outcome < 300) return '2xx'
  if (outcome < 400) return '3xx'
  if (outcome < 500) return '4xx'
  return '5xx'
}

/** `2026-09-30T15:00Z`: the hour, minutes always zero, no seconds. */
function hourStamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`
}

/** `14:20:05Z`: the time of day inside the named hour. */
function timeStamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`
}

function stringHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function numberHeader(value: string | string[] | undefined): number | undefined {
  const text = stringHeader(value)
  if (text === undefined || text.trim() === '') return undefined
  const n = Number(text)
  return Number.isFinite(n) ? n : undefined
}
