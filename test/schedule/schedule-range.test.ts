/**
 * The slots of a range (schedule-range.ts), which `backfill` runs and `backfill --dry-run` lists: exact
 * lists across Europe/Berlin's two changes of 2026, both ends included, and the same slots the scheduler's
 * walk back (slotAtOrBefore) finds, so a listed range is what a worker would have fired.
 */
import { describe, expect, it } from 'vitest'
import { slotAtOrBefore } from '../../src/schedule/schedule.js'
import { slotsBetween } from '../../src/schedule/schedule-range.js'
import { formatLocal } from '../../src/schedule/zoned-time.js'

const BERLIN = 'Europe/Berlin'

/** The range's slots as `UTC instant = local time`. */
function listed(expression: string, from: string, to: string, timeZone = BERLIN): string[] {
  const range = slotsBetween(expression, new Date(from), new Date(to), timeZone, 10_000)
  expect(range.more, 'the range was cut short').toBe(false)
  return range.slots.map((s) => `${s.toISOString()} = ${formatLocal(s, timeZone)}`)
}

describe('a schedule’s slots between two instants', () => {
  it('lists 30 2 * * * once a day across the spring-forward night, the 02:30 in the gap at 03:00', () => {
    expect(listed('30 2 * * *', '2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z')).toEqual([
      '2026-03-28T01:30:00.000Z = 2026-03-28 02:30 +01:00',
      '2026-03-29T01:00:00.000Z = 2026-03-29 03:00 +02:00',
      '2026-03-30T00:30:00.000Z = 2026-03-30 02:30 +02:00',
    ])
  })

  it('lists 30 2 * * * once a day across the fall-back night, at the first of the two 02:30s', () => {
    expect(listed('30 2 * * *', '2026-10-24T00:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
      '2026-10-24T00:30:00.000Z = 2026-10-24 02:30 +02:00',
      '2026-10-25T00:30:00.000Z = 2026-10-25 02:30 +02:00',
      '2026-10-26T01:30:00.000Z = 2026-10-26 02:30 +01:00',
    ])
  })

  it('lists */30 * * * * by elapsed time across the spring-forward jump: no pause where 02:00–03:00 does not exist', () => {
    expect(listed('*/30 * * * *', '2026-03-28T23:30:00Z', '2026-03-29T02:00:00Z')).toEqual([
      '2026-03-28T23:30:00.000Z = 2026-03-29 00:30 +01:00',
      '2026-03-29T00:00:00.000Z = 2026-03-29 01:00 +01:00',
      '2026-03-29T00:30:00.000Z = 2026-03-29 01:30 +01:00',
      '2026-03-29T01:00:00.000Z = 2026-03-29 03:00 +02:00',
      '2026-03-29T01:30:00.000Z = 2026-03-29 03:30 +02:00',
      '2026-03-29T02:00:00.000Z = 2026-03-29 04:00 +02:00',
    ])
  })

  it('lists */30 * * * * by elapsed time across the fall-back: both runs of the repeated hour, each once', () => {
    expect(listed('*/30 * * * *', '2026-10-24T23:30:00Z', '2026-10-25T02:00:00Z')).toEqual([
      '2026-10-24T23:30:00.000Z = 2026-10-25 01:30 +02:00',
      '2026-10-25T00:00:00.000Z = 2026-10-25 02:00 +02:00',
      '2026-10-25T00:30:00.000Z = 2026-10-25 02:30 +02:00',
      '2026-10-25T01:00:00.000Z = 2026-10-25 02:00 +01:00',
      '2026-10-25T01:30:00.000Z = 2026-10-25 02:30 +01:00',
      '2026-10-25T02:00:00.000Z = 2026-10-25 03:00 +01:00',
    ])
  })

  it('includes both ends when they are slots, and finds none in a range between two slots', () => {
    expect(listed('0 * * * *', '2026-09-30T10:00:00Z', '2026-09-30T12:00:00Z', 'UTC')).toHaveLength(3)
    expect(listed('0 * * * *', '2026-09-30T10:00:00Z', '2026-09-30T10:00:00Z', 'UTC')).toHaveLength(1)
    expect(listed('0 * * * *', '2026-09-30T10:00:00.001Z', '2026-09-30T10:59:59.999Z', 'UTC')).toEqual([])
  })

  it('stops at the bound it is given and says the range holds more', () => {
    const from = new Date('2026-09-30T00:00:00Z')
    const range = slotsBetween('* * * * * *', from, new Date('2026-09-30T01:00:00Z'), 'UTC', 100)
    expect(range.more).toBe(true)
    expect(range.slots).toHaveLength(100)
    expect(range.slots[99]?.toISOString()).toBe('2026-09-30T00:01:39.000Z')
  })

  it('agrees with the scheduler’s walk back over a fall-back week of */30 * * * * in Berlin', () => {
    const to = new Date('2026-10-28T00:00:00Z')
    const from = new Date('2026-10-21T00:00:00Z')
    const forward = slotsBetween('*/30 * * * *', from, to, BERLIN, 10_000).slots.map((s) => s.getTime())
    const backward: number[] = []
    for (let t = to; t >= from; t = new Date(t.getTime() - 1000)) {
      t = slotAtOrBefore('*/30 * * * *', t, BERLIN)
      if (t >= from) backward.unshift(t.getTime())
    }
    expect(forward, 'a backfill would run other slots than the worker fires').toEqual(backward)
    // Elapsed time: 7 × 24 real hours of half hours (the 25-hour fall-back day holds 50), both ends included.
    expect(forward).toHaveLength(7 * 48 + 1)
    const fallBackDay = forward.filter((t) => formatLocal(new Date(t), BERLIN).startsWith('2026-10-25'))
    expect(fallBackDay, 'the repeated hour was not run twice').toHaveLength(50)
  })
})
