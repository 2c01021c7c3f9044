/**
 * The sandbox's ground truth: every forge request it received, counted by installation, method, route
 * template (`GET /repos/:owner/:repo/pulls/:number`) and status — what a test compares the client's
 * meter against. `/_sandbox/*` admin traffic is not forge traffic and is never counted. Requests that
 * spent a point of an installation's primary budget are counted apart from the rest (a 304, a
 * `GET /rate_limit` or a refusal once the budget is spent cost nothing), so a benchmark reads the
 * rate-limit points a client really paid from here. The same requests, one by one with the validator they
 * carried and why a conditional one missed, are in `log` (`sandbox-request-log.ts`), reset with the counts.
 */
import {
  SandboxRequestLog,
  type SandboxMissReason,
  type SandboxValidatorSent,
} from './sandbox-request-log.js'

/** What became of a request: the status sent, or `dropped` when the sandbox cut the connection. */
export type SandboxOutcome = number | 'dropped'

/** One counted key. `installation` is the id as a string, `app` for App-JWT requests, `anonymous` otherwise. */
export interface SandboxStatsEntry {
  installation: string
  method: string
  route: string
  status: SandboxOutcome
  count: number
  /** How many of `count` spent a point of the installation's primary budget. */
  points: number
}

/** A snapshot of the counts since the last reset. */
export interface SandboxStatsSnapshot {
  total: number
  /** When counting (re)started, ISO 8601. */
  since: string
  entries: SandboxStatsEntry[]
  /** Requests that arrived carrying a private `x-leasecron-*` header (the transport must strip them). */
  privateHeaders: number
  /** Requests answered `304 Not Modified` (free on GitHub). */
  notModified: number
  /** Requests that spent a point of an installation's primary budget. */
  points: number
}

/** What the log adds to a counted request: the URL asked, the validator carried, why it missed. */
export interface SandboxRequestDetail {
  url: string
  validator: SandboxValidatorSent
  miss?: SandboxMissReason | undefined
}

/** Counts requests; resettable. */
export class SandboxStats {
  /** Every request, one by one. */
  readonly log = new SandboxRequestLog()
  readonly #counts = new Map<string, SandboxStatsEntry>()
  readonly #clock: () => number
  #since: number
  #total = 0
  #privateHeaders = 0
  #notModified = 0
  #points = 0

  constructor(clock: () => number) {
    this.#clock = clock
    this.#since = clock()
  }

  /** Counts one request; `spent` when it cost a point of the installation's budget. */
  record(
    installation: string,
    method: string,
    route: string,
    status: SandboxOutcome,
    privateHeader: boolean,
    spent = false,
    detail?: SandboxRequestDetail,
  ): void {
    if (detail !== undefined) {
      const { url, validator, miss } = detail
      this.log.record({
        installation,
        method,
        route,
        url,
        status,
        spent,
        validator,
        ...(miss ? { miss } : {}),
      })
    }
    const key = `${installation}\u0000${method}\u0000${route}\u0000${status}`
    const entry = this.#counts.get(key) ?? { installation, method, route, status, count: 0, points: 0 }
    entry.count++
    if (spent) entry.points++
    this.#counts.set(key, entry)
    this.#total++
    if (privateHeader) this.#privateHeaders++
    if (status === 304) this.#notModified++
    if (spent) this.#points++
  }

  /** The counts, sorted by route, method, installation, status. */
  snapshot(): SandboxStatsSnapshot {
    const entries = [...this.#counts.values()]
      .map((e) => ({ ...e }))
      .sort(
        (a, b) =>
          a.route.localeCompare(b.route) ||
          a.method.localeCompare(b.method) ||
          a.installation.localeCompare(b.installation) ||
          String(a.status).localeCompare(String(b.status)),
      )
    return {
      total: this.#total,
      since: new Date(this.#since).toISOString(),
      entries,
      privateHeaders: this.#privateHeaders,
      notModified: this.#notModified,
      points: this.#points,
    }
  }

  /** Forgets every count and restarts `since`. */
  reset(): void {
    this.#counts.clear()
    this.log.reset()
    this.#total = 0
    this.#privateHeaders = 0
    this.#notModified = 0
    this.#points = 0
    this.#since = this.#clock()
  }
}

/** Sums the entries of a snapshot that match every given field (a route, a status, …). */
export function countRequests(
  snapshot: SandboxStatsSnapshot,
  filter: Partial<Omit<SandboxStatsEntry, 'count' | 'points'>> = {},
): number {
  return matching(snapshot, filter).reduce((sum, e) => sum + e.count, 0)
}

/** Sums the budget points spent by the entries that match every given field. */
export function countPoints(
  snapshot: SandboxStatsSnapshot,
  filter: Partial<Omit<SandboxStatsEntry, 'count' | 'points'>> = {},
): number {
  return matching(snapshot, filter).reduce((sum, e) => sum + e.points, 0)
}

function matching(
  snapshot: SandboxStatsSnapshot,
  filter: Partial<Omit<SandboxStatsEntry, 'count' | 'points'>>,
): SandboxStatsEntry[] {
  return snapshot.entries.filter(
    (e) =>
      (filter.installation === undefined || e.installation === filter.installation) &&
      (filter.method === undefined || e.method === filter.method) &&
      (filter.route === undefined || e.route === filter.route) &&
      (filter.status === undefined || e.status === filter.status),
  )
}
