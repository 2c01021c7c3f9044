/**
 * One UTC hour of the forge meter, named — here, in `meter.hourly()` and in the forge-hour store alike — by
 * its start (`hourStart`, in ms); only the hourly log line says "in the hour ending …", derived from it: attempts counted by host, API and lane, with the 304s and the
 * rate-limit points among them, and the hourly log line that reports it. New hosts beyond a bound fold
 * into `(other hosts)` so a misconfigured base URL cannot grow the line without end.
 *
 * Not the meter's clock or roll-over (meter.ts decides when an hour ends) and not cumulative totals.
 */

/** Which GitHub API an attempt went to. */
export type ForgeApi = 'rest' | 'graphql'

/** One counted key and its counts, as in the hourly line. */
export interface ForgeMeterEntry {
  host: string
  api: ForgeApi
  lane: string
  count: number
  /** Answers 304 Not Modified among `count`. */
  notModified: number
  /** Rate-limit points spent among `count`. */
  points: number
}

/** The structured twin of the hourly line, for log pipelines. */
export interface ForgeHourReport {
  event: 'forge_http_hour'
  total: number
  notModified: number
  points: number
  /** The instant the hour ends, `2026-09-30T15:00Z` (the log line's words; derived from the hour's start). */
  hour: string
  entries: ForgeMeterEntry[]
  /** Set when counting began after the hour started, `14:20:05Z`. */
  countedFrom?: string
  /** Set when the hour was flushed at stop before it ended, `14:50:00Z`. */
  until?: string
  stopping?: boolean
}

export const HOUR_MS = 3_600_000

/** The start of the UTC hour holding `ms`: the name of that hour everywhere in leasecron. */
export function hourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS
}
const OTHER_HOSTS = '(other hosts)'

/** What one counted attempt adds. */
export interface HourHit {
  host: string
  api: ForgeApi
  lane: string
  notModified: boolean
  point: boolean
}

/** Per-lane figures of an hour (status page, `meter.hourly()`). */
export interface ForgeLaneFigures {
  lane: string
  requests: number
  notModified: number
  points: number
}

/** The counts of one hour. */
export class MeterHour {
  total = 0
  notModified = 0
  points = 0
  readonly #counts = new Map<string, ForgeMeterEntry>()
  readonly #hosts = new Set<string>()

  constructor(
    readonly start: number,
    readonly countedFrom: number,
    private readonly maxHosts: number,
  ) {}

  /** Counts one attempt. */
  add(hit: HourHit): void {
    let host = hit.host
    if (!this.#hosts.has(host)) {
      if (this.#hosts.size >= this.maxHosts) host = OTHER_HOSTS
      else this.#hosts.add(host)
    }
    const fresh = { host, api: hit.api, lane: hit.lane, count: 0, notModified: 0, points: 0 }
    const key = entryKey(fresh)
    const entry = this.#counts.get(key) ?? fresh
    this.#counts.set(key, entry)
    entry.count++
    this.total++
    if (hit.notModified) {
      entry.notModified++
      this.notModified++
    }
    if (hit.point) {
      entry.points++
      this.points++
    }
  }

  /** Entries by count (descending), then key. */
  entries(): ForgeMeterEntry[] {
    return [...this.#counts.values()]
      .map((e) => ({ ...e }))
      .sort((a, b) => b.count - a.count || entryKey(a).localeCompare(entryKey(b)))
  }

  /** The hour's figures per lane, busiest first. */
  lanes(): ForgeLaneFigures[] {
    const byLane = new Map<string, ForgeLaneFigures>()
    for (const e of this.#counts.values()) {
      const lane = byLane.get(e.lane) ?? { lane: e.lane, requests: 0, notModified: 0, points: 0 }
      lane.requests += e.count
      lane.notModified += e.notModified
      lane.points += e.points
      byLane.set(e.lane, lane)
    }
    return [...byLane.values()].sort((a, b) => b.requests - a.requests || a.lane.localeCompare(b.lane))
  }

  /**
   * The hourly line and its structured twin; `stoppedAt` (a flush before the hour ended) adds the
   * `until …, stopping` note. Undefined when nothing was counted.
   */
  report(stoppedAt: number | undefined): { fields: ForgeHourReport; message: string } | undefined {
    if (this.total === 0) return undefined
    const end = this.start + HOUR_MS
    const entries = this.entries()
    const fields: ForgeHourReport = {
      event: 'forge_http_hour',
      total: this.total,
      notModified: this.notModified,
      points: this.points,
      hour: hourStamp(end),
      entries,
    }
    const notes: string[] = []
    if (this.countedFrom > this.start) {
      fields.countedFrom = timeStamp(this.countedFrom)
      notes.push(`counted from ${fields.countedFrom}`)
    }
    if (stoppedAt !== undefined && stoppedAt < end) {
      fields.until = timeStamp(stoppedAt)
      fields.stopping = true
      notes.push(`until ${fields.until}, stopping`)
    }
    const list = entries.map((e) => `${entryKey(e)}=${e.count}`).join(', ')
    const noteText = notes.length > 0 ? ` (${notes.join(', ')})` : ''
    const figures = `${this.total} requests (${this.notModified} not modified, ${this.points} points)`
    return {
      fields,
      message: `forge HTTP: ${figures} in the hour ending ${fields.hour}${noteText} — ${list}`,
    }
  }
}

export function entryKey(e: { host: string; api: ForgeApi; lane: string }): string {
  return `${e.host} ${e.api} ${e.lane}`
}

/** `2026-09-30T15:00Z`: the hour, minutes always zero, no seconds. */
export function hourStamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`
}

/** `14:20:05Z`: the time of day inside the named hour. */
function timeStamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`
}
