/**
 * The forge meter's hourly figures (`meter.hourly()`: the last 24 hours, per lane) as forge-hour rows:
 * one row per hour and lane. Both name an hour by its start, so nothing is converted.
 */
import type { ForgeHourRow } from './forge-hour-store.js'
import type { ForgeMeterHour } from './meter.js'

/** One row per hour and lane the meter counted. */
export function rowsFromMeter(hours: readonly ForgeMeterHour[]): ForgeHourRow[] {
  return hours.flatMap((h) =>
    h.lanes.map((l) => ({
      hour: h.hour,
      lane: l.lane,
      requests: l.requests,
      notModified: l.notModified,
      points: l.points,
    })),
  )
}
