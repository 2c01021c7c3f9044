/**
 * The wall times of a cron expression whose day of month and day of week are both restricted, read so that
 * a time fires only on a day matching both fields (`DAY_MATCH=all`: `0 0 13 * 5` is Friday the 13th).
 * cron-parser reads such an expression as either day (`DAY_MATCH=any`, Vixie cron's rule) and has no
 * option for both, so this walk asks it twice: the expression with its day of week made `*` gives the
 * candidates (each day-of-month match), and the expression with its day of month made `*` says whether a
 * candidate's day is also a day-of-week match. A candidate whose day fails skips the rest of that day.
 *
 * Wall times are read in UTC, as schedule.ts reads every wall time (the zone's offsets are applied after);
 * the fields `L`, `#` and ranges are cron-parser's on both sides. What it is not: a DST rule or a slot
 * calculator (schedule.ts turns its wall times into slots).
 */
import { CronExpressionParser } from 'cron-parser'

/** A wall time as the walks give it: cron-parser's CronDate and a Date both are one. */
export interface WallTime {
  getTime(): number
}

/** A walk over an expression's wall times (UTC-read), as cron-parser's own iterator walks them. */
export interface WallWalk {
  /** The first wall time strictly after the walk's position; moves the position there. */
  next(): WallTime
  /** The last wall time strictly before the walk's position; moves the position there. */
  prev(): WallTime
}

const DAY_MS = 86_400_000
/** Days whose day of month matches, tried before giving up (Feb 29 on a Monday recurs within 28 years). */
const MAX_CANDIDATE_DAYS = 10_000

/** The expression with its day-of-month (`field` 0) or day-of-week (`field` 1) field made `*`. */
function withDayField(expression: string, field: 0 | 1): string {
  const fields = expression.trim().split(/\s+/)
  const offset = fields.length === 6 ? 1 : 0
  fields[field === 0 ? 2 + offset : 4 + offset] = '*'
  return fields.join(' ')
}

export class BothDaysWalk implements WallWalk {
  readonly #expression: string
  readonly #dayOfMonthOnly: string
  readonly #dayOfWeekOnly: string
  #at: number

  /** Walks `expression` (both day fields restricted; valid for cron-parser) from the wall time `wall`. */
  constructor(expression: string, wall: number) {
    this.#expression = expression
    this.#dayOfMonthOnly = withDayField(expression, 1)
    this.#dayOfWeekOnly = withDayField(expression, 0)
    this.#at = wall
  }

  next(): Date {
    let from = this.#at
    for (let day = 0; day < MAX_CANDIDATE_DAYS; day++) {
      const candidate = this.#walk(this.#dayOfMonthOnly, from).next().getTime()
      if (this.#weekdayMatches(candidate)) {
        this.#at = candidate
        return new Date(candidate)
      }
      // Every time of that day has its weekday: go on from its last millisecond.
      from = Math.floor(candidate / DAY_MS) * DAY_MS + DAY_MS - 1
    }
    throw this.#never(from)
  }

  prev(): Date {
    let from = this.#at
    for (let day = 0; day < MAX_CANDIDATE_DAYS; day++) {
      const candidate = this.#walk(this.#dayOfMonthOnly, from).prev().getTime()
      if (this.#weekdayMatches(candidate)) {
        this.#at = candidate
        return new Date(candidate)
      }
      from = Math.floor(candidate / DAY_MS) * DAY_MS
    }
    throw this.#never(from)
  }

  /** Whether the day-of-week field fires at `wall`: its next time after the instant before is `wall`. */
  #weekdayMatches(wall: number): boolean {
    return (
      this.#walk(this.#dayOfWeekOnly, wall - 1)
        .next()
        .getTime() === wall
    )
  }

  #walk(expression: string, wall: number) {
    return CronExpressionParser.parse(expression, { currentDate: new Date(wall), tz: 'UTC' })
  }

  #never(wall: number): Error {
    return new Error(
      `schedule "${this.#expression}" with DAY_MATCH=all: no day matching both day fields within ${MAX_CANDIDATE_DAYS} days of ${new Date(wall).toISOString()}`,
    )
  }
}
