/**
 * The forge meter: counts every attempt the transport sends — each retry, each redirect hop, each
 * answer whatever its status, and each attempt that got no answer — by host, API and lane
 * (docs/decisions/0002-count-every-forge-request-by-lane.md), and among them the 304s (free: a
 * revalidated GET) and the points (attempts that spent a point of the installation's REST rate limit;
 * see rate-limit-points.ts). Once per UTC hour it writes one log line for the hour that ended, when the
 * first request of a later hour arrives (`forge HTTP: N requests (M not modified, P points) in the hour
 * ending …` — always "requests", so log searches need one pattern), and `flush()` writes the hour being
 * counted when the process stops. It feeds Prometheus counters and the rate-limit gauges, and keeps the
 * last 24 hours per lane for the status page (`hourly()`, `current()`).
 *
 * Not the transport (it never sees a request, only what the transport reports) and not a rate limiter:
 * it measures, it never delays or refuses.
 */
import { Registry } from 'prom-client'
import type { MetricsRegistry } from './metrics-registry.js'
import { asPromRegistry } from './prom-registry.js'
import type { Logger } from '../../logger.js'
import { type ForgeMetrics, registerForgeMetrics } from './meter-metrics.js'
import {
  type ForgeApi,
  type ForgeLaneFigures,
  HOUR_MS,
  hourStart,
  MeterHour,
  entryKey,
} from './meter-hour.js'
import { RateLimitWatch } from './rate-limit-watch.js'

export type { ForgeApi, ForgeHourReport, ForgeLaneFigures, ForgeMeterEntry } from './meter-hour.js'

/** What became of one attempt: the HTTP status, or `error` when no response arrived. */
export type ForgeAttemptOutcome = number | 'error'

/** One attempt as the transport saw it. */
export interface ForgeAttempt {
  host: string
  api: ForgeApi
  lane: string
  outcome: ForgeAttemptOutcome
  /** True when it spent a point of the installation's REST budget (the transport decides; false when absent). */
  point?: boolean
}

/** One hour of figures per lane, for the status page. */
export interface ForgeMeterHour {
  /** The start of the UTC hour, in ms (as the forge-hour store names it). */
  hour: number
  requests: number
  notModified: number
  points: number
  lanes: ForgeLaneFigures[]
}

/** Cumulative counts since the meter started, by key and status class. */
export interface ForgeMeterTotal {
  host: string
  api: ForgeApi
  lane: string
  status: StatusClass
  count: number
}

type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'error'

/** Options for `createForgeMeter`. */
export interface ForgeMeterOptions {
  logger: Logger
  /** The meter's notion of now; injectable so tests pin hours and flushes to fixed instants. */
  clock?: () => Date
  /** Where the Prometheus metrics register; a private registry when absent. */
  registry?: MetricsRegistry
  /** Distinct hosts counted per hour before new hosts fold into `(other hosts)`; 64 by default. */
  maxHostsPerHour?: number
}

/** The meter the transport reports to. */
export interface ForgeMeter {
  /** Counts one attempt at the meter's now; logs the previous hour first if this one opens a later hour. */
  record(attempt: ForgeAttempt): void
  /**
   * Updates the rate-limit gauges from a response's `x-ratelimit-*` headers; warns once below 10%.
   * `credential`: what the request authenticated as (only `installation` answers carry the installation's budget).
   */
  observeRateLimit(
    host: string,
    headers: Record<string, string | string[] | undefined>,
    credential?: 'installation' | 'app' | 'none',
    installation?: number,
  ): void
  /**
   * Logs the hour being counted, noting `until …, stopping` when it has not ended yet, and stops
   * counting it; a second flush (or a flush with nothing counted) logs nothing.
   */
  flush(): void
  /** Every attempt since the meter started, by host, API, lane and status class (tests, status). */
  totals(): ForgeMeterTotal[]
  /**
   * The last 24 clock hours, oldest first — the 23 before the current one and the current one (when
   * anything was counted in it) — each with per-lane requests, 304s and points. Hours without a request
   * are absent.
   */
  hourly(): ForgeMeterHour[]
  /** The hour being counted now (zeros and no lanes when nothing was counted in it yet). */
  current(): ForgeMeterHour
  /** The registry holding the forge counters and the rate-limit gauges. */
  readonly registry: MetricsRegistry
}

const HISTORY_HOURS = 24

/** Creates a meter; counting begins at the clock's now, so a mid-hour start is noted as `counted from`. */
export function createForgeMeter(options: ForgeMeterOptions): ForgeMeter {
  return new HourlyForgeMeter(options)
}

