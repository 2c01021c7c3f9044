/**
 * Wall-clock time in an IANA time zone, as the schedules' DST rule needs it: a zone's UTC offset at an
 * instant, the instants a wall time occurs at (none in a spring-forward gap, two in a repeated hour), the
 * first instant after a gap, and an instant written as local time with its offset (`2026-03-29 03:00 +02:00`).
 *
 * A wall time is a number of milliseconds read as if the zone were UTC (Date.UTC of the local fields).
 * Hand-written over Intl because neither cron library exposes these (cron-parser and node-cron each read
 * zones through Intl internally) and the rule in schedule.ts needs them exactly. What it is not: a calendar
 * library; it assumes a zone changes its offset at most once within a day, as every zone does today.
 */

const DAY_MS = 86_400_000

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, format)
  }
  return format
}

/**
 * The zone's canonical IANA name (`europe/berlin` → `Europe/Berlin`), or undefined when Intl does not know
 * it. `UTC` and its aliases are accepted.
 */
export function canonicalTimeZone(name: string): string | undefined {
  const text = name.trim()
  if (text === '') return undefined
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

/** The zone's offset from UTC at `instant` (ms since the epoch), in milliseconds (east positive). */
export function offsetAt(timeZone: string, instant: number): number {
  if (timeZone === 'UTC') return 0
  const whole = Math.floor(instant / 1000) * 1000
  const parts: Record<string, number> = {}
  for (const part of formatter(timeZone).formatToParts(new Date(whole)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  )
  return wall - whole
}

/** The wall time at `instant` in the zone. */
export function wallOf(timeZone: string, instant: number): number {
  return instant + offsetAt(timeZone, instant)
}

/** The zone's smallest and largest offset within a day either side of `instant`. */
export function offsetRange(timeZone: string, instant: number): { min: number; max: number } {
  const offsets = [instant - DAY_MS, instant, instant + DAY_MS].map((t) => offsetAt(timeZone, t))
  return { min: Math.min(...offsets), max: Math.max(...offsets) }
}

/** The instants at which the zone's clocks show `wall`, ascending: one, two (a repeated hour) or none (a gap). */
export function occurrences(timeZone: string, wall: number): number[] {
  const found = new Set<number>()
  for (const probe of [wall - DAY_MS, wall, wall + DAY_MS]) {
    const candidate = wall - offsetAt(timeZone, probe)
    if (wallOf(timeZone, candidate) === wall) found.add(candidate)
  }
  return [...found].sort((a, b) => a - b)
}

/**
 * The first instant after the jump, for a `wall` time inside a spring-forward gap (which no instant shows).
 * Found by bisection on whole seconds between the instants the offsets before and after the jump give.
 */
export function gapEnd(timeZone: string, wall: number): number {
  const { min, max } = offsetRange(timeZone, wall)
  // Before the jump the clocks are behind `wall`; from it on they are past it.
  let before = wall - max
  let after = wall - min
  while (after - before > 1000) {
    const middle = before + Math.floor((after - before) / 2000) * 1000
    if (wallOf(timeZone, middle) > wall) after = middle
    else before = middle
  }
  return after
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

/** `2026-03-29 03:00 +02:00` (seconds only when not zero): `instant` as the zone's clocks showed it, with the offset. */
export function formatLocal(instant: Date, timeZone: string): string {
  const offset = offsetAt(timeZone, instant.getTime())
  const wall = new Date(instant.getTime() + offset)
  const seconds = wall.getUTCSeconds() === 0 ? '' : `:${pad(wall.getUTCSeconds())}`
  const sign = offset < 0 ? '-' : '+'
  const minutes = Math.round(Math.abs(offset) / 60_000)
  const date = `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}`
  return `${date} ${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}${seconds} ${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
}
