/**
 * A cron step that reaches past its field's range (a step of 90 over the minute field's `*`): cron starts every step
 * again at the start of the field's cycle, so such a field holds one value and the schedule fires once an
 * hour at minute 0, not every 90 minutes as written. node-cron and cron-parser both accept it without a
 * word. Only steps over `*` and over a range `a-b` are judged; not the rest of the expression's validity
 * (schedule.ts asks node-cron for that first).
 */

/** Each field in node-cron's order (seconds optional): its name, range, and the cycle a step restarts in. */
const FIELDS: ReadonlyArray<{ name: string; min: number; max: number; cycle: string }> = [
  { name: 'second', min: 0, max: 59, cycle: 'minute' },
  { name: 'minute', min: 0, max: 59, cycle: 'hour' },
  { name: 'hour', min: 0, max: 23, cycle: 'day' },
  { name: 'day of month', min: 1, max: 31, cycle: 'month' },
  { name: 'month', min: 1, max: 12, cycle: 'year' },
  { name: 'day of week', min: 0, max: 7, cycle: 'week' },
]

const STEP = /^(\*|(\d+)-(\d+))\/(\d+)$/

/** Why a step of `expression` fires its field once per cycle, or undefined when none does. */
export function stepPastRange(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/)
  if (parts.length !== 5 && parts.length !== 6) return undefined
  const fields = parts.length === 6 ? FIELDS : FIELDS.slice(1)
  for (const [index, part] of parts.entries()) {
    const field = fields[index]
    if (field === undefined) continue
    for (const item of part.split(',')) {
      const step = STEP.exec(item)
      if (!step) continue
      const from = step[2] === undefined ? field.min : Number(step[2])
      const to = step[3] === undefined ? field.max : Number(step[3])
      const by = Number(step[4])
      if (by > to - from && to > from)
        return `${field.name}: the step in "${item}" reaches past ${from}–${to}, so it fires only at ${field.name} ${from} of each ${field.cycle}, not every ${by}; a step cannot run across the ${field.cycle} (write the values as a list, or a step that fits)`
    }
  }
  return undefined
}
