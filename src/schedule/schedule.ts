/**
 * Cron schedules: node-cron's detailed validation (so an error names the field that is wrong and its
 * range), the schedule's interval, from which a lease's pacing follows, the next firing time, and its
 * slots — the fire instants a pass serves, which the run ledger keys on.
 *
 * Slots are computed by cron-parser, not node-cron: node-cron fires the ticks but can only look forward
 * from now, while a slot is "the most recent fire time at or before an instant" (a takeover's first pass,
 * a `once --slot` trigger). Both read the same 5/6-field syntax in the same time zone, and checkSchedule
 * accepts an expression only when both do and agree on its next fire times (`1-0 * * * *` passes node-cron
 * and is refused by cron-parser; a day of month and a day of week both restricted are read differently).
 */
import { CronExpressionParser } from 'cron-parser'
import cron from 'node-cron'
import { BothDaysWalk, type WallWalk } from './both-days-walk.js'
import { pinCronLocale } from './cron-locale.js'
import { rememberedSlot } from './slot-memo.js'
import { stepPastRange } from './cron-step-check.js'
import { type NodeCronFields, nodeCronUtcTicks } from './cron-utc-ticks.js'
import { gapEnd, occurrences, offsetAt, wallOf } from './zoned-time.js'

const DAY_MS = 86_400_000

// Before any slot is computed: cron-parser's dates never ask Intl for the system locale (cron-locale.ts).
pinCronLocale()

/**
 * The zone a schedule is read in when its net names none, and the one checkSchedule compares node-cron and
 * cron-parser in (their agreement on the fields does not depend on the zone).
 */
export const SCHEDULE_TIME_ZONE = 'UTC'

export type ScheduleCheck = { ok: true; intervalMs: number } | { ok: false; expected: string }

/**
 * How a day of month and a day of week, both restricted, combine: `any` fires on a day matching either
 * (Vixie cron's rule, cron-parser's reading), `all` on a day matching both (node-cron's). There is no
 * default: a schedule restricting both fields without one is refused (checkSchedule).
 */
export type DayMatch = 'any' | 'all'
export const DAY_MATCHES: readonly DayMatch[] = ['any', 'all']

/** A cron expression, or one with the DayMatch its two restricted day fields combine by. */
export type Schedule = string | { expression: string; dayMatch?: DayMatch | undefined }

/** The Schedule of a net (or a plan of one): its expression and its DAY_MATCH. */
export function scheduleOf(net: { schedule: string; dayMatch?: DayMatch | undefined }): Schedule {
  return net.dayMatch === undefined ? net.schedule : { expression: net.schedule, dayMatch: net.dayMatch }
}

/** The expression of `schedule`, trimmed. */
export function scheduleText(schedule: Schedule): string {
  return (typeof schedule === 'string' ? schedule : schedule.expression).trim()
}

/** The day match that applies to `schedule`: only where both day fields are restricted. */
function dayMatchOf(schedule: Schedule): DayMatch | undefined {
  if (typeof schedule === 'string' || !bothDaysRestricted(schedule.expression)) return undefined
  return schedule.dayMatch
}

/** A key for the caches below: the expression, and the day match where one applies. */
function scheduleKey(schedule: Schedule): string {
  const dayMatch = dayMatchOf(schedule)
  return dayMatch === undefined ? scheduleText(schedule) : `${scheduleText(schedule)}\u0000${dayMatch}`
}

const EXPECTED = 'a cron expression of 5 or 6 fields (node-cron syntax, e.g. "*/5 * * * *")'