/** The meter: the hour being counted, the finished hours of the last day, and cumulative totals. */
class HourlyForgeMeter implements ForgeMeter {
  readonly registry: MetricsRegistry
  readonly #clock: () => Date
  readonly #logger: Logger
  readonly #maxHosts: number
  readonly #metrics: ForgeMetrics
  readonly #watch: RateLimitWatch
  readonly #startedAt: number
  readonly #totals = new Map<string, ForgeMeterTotal>()
  readonly #history: MeterHour[] = []
  #hour: MeterHour | undefined

  constructor(options: ForgeMeterOptions) {
    this.#clock = options.clock ?? (() => new Date())
    this.#logger = options.logger
    this.#maxHosts = options.maxHostsPerHour ?? 64
    this.registry = options.registry ?? new Registry()
    this.#metrics = registerForgeMetrics(asPromRegistry(this.registry))
    this.#watch = new RateLimitWatch(this.#metrics, this.#logger)
    this.#startedAt = this.#clock().getTime()
  }

  record(attempt: ForgeAttempt): void {
    const notModified = attempt.outcome === 304
    const point = attempt.point === true
    this.#hourAt(this.#clock().getTime()).add({ ...attempt, notModified, point })
    this.#countTotal(attempt)
    const { host, api, lane } = attempt
    this.#metrics.requests.inc({ host, api, lane, status: statusClass(attempt.outcome) })
    if (notModified) this.#metrics.notModified.inc({ host, api, lane })
    if (point) this.#metrics.points.inc({ host, lane })
  }

  observeRateLimit(
    host: string,
    headers: Record<string, string | string[] | undefined>,
    _credential?: 'installation' | 'app' | 'none',
    installation?: number,
  ): void {
    this.#watch.observe(host, headers, installation)
  }

  flush(): void {
    if (this.#hour === undefined) return
    this.#log(this.#hour, this.#clock().getTime())
    this.#retire()
  }

  totals(): ForgeMeterTotal[] {
    return [...this.#totals.values()].map((t) => ({ ...t }))
  }

  hourly(): ForgeMeterHour[] {
    const now = this.#clock().getTime()
    const since = hourStart(now) - (HISTORY_HOURS - 1) * HOUR_MS
    const hours = this.#history.filter((h) => h.start >= since && h !== this.#hour)
    if (this.#hour !== undefined) hours.push(this.#hour)
    return hours.map(figuresOf)
  }

  current(): ForgeMeterHour {
    const now = this.#clock().getTime()
    const start = hourStart(now)
    if (this.#hour?.start === start) return figuresOf(this.#hour)
    return { hour: start, requests: 0, notModified: 0, points: 0, lanes: [] }
  }

  /** The hour `now` falls in, logging and retiring the previous one when `now` opened a later hour. */
  #hourAt(now: number): MeterHour {
    const start = hourStart(now)
    if (this.#hour !== undefined && this.#hour.start !== start) {
      this.#log(this.#hour, undefined)
      this.#retire()
    }
    this.#hour ??= new MeterHour(start, Math.max(start, this.#startedAt), this.#maxHosts)
    return this.#hour
  }

  #retire(): void {
    if (this.#hour === undefined) return
    // A flushed hour that resumes (a request after flush) is counted afresh; keep the later record.
    const last = this.#history.at(-1)
    if (last?.start === this.#hour.start) this.#history.pop()
    this.#history.push(this.#hour)
    if (this.#history.length > HISTORY_HOURS) this.#history.shift()
    this.#hour = undefined
  }

  #log(hour: MeterHour, stoppedAt: number | undefined): void {
    const report = hour.report(stoppedAt)
    if (report === undefined) return
    this.#logger.info({ ...report.fields }, report.message)
  }

  #countTotal(attempt: ForgeAttempt): void {
    const status = statusClass(attempt.outcome)
    const key = `${entryKey(attempt)} ${status}`
    const total = this.#totals.get(key) ?? {
      host: attempt.host,
      api: attempt.api,
      lane: attempt.lane,
      status,
      count: 0,
    }
    total.count++
    this.#totals.set(key, total)
  }
}

function figuresOf(hour: MeterHour): ForgeMeterHour {
  return {
    hour: hour.start,
    requests: hour.total,
    notModified: hour.notModified,
    points: hour.points,
    lanes: hour.lanes(),
  }
}

function statusClass(outcome: ForgeAttemptOutcome): StatusClass {
  if (outcome === 'error') return 'error'
  if (outcome < 300) return '2xx'
  if (outcome < 400) return '3xx'
  if (outcome < 500) return '4xx'
  return '5xx'
}
