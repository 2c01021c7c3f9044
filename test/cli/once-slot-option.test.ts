import { describe, expect, it } from 'vitest'
import { parseSlotOption } from '../../src/term/one-slot.js'

describe('once --slot', () => {
  const now = new Date('2026-09-30T15:07:12.345Z')

  it('normalizes an instant to the schedule’s most recent fire time at or before it', () => {
    expect(parseSlotOption('2026-09-30T15:06:59+00:00', '*/5 * * * *', now)).toEqual({
      ok: true,
      slot: new Date('2026-09-30T15:05:00.000Z'),
    })
    expect(parseSlotOption('2026-09-30T17:05:00.123+02:00', '*/5 * * * *', now)).toEqual({
      ok: true,
      slot: new Date('2026-09-30T15:05:00.000Z'),
    })
  })

  it('takes now for auto and for no --slot', () => {
    const slot = new Date('2026-09-30T15:05:00.000Z')
    expect(parseSlotOption('auto', '*/5 * * * *', now)).toEqual({ ok: true, slot })
    expect(parseSlotOption(undefined, '*/5 * * * *', now)).toEqual({ ok: true, slot })
  })

  it.each(['yesterday', '2026-09-30', '2026-09-30T15:05:00', '1727708700', '2026-13-45T99:00:00Z'])(
    'refuses %s, showing the expected form',
    (value) => {
      const parsed = parseSlotOption(value, '*/5 * * * *', now)
      expect(parsed.ok).toBe(false)
      expect(!parsed.ok && parsed.expected).toMatch(
        /ISO 8601 instant with a time zone \(e\.g\. 2026-09-30T15:05:00Z\) or "auto"/,
      )
    },
  )

  it.each([
    ['2026-02-30T00:00:00Z', /not a real instant: day 30 \(2026-02 has 28 days\)/],
    ['2025-02-29T12:00:00Z', /not a real instant: day 29 \(2025-02 has 28 days\)/],
    ['2026-09-30T24:00:00Z', /not a real instant: hour 24/],
    ['2026-09-30T15:00:60Z', /not a real instant: second 60/],
  ])('refuses %s, a date that does not exist, rather than rolling it over', (value, why) => {
    const parsed = parseSlotOption(value, '*/5 * * * *', now)
    expect(parsed.ok, `${value} was accepted (rolled over to another day)`).toBe(false)
    expect(!parsed.ok && parsed.expected).toMatch(why)
  })

  it('refuses a slot more than the 60 s skew allowance after now, and accepts one within it', () => {
    for (const value of ['9999-12-31T23:59:59Z', '2026-09-30T15:09:12.346Z']) {
      const parsed = parseSlotOption(value, '*/5 * * * *', now)
      expect(parsed.ok, `${value}, in the future, would be claimed before it comes`).toBe(false)
      expect(!parsed.ok && parsed.expected).toMatch(/at most 60 s after now .*s after it/)
      expect(!parsed.ok && parsed.expected, 'a valid instant was refused as if malformed').not.toMatch(
        /ISO 8601/,
      )
    }
    expect(parseSlotOption('2026-09-30T15:08:12.345Z', '*/5 * * * *', now)).toEqual({
      ok: true,
      slot: new Date('2026-09-30T15:05:00.000Z'),
    })
  })
})
