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
import type { StoreCallOptions } from '../store-call/store-call.js'
import { HOUR_MS } from './meter-hour.js'

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
   * Every owner's figures for hours ≥ `since`, summed per hour and lane, ordered by hour then lane;
   * without `except`'s rows when given (a replica adds its own current figures from its meter instead).
   */
  read(since: Date, options?: ForgeHourReadOptions): Promise<ForgeHourRow[]>
  /** Deletes every owner's rows of hours before `before`; resolves how many rows were deleted. */
  prune(before: Date, options?: StoreCallOptions): Promise<number>
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
