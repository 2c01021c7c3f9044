/**
 * The forge-hour store contract: each replica's forge spend per UTC hour and lane, kept for the last 24
 * hours, so any replica's status page can draw the whole installation's spend.
 *
 * What it is: a small table of absolute figures keyed by owner, hour and lane. A replica writes its own
 * rows (setting, not adding, so a repeated write changes nothing) and reads everyone's, summed per hour and
 * lane. What it is not: the meter (which counts requests as they happen) or a budget; it only remembers.
 *
 * Both twins (MemoryForgeHourStore, MongoForgeHourStore) give identical answers to identical calls; one
 * conformance suite runs them both. A rejection means the answer did not arrive.
 */
import type { StoreCallOptions } from '../../store-call/store-call.js'
import { HOUR_MS, hourStart } from './meter-hour.js'

export { HOUR_MS, hourStart } from './meter-hour.js'

/** One hour of one lane's spend. `hour` is the start of the UTC hour, in whole ms (see meter-hour.ts). */
export interface ForgeHourRow {
  hour: number
  lane: string
  requests: number
  /** Conditional GETs answered 304. */
  notModified: number
  /** Rate-limit points spent. */
  points: number
}

export interface ForgeHourStore {
  /** Sets `owner`'s figures for each row's hour and lane (replacing what that owner wrote before). */
  put(owner: string, rows: readonly ForgeHourRow[], options?: StoreCallOptions): Promise<void>
  /**
   * Every owner's figures for hours from `window.since` to `window.until` (both included), summed per
   * hour and lane, ordered by hour then lane; without `except`'s rows when given (a replica adds its own
   * current figures from its meter instead). At most FORGE_HOUR_ROWS_READ stored rows are read, the
   * newest hours first (then by owner and lane), so no number of rows a writer stored makes a read large.
   */
  read(window: ForgeHourWindow, options?: ForgeHourReadOptions): Promise<ForgeHourRow[]>
  /**
   * Deletes every owner's rows of hours before `window.since` or after `window.until` (dated ahead: no
   * meter writes a future hour); resolves how many rows were deleted.
   */
  prune(window: ForgeHourWindow, options?: StoreCallOptions): Promise<number>
}

/** The hours a read or a prune keeps: from `since` to `until`, both included. */
export interface ForgeHourWindow {
  since: Date
  until: Date
}

/**
 * The most stored rows one read takes: 24 hours × 40 lanes × 10 owners (replicas, restarts among them)
 * is 9,600; a row is about 150 bytes, so a read stays near 1.5 MB whatever was stored.
 */
export const FORGE_HOUR_ROWS_READ = 10_000

/**
 * The window the page draws at `now`: the last HOURS_KEPT hours, the current one included, and one hour
 * ahead for a replica whose clock runs a little early at an hour's end. Pruned outside it.
 */
export function hoursWindow(now: number): ForgeHourWindow {
  const current = hourStart(now)
  return { since: new Date(current - (HOURS_KEPT - 1) * HOUR_MS), until: new Date(current + HOUR_MS) }
}

/**
 * The order a read keeps rows in before the cut (both twins): newest hour first, then by owner and lane
 * in code-unit order, as Mongo compares ASCII strings.
 */
export function newestFirst(
  a: { hour: number; owner: string; lane: string },
  b: { hour: number; owner: string; lane: string },
): number {
  return b.hour - a.hour || compare(a.owner, b.owner) || compare(a.lane, b.lane)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

export interface ForgeHourReadOptions extends StoreCallOptions {
  /** An owner whose rows the answer leaves out. */
  except?: string
}

/** How many hours are kept and drawn, the current one included. */
export const HOURS_KEPT = 24

/** Sums rows of several owners per hour and lane, ordered by hour then lane (both twins answer with it). */
export function sumRows(rows: Iterable<ForgeHourRow>): ForgeHourRow[] {
  const sums = new Map<string, ForgeHourRow>()
  for (const row of rows) {
    const key = `${row.hour} ${row.lane}`
    const sum = sums.get(key)
    if (!sum) sums.set(key, { ...row })
    else {
      sum.requests += row.requests
      sum.notModified += row.notModified
      sum.points += row.points
    }
  }
  return [...sums.values()].sort((a, b) => a.hour - b.hour || a.lane.localeCompare(b.lane))
}

/** Checks one row before it is stored; throws a TypeError naming the field and what was expected. */
export function checkRow(row: ForgeHourRow): void {
  const whole = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0
  if (!whole(row.hour) || row.hour % HOUR_MS !== 0)
    throw new TypeError(`forge-hour store: hour must be the start of a UTC hour in ms, got ${row.hour}`)
  if (typeof row.lane !== 'string' || row.lane === '')
    throw new TypeError(`forge-hour store: lane must be a non-empty string, got ${String(row.lane)}`)
  for (const field of ['requests', 'notModified', 'points'] as const) {
    const v = row[field]
    if (!whole(v))
      throw new TypeError(`forge-hour store: ${field} must be a whole number ≥ 0, got ${String(v)}`)
  }
}
