/**
 * What `pause` and `resume` read from the command line besides the net: when a pause ends (`--for D`,
 * `--until ISO`), who (`--by`, the OS user by default) and why (`--reason`). Each bad value is a usage
 * error naming the option and what was expected. Not the store: control/ checks again what it keeps.
 */
import { userInfo } from 'node:os'
import { parseDuration } from '../durations.js'
import type { OptionValues } from './command.js'

/** An ISO 8601 instant with its zone: a pause's end is never read in some implied local time. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i

export type Parsed<T> = { ok: true; value: T } | { ok: false; expected: string }

/** `--for` / `--until` as an end instant after `now` (undefined: until resumed). */
export function pauseEnd(values: OptionValues, now: Date): Parsed<Date | undefined> {
  if (values.for !== undefined && values.until !== undefined)
    return { ok: false, expected: '--for and --until: expected one of them, not both' }
  if (values.for !== undefined) {
    const ms = parseDuration(values.for)
    if (ms === undefined || ms <= 0)
      return {
        ok: false,
        expected: `--for: expected a duration above zero such as 90s, 30m, 2h or 1d; got ${JSON.stringify(values.for)}`,
      }
    return { ok: true, value: new Date(now.getTime() + ms) }
  }
  if (values.until === undefined) return { ok: true, value: undefined }
  const text = values.until.trim()
  const until = new Date(text)
  if (!ISO_WITH_ZONE.test(text) || !Number.isFinite(until.getTime()))
    return {
      ok: false,
      expected: `--until: expected an ISO 8601 instant with a time zone (e.g. 2026-10-01T18:00:00Z); got ${JSON.stringify(values.until)}`,
    }
  if (until.getTime() <= now.getTime())
    return {
      ok: false,
      expected: `--until: expected an instant after now (${now.toISOString()}); got ${text}`,
    }
  return { ok: true, value: until }
}

/** Who and why: `--by` (the OS user when absent) and `--reason`. */
export function author(values: OptionValues): { by?: string; reason?: string } {
  const by = values.by ?? osUser()
  return { ...(by ? { by } : {}), ...(values.reason === undefined ? {} : { reason: values.reason }) }
}

function osUser(): string | undefined {
  try {
    return userInfo().username || undefined
  } catch {
    return undefined
  }
}
