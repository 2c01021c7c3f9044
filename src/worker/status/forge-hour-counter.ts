/**
 * ForgeHourCounter: this replica's forge spend per UTC hour and lane for the last 24 hours, in memory,
 * built by sampling the meter's cumulative per-lane totals and charging what each lane spent since the
 * previous sample to the hour of the sample.
 *
 * Why sampling: the meter counts each attempt but keeps only the hour in progress; this module must not
 * reach into the transport. The worker samples at each hour's end (and every minute between), so at most
 * the few milliseconds around an hour boundary can land in the neighbouring hour.
 *
 * Not a meter and not a store: it remembers figures the meter gave, and hands the hour's rows to a
 * ForgeHourStore so other replicas can read them.
 */
import { type ForgeHourRow, HOUR_MS, hourStart } from './forge-hour-store.js'

/** One lane's figures since the meter started. `null`: the meter does not count that figure. */
export interface LaneTotals {
  requests: number
  notModified: number | null
  points: number | null
}

/** How many hours the counter keeps, the current one included. */
export const HOURS_KEPT = 24

export class ForgeHourCounter {
  readonly #read: () => ReadonlyMap<string, LaneTotals>
  readonly #previous = new Map<string, LaneTotals>()
  readonly #hours = new Map<string, ForgeHourRow>()

  /** `read` gives the meter's cumulative totals per lane; counting starts from zero (the meter's start). */
  constructor(read: () => ReadonlyMap<string, LaneTotals>) {
    this.#read = read
  }

  /** Charges each lane's spend since the previous sample to the hour of `now`; returns that hour's rows. */
  sample(now: Date): ForgeHourRow[] {
    const hour = hourStart(now.getTime())
    for (const [lane, total] of this.#read()) {
      const before = this.#previous.get(lane)
      this.#previous.set(lane, { ...total })
      const key = `${hour}|${lane}`
      const row = this.#hours.get(key) ?? {
        hour,
        lane,
        requests: 0,
        notModified: total.notModified === null ? null : 0,
        points: total.points === null ? null : 0,
      }
      row.requests += total.requests - (before?.requests ?? 0)
      row.notModified = grow(row.notModified, total.notModified, before?.notModified)
      row.points = grow(row.points, total.points, before?.points)
      this.#hours.set(key, row)
    }
    const oldest = hour - (HOURS_KEPT - 1) * HOUR_MS
    for (const [key, row] of this.#hours) if (row.hour < oldest) this.#hours.delete(key)
    return this.rows().filter((r) => r.hour === hour)
  }

  /** The kept rows, ordered by hour then lane. */
  rows(): ForgeHourRow[] {
    return [...this.#hours.values()]
      .map((r) => ({ ...r }))
      .sort((a, b) => a.hour - b.hour || a.lane.localeCompare(b.lane))
  }
}

function grow(current: number | null, total: number | null, before: number | null | undefined) {
  if (total === null) return current
  return (current ?? 0) + total - (before ?? 0)
}

/** Per-lane totals from the meter's `totals()` (requests only: it counts no 304s or points yet). */
export function laneTotalsFromMeter(
  totals: readonly { lane: string; count: number }[],
): ReadonlyMap<string, LaneTotals> {
  const lanes = new Map<string, LaneTotals>()
  for (const t of totals) {
    const lane = lanes.get(t.lane) ?? { requests: 0, notModified: null, points: null }
    lane.requests += t.count
    lanes.set(t.lane, lane)
  }
  return lanes
}
