/**
 * node-cron's next fire times in UTC, without Intl: the schedule check (schedule.ts) compares them with
 * the slot calculator's and takes the schedule's interval from them.
 *
 * Why not node-cron's own `getNextRuns`: it reads every candidate instant's wall fields through an
 * `Intl.DateTimeFormat` (two of them, one with zone names), and the first formatter a process builds
 * touches ~8 MiB of ICU's data in the `node` binary, which then stays resident: an idle worker on Node 24
 * carried it for a check it made once at start (bench/NOTES.md, "Where an idle worker's memory goes").
 * In UTC the wall fields are the Date's UTC fields, so no formatter is needed.
 *
 * What it reads is node-cron's own parse of the expression (`cron.validateDetailed(...).fields`, the
 * value sets node-cron's matcher tests), and it matches them by node-cron's rule: an instant fires when
 * every field holds its value (second, minute, hour, day of month, month, and day of week, Sunday 0 —
 * both day fields, not either). The day tokens (`L`, `15W`, `L-3`, `5L`, `1#2`) are node-cron's own
 * calendar arithmetic: for a field holding one, this answers undefined and the caller asks node-cron.
 * Not a cron parser and not the slot calculator (schedule.ts, cron-parser).
 */

/** The value sets node-cron parsed an expression into (the shape of `validateDetailed`'s `fields`). */
export interface NodeCronFields {
  second: readonly number[]
  minute: readonly number[]
  hour: readonly number[]
  dayOfMonth: readonly (number | string)[]
  month: readonly number[]
  dayOfWeek: readonly (number | string)[]
}

const DAY_MS = 86_400_000
/** node-cron's own horizon for one next match: a hundred years of days, then it gives up. */
const MAX_DAYS = 366 * 100

const numbers = (values: readonly (number | string)[]): values is readonly number[] =>
  values.every((v) => typeof v === 'number')

const ascending = (values: readonly number[]) => [...new Set(values)].sort((a, b) => a - b)

/**
 * The first `count` instants (ms since the epoch) after `after` at which node-cron fires `fields` on a
 * UTC clock, ascending; undefined when a day field holds a token (ask node-cron), or when no match lies
 * within node-cron's horizon (node-cron then throws its own error).
 */
export function nodeCronUtcTicks(fields: NodeCronFields, count: number, after: number): number[] | undefined {
  const { dayOfMonth, dayOfWeek } = fields
  if (!numbers(dayOfMonth) || !numbers(dayOfWeek)) return undefined
  const days = {
    dayOfMonth: new Set(dayOfMonth),
    month: new Set(fields.month),
    dayOfWeek: new Set(dayOfWeek),
  }
  const times = {
    hours: ascending(fields.hour),
    minutes: ascending(fields.minute),
    seconds: ascending(fields.second),
  }
  const ticks: number[] = []
  let from = after
  while (ticks.length < count) {
    const next = nextTick(days, times, from)
    if (next === undefined) return undefined
    ticks.push(next)
    from = next
  }
  return ticks
}

interface DaySets {
  dayOfMonth: ReadonlySet<number>
  month: ReadonlySet<number>
  dayOfWeek: ReadonlySet<number>
}

interface TimeLists {
  hours: readonly number[]
  minutes: readonly number[]
  seconds: readonly number[]
}

/** node-cron's next match strictly after `from` (whole seconds, as its walker compares). */
function nextTick(days: DaySets, times: TimeLists, from: number): number | undefined {
  const base = Math.floor(from / 1000) * 1000
  let day = Math.floor(base / DAY_MS) * DAY_MS
  for (let i = 0; i < MAX_DAYS; i++, day += DAY_MS) {
    const date = new Date(day)
    const matches =
      days.month.has(date.getUTCMonth() + 1) &&
      days.dayOfMonth.has(date.getUTCDate()) &&
      days.dayOfWeek.has(date.getUTCDay())
    if (!matches) continue
    const found = firstTimeAfter(day, times, base)
    if (found !== undefined) return found
  }
  return undefined
}

/** The day's first matching second after `base`, or undefined when the day's matches are all past. */
function firstTimeAfter(
  day: number,
  { hours, minutes, seconds }: TimeLists,
  base: number,
): number | undefined {
  for (const hour of hours)
    for (const minute of minutes)
      for (const second of seconds) {
        const at = day + ((hour * 60 + minute) * 60 + second) * 1000
        if (at > base) return at
      }
  return undefined
}
