/**
 * The forge meter's hourly figures (`meter.hourly()`: the last 24 hours, per lane) as forge-hour rows —
 * the one conversion between the meter's shape (each hour named by the instant it ends) and the
 * forge-hour store's (each hour named by its start).
 */
import type { ForgeMeterHour } from './meter.js'
import { type ForgeHourRow, HOUR_MS } from './forge-hour-store.js'

/** One row per hour and lane the meter counted. */
export function rowsFromMeter(hours: readonly ForgeMeterHour[]): ForgeHourRow[] {
  return hours.flatMap((h) => {
    const start = Date.parse(h.hour) - HOUR_MS
    return h.lanes.map((l) => ({
      hour: start,
      lane: l.lane,
      requests: l.requests,
      notModified: l.notModified,
      points: l.points,
    }))
  })
}
