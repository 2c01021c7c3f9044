/**
 * Cron schedules: node-cron's detailed validation (so an error names the field that is wrong) and the
 * schedule's interval, from which a lease's pacing follows.
 */
import cron from 'node-cron'

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
