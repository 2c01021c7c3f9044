/**
 * An instant as an operator or a trigger writes it on the command line: full ISO 8601 with a zone
 * (`2026-09-30T15:05:00Z`, `2026-03-29T03:00:00+02:00`), and a real calendar instant — `2026-02-30` is
 * refused rather than rolled over to March as `Date` would. `once --slot` and `backfill --from/--to` read
 * their instants through it.
 *
 * Hand-written over a date library: the product needs one strict form and the calendar check below, and
 * `Date` parses the form once it is checked. Not a parser of local times without a zone, of dates alone or
 * of durations.
 */

/** The form every instant option takes, for the messages. */
export const INSTANT_FORM = 'an ISO 8601 instant with a time zone (e.g. 2026-09-30T15:05:00Z)'

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/i

/**
 * `text` (trimmed) as an instant; otherwise why not: `form` when it is not written as INSTANT_FORM says,
 * or `impossible` naming the field outside its calendar range (`day 30 (2026-02 has 28 days)`).
 */
export function parseIsoInstant(
  text: string,
): { ok: true; instant: Date } | { ok: false; form: true } | { ok: false; impossible: string } {
  const match = ISO_INSTANT.exec(text.trim())
  if (!match) return { ok: false, form: true }
  const impossible = impossibleField(match)
  if (impossible) return { ok: false, impossible }
  const instant = new Date(text.trim())
  if (!Number.isFinite(instant.getTime())) return { ok: false, impossible: 'it lies outside Date’s range' }
  return { ok: true, instant }
}

/** The first field of a matched instant outside its calendar range (day 30 of February, hour 24…). */
function impossibleField(match: RegExpExecArray): string | undefined {
  const [year, month, day, hour, minute, second = 0, , offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined || /^z$/i.test(part) || /^[+-]/.test(part) ? undefined : Number(part)))
  // Round trip: the fields must name a day that exists, not one Date would roll over.
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  if (month! < 1 || month! > 12) return `month ${month} (expected 01–12)`
  if (day! < 1 || day! > daysInMonth)
    return `day ${day} (${year}-${String(month).padStart(2, '0')} has ${daysInMonth} days)`
  if (hour! > 23) return `hour ${hour} (expected 00–23)`
  if (minute! > 59) return `minute ${minute} (expected 00–59)`
  if (second > 59) return `second ${second} (expected 00–59)`
  if (offsetHours > 23 || offsetMinutes > 59) return 'its zone offset (expected ±HH:MM up to 23:59)'
  return undefined
}
