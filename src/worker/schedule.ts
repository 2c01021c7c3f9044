/**
 * Cron schedules: node-cron's detailed validation (so an error names the field that is wrong), the
 * schedule's interval, from which a lease's pacing follows, and its slots — the fire instants a pass
 * serves, which the run ledger keys on.
 *
 * Slots are computed by cron-parser, not node-cron: node-cron fires the ticks but can only look forward
 * from now, while a slot is "the most recent fire time at or before an instant" (a takeover's first pass,
 * a `once --slot` trigger). Both read the same 5/6-field syntax in the same time zone.
 */
import { CronExpressionParser } from 'cron-parser'
import cron from 'node-cron'

/** The time zone every schedule is read in (node-cron's ticks and the ledger's slots alike). */
export const SCHEDULE_TIME_ZONE = 'UTC'

export type ScheduleCheck = { ok: true; intervalMs: number } | { ok: false; expected: string }

const EXPECTED = 'a cron expression of 5 or 6 fields (node-cron syntax, e.g. "*/5 * * * *")'

/** Validates `expression` and returns its shortest gap between two of its next 50 firings. */
export function checkSchedule(expression: string): ScheduleCheck {
  const text = expression.trim()
  if (text === '') return { ok: false, expected: `${EXPECTED}; got an empty value` }
  const detail = cron.validateDetailed(text)
  if (!detail.valid) {
    const why = detail.errors
      .map((e) => (e.field === 'expression' ? e.message : `field ${e.field}: ${e.message}`))
      .join('; ')
    return { ok: false, expected: `${EXPECTED}; ${why}` }
  }
  const task = cron.createTask(text, () => {})
  try {
    const runs = task.getNextRuns(50).map((d) => d.getTime())
    let intervalMs = Number.POSITIVE_INFINITY
    for (let i = 1; i < runs.length; i++) intervalMs = Math.min(intervalMs, runs[i]! - runs[i - 1]!)
    if (!Number.isFinite(intervalMs) || intervalMs <= 0)
      return { ok: false, expected: `${EXPECTED}; it never fires twice` }
    return { ok: true, intervalMs }
  } finally {
    void task.destroy()
  }
}

/**
 * The schedule's most recent fire time at or before `instant` (whole seconds, as cron has). `expression`
 * must have passed checkSchedule; throws cron-parser's error otherwise.
 */
export function slotAtOrBefore(expression: string, instant: Date): Date {
  // cron-parser's prev() is strictly before its current date; 1 ms later makes an exact fire time its own slot.
  const parsed = CronExpressionParser.parse(expression.trim(), {
    currentDate: new Date(instant.getTime() + 1),
    tz: SCHEDULE_TIME_ZONE,
  })
  return parsed.prev().toDate()
}