/** Each field's name as a person says it and its range, in node-cron's order (seconds optional). */
const FIELDS: Record<string, { name: string; range: string }> = {
  second: { name: 'second', range: '0–59' },
  minute: { name: 'minute', range: '0–59' },
  hour: { name: 'hour', range: '0–23' },
  dayOfMonth: { name: 'day of month', range: '1–31' },
  month: { name: 'month', range: '1–12 or jan–dec' },
  dayOfWeek: { name: 'day of week', range: '0–7 or sun–sat (0 and 7 are Sunday)' },
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/** The month field of `expression` in words (`February`, `April or June`), as written when not plain numbers. */
function monthsOf(expression: string): string {
  const fields = expression.trim().split(/\s+/)
  const month = fields[fields.length === 6 ? 4 : 3] ?? ''
  const names = month.split(',').map((m) => (/^\d+$/.test(m) ? MONTHS[Number(m) - 1] : undefined))
  return names.every((n) => n !== undefined) ? names.join(' or ') : `month ${JSON.stringify(month)}`
}

/** `minute: 61 is out of range 0–59` — the field, the value a person wrote and what the field takes. */
function describeFieldError(
  error: { field: string; value?: unknown; message: string },
  expression: string,
): string {
  // node-cron refuses `0 0 30 2 *` as an impossible day: say so, not that 30 is out of 1–31.
  if (error.field === 'dayOfMonth' && /impossible day of month/.test(error.message))
    return `day of month: ${String(error.value)} never occurs in ${monthsOf(expression)}, so the schedule would never fire`
  const field = FIELDS[error.field]
  // node-cron's own words would repeat "expected … got" before the configuration error's own "got".
  if (!field)
    return error.message.replace(/^expected 5 or 6 fields but got (\d+)$/, (_, n: string) =>
      n === '1' ? 'it has 1 field' : `it has ${n} fields`,
    )
  const value = String(error.value ?? '')
  const outOfRange = /^\d+$/.test(value)
  return outOfRange
    ? `${field.name}: ${value} is out of range ${field.range}`
    : `${field.name}: ${JSON.stringify(value)} is not a valid value (range ${field.range}; *, lists a,b, ranges a-b and steps */n allowed)`
}

/**
 * Checks already made, by expression. Computing 50 firings costs a few milliseconds per expression (node-cron
 * formats each candidate instant through Intl; sameFieldsCheck spares most expressions that), and a worker
 * checks each net's schedule when the CLI reads the configuration and again in createWorker: unremembered,
 * ten nets added ~45 ms to every cold start. Bounded by the distinct expressions a process reads.
 */
const checked = new Map<string, ScheduleCheck>()

/**
 * Validates `schedule` and returns its shortest gap between two of its next 50 firings. An expression that
 * restricts both day fields needs a DayMatch (`{ expression, dayMatch }`); without one it is refused.
 */
export function checkSchedule(schedule: Schedule): ScheduleCheck {
  const key = scheduleKey(schedule)
  let check = checked.get(key)
  if (!check) {
    check = computeCheck(scheduleText(schedule), typeof schedule === 'string' ? undefined : schedule.dayMatch)
    checked.set(key, check)
  }
  return check
}

function computeCheck(text: string, dayMatch: DayMatch | undefined): ScheduleCheck {
  if (text === '') return { ok: false, expected: `${EXPECTED}; got an empty value` }
  const detail = cron.validateDetailed(text)
  if (!detail.valid) {
    const reasons = detail.errors.map((e) => describeFieldError(e, text))
    return { ok: false, expected: `${EXPECTED}; ${reasons.join('; ')}` }
  }
  const pastRange = stepPastRange(text)
  if (pastRange !== undefined) return { ok: false, expected: `${EXPECTED}; ${pastRange}` }
  if (bothDaysRestricted(text)) return bothDaysCheck(text, dayMatch)
  const same = sameFieldsCheck(text, detail.fields)
  if (same) return same
  const runs = nextFireTimes(text, detail.fields, 50)
  const disagreement = slotDisagreement(text, runs)
  if (disagreement !== undefined) return { ok: false, expected: `${EXPECTED}; ${disagreement}` }
  return intervalCheck(runs)
}

/** Why a schedule restricting both day fields needs a DAY_MATCH, as its refusal says it. */
export const DAY_MATCH_NEEDED =
  'a DAY_MATCH, as the day of month and the day of week are both restricted: choose how they combine — `any` fires on a day matching either (Vixie cron), `all` on a day matching both (e.g. `0 0 13 * 5` with `all` is Friday the 13th)'

/**
 * Both day fields restricted: refused without a day match; with one, the next 50 wall times of that
 * reading (cron-parser's for `any`, BothDaysWalk's for `all`) give the interval. node-cron is not asked:
 * it knows only `all`, and the walk is the slot calculator either way.
 */
function bothDaysCheck(text: string, dayMatch: DayMatch | undefined): ScheduleCheck {
  // The expression is valid cron: what is missing is the choice, not a field.
  if (dayMatch === undefined) return { ok: false, expected: DAY_MATCH_NEEDED }
  try {
    const walls = wallTimes({ expression: text, dayMatch }, Date.now())
    const runs: number[] = []
    for (let i = 0; i < 50; i++) runs.push(walls.next().getTime())
    return intervalCheck(runs)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return { ok: false, expected: `${EXPECTED}; the slot calculator (cron-parser) refuses it: ${reason}` }
  }
}

/** The shortest gap between consecutive `runs`, or why there is none. */
function intervalCheck(runs: readonly number[]): ScheduleCheck {
  let intervalMs = Number.POSITIVE_INFINITY
  for (let i = 1; i < runs.length; i++) intervalMs = Math.min(intervalMs, runs[i]! - runs[i - 1]!)
  if (!Number.isFinite(intervalMs) || intervalMs <= 0)
    return { ok: false, expected: `${EXPECTED}; it never fires twice` }
  return { ok: true, intervalMs }
}

/** node-cron's field names, which cron-parser's parsed fields share. */
const FIELD_NAMES = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const

/**
 * The check without node-cron's ticking, when it cannot disagree with the slot calculator: both libraries
 * read every field of `text` into the same set of plain numbers, and one day field is written `*` (so
 * node-cron's "both days match" and cron's "either day matches" are the same rule). Then a time fires for
 * one exactly when it does for the other, and cron-parser's next 50 slots (UTC) are node-cron's ticks.
 * Undefined otherwise (`L`, `W`, `#`, both days restricted, a nickname, an expression cron-parser refuses):
 * the full comparison decides. Why: node-cron computes its next runs through `Intl` (a time-zone formatter
 * per candidate instant; ~22 ms to create ICU's first one, 45–85 ms for the check in a cold process), and
 * every command that reads the configuration checks each schedule before its first store call.
 */
function sameFieldsCheck(
  text: string,
  fields: Partial<Record<(typeof FIELD_NAMES)[number], readonly unknown[]>> | undefined,
): ScheduleCheck | undefined {
  if (fields === undefined || bothDaysRestricted(text) || text.split(/\s+/).length < 5) return undefined
  let parsed: ReturnType<typeof CronExpressionParser.parse>
  try {
    // A currentDate of our own: without one cron-parser starts from luxon's system zone, whose name is Intl's.
    parsed = CronExpressionParser.parse(text, { currentDate: new Date(), tz: SCHEDULE_TIME_ZONE })
  } catch {
    return undefined
  }
  for (const name of FIELD_NAMES)
    if (!sameNumbers(fields[name] ?? [], parsed.fields[name].values)) return undefined
  const runs: number[] = []
  for (let i = 0; i < 50; i++) runs.push(parsed.next().getTime())
  return intervalCheck(runs)
}

/** Whether `a` and `b` hold the same plain numbers (order and repeats aside; 7 and 0 both Sunday). */
function sameNumbers(a: readonly unknown[], b: readonly unknown[]): boolean {
  const set = (values: readonly unknown[]) =>
    values.every((v) => typeof v === 'number')
      ? [...new Set(values.map((v) => (v === 7 ? 0 : v)))].sort().join()
      : undefined
  const left = set(a)
  return left !== undefined && left === set(b)
}

/**
 * Why the slot calculator (cron-parser) cannot serve an expression node-cron accepted, or undefined when
 * it can: it must parse it and find the same next fire times node-cron will tick at, or every pass would
 * fail at run time (`1-0 * * * *`: node-cron reads a wrapping range, cron-parser refuses it).
 */
function slotDisagreement(text: string, ticks: readonly number[]): string | undefined {
  const first = ticks[0]
  if (first === undefined) return undefined
  try {
    const parsed = CronExpressionParser.parse(text, {
      currentDate: new Date(first - 1),
      tz: SCHEDULE_TIME_ZONE,
    })
    for (const tick of ticks.slice(0, 5)) {
      const slot = parsed.next().getTime()
      if (slot !== tick)
        return `its ticks and its slots disagree (node-cron fires at ${new Date(tick).toISOString()}, the slot calculator says ${new Date(slot).toISOString()}); write it so both read it alike`
    }
    return undefined
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    const range = /^Invalid range: (\d+)-(\d+)/.exec(reason)
    return range
      ? `the range ${range[1]}-${range[2]} runs backwards; write low-high (a range that wraps is a list: e.g. ${range[1]}-59,0-${range[2]} for minutes)`
      : `the slot calculator (cron-parser) refuses it: ${reason}`
  }
}

/** Whether both day fields of `expression` are restricted (neither is `*`). */
function bothDaysRestricted(expression: string): boolean {
  const fields = expression.trim().split(/\s+/)
  const offset = fields.length === 6 ? 1 : 0
  return fields[2 + offset] !== '*' && fields[4 + offset] !== '*'
}

/**
 * node-cron's next `count` fire times (ms), on a UTC clock when its fields allow (cron-utc-ticks.ts: no
 * Intl, so a worker whose schedules are plain numbers never touches ICU's data); node-cron's own walk for
 * the day tokens (`L`, `W`, `#`), in the process's zone as node-cron reads it.
 */
function nextFireTimes(expression: string, fields: NodeCronFields | undefined, count: number): number[] {
  const utc = fields === undefined ? undefined : nodeCronUtcTicks(fields, count, Date.now())
  if (utc !== undefined) return utc
  const task = cron.createTask(expression.trim(), () => {})
  try {
    return task.getNextRuns(count).map((d) => d.getTime())
  } finally {
    void task.destroy()
  }
}

/**
 * How a schedule meets a daylight-saving change (docs/schedules.md, "Time zones and daylight saving"):
 * - `wall-clock`: at most one firing per hour (a single second and a single minute), e.g. `30 2 * * *` or
 *   `0 * * * *`. Each matching wall time runs once: a time inside the spring-forward gap at the first
 *   instant after the jump, a time inside the repeated hour at its first occurrence only.
 * - `elapsed`: more often than hourly (several seconds or minutes, e.g. a minute step of 15, or `* * * * *`). Every real
 *   instant whose wall time matches runs: no pause in the gap (its times do not exist) and no repeat (each
 *   instant is one slot; the repeated hour's times are other instants).
 */
export type DstRule = 'wall-clock' | 'elapsed'

/** Rules already read, by expression (every slot computation asks; bounded by the expressions a process reads). */
const rules = new Map<string, DstRule>()

/** Which DST rule `schedule` (valid) follows: its time fields decide, not its days. */
export function dstRule(schedule: Schedule): DstRule {
  const text = scheduleText(schedule)
  let rule = rules.get(text)
  if (!rule) {
    const { second, minute } = CronExpressionParser.parse(text).fields
    rule = second.values.length > 1 || minute.values.length > 1 ? 'elapsed' : 'wall-clock'
    rules.set(text, rule)
  }
  return rule
}

/**
 * The matching wall times around `wall`, read in UTC (where no clock ever jumps): by cron-parser, or by
 * BothDaysWalk where the schedule's two restricted day fields must both match.
 */
function wallTimes(schedule: Schedule, wall: number): WallWalk {
  const text = scheduleText(schedule)
  if (dayMatchOf(schedule) === 'all') return new BothDaysWalk(text, wall)
  return CronExpressionParser.parse(text, { currentDate: new Date(wall), tz: 'UTC' })
}

/** The slot a matching `wall` time runs at under the wall-clock rule. */
function wallClockSlot(timeZone: string, wall: number): number {
  return occurrences(timeZone, wall)[0] ?? gapEnd(timeZone, wall)
}

/** Enough steps for a year of an hourly wall-clock schedule; the walk ends long before (bounded, never spins). */
const MAX_STEPS = 10_000

function exhausted(schedule: Schedule, timeZone: string, instant: number): Error {
  return new Error(
    `schedule "${scheduleText(schedule)}" in ${timeZone}: no slot within ${MAX_STEPS} firings of ${new Date(instant).toISOString()}`,
  )
}

/**
 * How far past the present wall time the walk back must start: by the size of a fall-back that happened
 * so recently that the repeated wall times run past the present one (an hour after the change, none).
 */
function foldBehind(timeZone: string, t: number): number {
  const back = offsetAt(timeZone, t - DAY_MS) - offsetAt(timeZone, t)
  return back > 0 && offsetAt(timeZone, t - back) !== offsetAt(timeZone, t) ? back : 0
}

/** How far before the present wall time the walk forward must start: a fall-back coming within its size. */
function foldAhead(timeZone: string, t: number): number {
  const back = offsetAt(timeZone, t) - offsetAt(timeZone, t + DAY_MS)
  return back > 0 && offsetAt(timeZone, t + back) !== offsetAt(timeZone, t) ? back : 0
}

/**
 * The schedule's most recent slot at or before `instant` (whole seconds, as cron has) in `timeZone`, by the
 * DST rule (dstRule): the one function every slot comes from (ticks, a term's first pass, `once`). A slot
 * is a UTC instant. `expression` must have passed checkSchedule; throws cron-parser's error otherwise.
 */
export function slotAtOrBefore(schedule: Schedule, instant: Date, timeZone = SCHEDULE_TIME_ZONE): Date {
  const t = Math.floor(instant.getTime() / 1000) * 1000
  const key = `atOrBefore\u0000${timeZone}\u0000${scheduleKey(schedule)}`
  return new Date(rememberedSlot(key, t, () => latestSlot(schedule, t, timeZone)))
}

/** slotAtOrBefore's walk for `t` (whole seconds): the latest slot at or before it, in ms. */
function latestSlot(schedule: Schedule, t: number, timeZone: string): number {
  const walls = wallTimes(schedule, wallOf(timeZone, t) + foldBehind(timeZone, t) + 1)
  const elapsed = dstRule(schedule) === 'elapsed'
  let best: number | undefined
  for (let step = 0; step < MAX_STEPS; step++) {
    const wall = walls.prev().getTime()
    if (!elapsed) {
      // The wall-clock slot of a wall time never decreases with it: the first one at or before t is the latest.
      const slot = wallClockSlot(timeZone, wall)
      if (slot <= t) return slot
      continue
    }
    // No instant in (best, t] shows a wall time this early: the offset there is at least the smaller end's.
    if (best !== undefined && wall < best + Math.min(offsetAt(timeZone, best), offsetAt(timeZone, t)))
      return best
    for (const slot of occurrences(timeZone, wall))
      if (slot <= t && (best === undefined || slot > best)) best = slot
  }
  throw exhausted(schedule, timeZone, t)
}

/**
 * The schedule's first slot strictly after `after` (the wall clock by default) in `timeZone`, by the same
 * rule as slotAtOrBefore: when the next pass is due (a term's first log line, the scheduler's timer, the
 * page). Throws cron-parser's error when the expression is not valid (check it first with checkSchedule).
 */
export function nextFireTime(
  schedule: Schedule,
  after: Date = new Date(),
  timeZone = SCHEDULE_TIME_ZONE,
): Date {
  // Slots are whole seconds: the first one after `after` is the first one after its whole second.
  const t = Math.floor(after.getTime() / 1000) * 1000
  const key = `next\u0000${timeZone}\u0000${scheduleKey(schedule)}`
  return new Date(rememberedSlot(key, t, () => firstSlotAfter(schedule, t, timeZone)))
}

/** nextFireTime's walk for `t` (whole seconds): the first slot after it, in ms. */
function firstSlotAfter(schedule: Schedule, t: number, timeZone: string): number {
  const walls = wallTimes(schedule, wallOf(timeZone, t) - foldAhead(timeZone, t) - 1)
  const elapsed = dstRule(schedule) === 'elapsed'
  let best: number | undefined
  for (let step = 0; step < MAX_STEPS; step++) {
    const wall = walls.next().getTime()
    if (!elapsed) {
      const slot = wallClockSlot(timeZone, wall)
      if (slot > t) return slot
      continue
    }
    if (best !== undefined && wall > best + Math.max(offsetAt(timeZone, best), offsetAt(timeZone, t)))
      return best
    for (const slot of occurrences(timeZone, wall))
      if (slot > t && (best === undefined || slot < best)) best = slot
  }
  throw exhausted(schedule, timeZone, t)
}

/**
 * The schedule's slots at or before `instant`, newest first, by the same DST rule as slotAtOrBefore (its
 * first value is slotAtOrBefore's answer; each next one is slotAtOrBefore of a millisecond before the last),
 * from one cron-parser walk: a thousand slots cost one parse, not a thousand (an election's catch-up looks
 * back over that many). Endless: the caller stops it. Throws as slotAtOrBefore does.
 */
export function* slotsAtOrBefore(
  schedule: Schedule,
  instant: Date,
  timeZone = SCHEDULE_TIME_ZONE,
): Generator<Date, never> {
  const t = Math.floor(instant.getTime() / 1000) * 1000
  const walls = wallTimes(schedule, wallOf(timeZone, t) + foldBehind(timeZone, t) + 1)
  if (dstRule(schedule) === 'elapsed') return yield* elapsedSlotsBack(schedule, timeZone, t, walls)
  let last = Number.POSITIVE_INFINITY
  for (let step = 0; ; step++) {
    if (step >= MAX_STEPS) throw exhausted(schedule, timeZone, Math.min(last, t))
    // Wall-clock slots never decrease with their wall times: walking the walls back walks the slots back.
    const slot = wallClockSlot(timeZone, walls.prev().getTime())
    if (slot > t || slot >= last) continue
    last = slot
    step = 0
    yield new Date(slot)
  }
}

/**
 * The elapsed rule's slots back from `t`: every instant whose wall time matches. A candidate is given out
 * once the wall times read are too early for any unread one to show an instant after it (as in
 * slotAtOrBefore: the offset between two slots is at least the smaller of the two ends').
 */
function* elapsedSlotsBack(
  schedule: Schedule,
  timeZone: string,
  t: number,
  walls: WallWalk,
): Generator<Date, never> {
  let upper = t + 1
  const pending: number[] = []
  for (let step = 0; ; step++) {
    if (step >= MAX_STEPS) throw exhausted(schedule, timeZone, Math.min(upper, t))
    const wall = walls.prev().getTime()
    for (let next = pending[0]; next !== undefined; next = pending[0]) {
      const edge = Math.min(offsetAt(timeZone, next), offsetAt(timeZone, Math.min(upper, t)))
      if (wall >= next + edge) break
      pending.shift()
      upper = next
      step = 0
      yield new Date(next)
    }
    for (const slot of occurrences(timeZone, wall))
      if (slot < upper && slot <= t && !pending.includes(slot)) pending.push(slot)
    pending.sort((a, b) => b - a)
  }
}
