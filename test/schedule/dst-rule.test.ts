/**
 * The DST rule of schedule.ts on real change days: exact slot lists (UTC instants, with the local time each
 * one is shown as), walked forward with nextFireTime and backward with slotAtOrBefore, which must agree.
 */
import { describe, expect, it } from 'vitest'
import { dstRule, nextFireTime, slotAtOrBefore } from '../../src/schedule/schedule.js'
import { formatLocal } from '../../src/schedule/zoned-time.js'

/** Every slot in (from, to], by nextFireTime, as `UTC instant = local time`. */
function forward(expression: string, timeZone: string, from: string, to: string): string[] {
  const slots: string[] = []
  const end = new Date(to).getTime()
  for (let t = new Date(from); ; ) {
    t = nextFireTime(expression, t, timeZone)
    if (t.getTime() > end) return slots
    slots.push(`${t.toISOString().slice(11, 16)}Z = ${formatLocal(t, timeZone).slice(11)}`)
  }
}

/** The same list, walked back from `to` with slotAtOrBefore. */
function backward(expression: string, timeZone: string, from: string, to: string): string[] {
  const slots: string[] = []
  const start = new Date(from).getTime()
  for (let t = new Date(to); ; ) {
    t = slotAtOrBefore(expression, t, timeZone)
    if (t.getTime() <= start) return slots
    slots.unshift(`${t.toISOString().slice(11, 16)}Z = ${formatLocal(t, timeZone).slice(11)}`)
    t = new Date(t.getTime() - 1000)
  }
}

function slots(expression: string, timeZone: string, from: string, to: string): string[] {
  const ahead = forward(expression, timeZone, from, to)
  expect(
    backward(expression, timeZone, from, to),
    'a tick and a takeover would serve different slots',
  ).toEqual(ahead)
  return ahead
}

const BERLIN = 'Europe/Berlin'
const NEW_YORK = 'America/New_York'
const LORD_HOWE = 'Australia/Lord_Howe'

describe('the DST rule', () => {
  it('reads a schedule firing at most hourly by the wall clock and one firing more often by elapsed time', () => {
    expect(dstRule('30 2 * * *')).toBe('wall-clock')
    expect(dstRule('0 * * * *')).toBe('wall-clock')
    expect(dstRule('0 0 9 * * 1-5')).toBe('wall-clock')
    expect(dstRule('*/15 * * * *')).toBe('elapsed')
    expect(dstRule('* * * * *')).toBe('elapsed')
    expect(dstRule('*/10 * * * * *')).toBe('elapsed')
  })

  it('runs 30 2 * * * once on each change day: in the gap at the first instant after the jump, in the repeated hour at its first occurrence', () => {
    expect(slots('30 2 * * *', BERLIN, '2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z')).toEqual([
      '01:30Z = 02:30 +01:00',
      '01:00Z = 03:00 +02:00',
      '00:30Z = 02:30 +02:00',
    ])
    expect(slots('30 2 * * *', BERLIN, '2026-10-24T00:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
      '00:30Z = 02:30 +02:00',
      '00:30Z = 02:30 +02:00',
      '01:30Z = 02:30 +01:00',
    ])
    expect(slots('30 2 * * *', NEW_YORK, '2026-03-07T00:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      '07:30Z = 02:30 -05:00',
      '07:00Z = 03:00 -04:00',
      '06:30Z = 02:30 -04:00',
    ])
    expect(slots('30 2 * * *', NEW_YORK, '2026-10-31T00:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '06:30Z = 02:30 -04:00',
      '07:30Z = 02:30 -05:00',
      '07:30Z = 02:30 -05:00',
    ])
  })

  it('shifts by half an hour on Lord Howe Island: a 30 2 * * * run in the gap moves to 02:30, one in the repeated half hour runs once', () => {
    // 2026-04-05: 02:00 +11:00 becomes 01:30 +10:30 (01:30–02:00 repeats); 02:30 occurs once.
    expect(slots('30 2 * * *', LORD_HOWE, '2026-04-03T12:00:00Z', '2026-04-05T12:00:00Z')).toEqual([
      '15:30Z = 02:30 +11:00',
      '16:00Z = 02:30 +10:30',
    ])
    expect(slots('45 1 * * *', LORD_HOWE, '2026-04-04T12:00:00Z', '2026-04-04T18:00:00Z')).toEqual([
      '14:45Z = 01:45 +11:00',
    ])
    // 2026-10-04: 02:00 +10:30 becomes 02:30 +11:00 (02:00–02:30 never shows); 02:30 itself exists.
    expect(slots('15 2 * * *', LORD_HOWE, '2026-10-03T12:00:00Z', '2026-10-04T12:00:00Z')).toEqual([
      '15:30Z = 02:30 +11:00',
    ])
    expect(slots('30 2 * * *', LORD_HOWE, '2026-10-03T12:00:00Z', '2026-10-04T12:00:00Z')).toEqual([
      '15:30Z = 02:30 +11:00',
    ])
  })

  it('runs 0 * * * * once per wall-clock hour: the missing hour folds into the jump, the repeated hour runs once', () => {
    expect(slots('0 * * * *', BERLIN, '2026-03-28T22:30:00Z', '2026-03-29T03:00:00Z')).toEqual([
      '23:00Z = 00:00 +01:00',
      '00:00Z = 01:00 +01:00',
      '01:00Z = 03:00 +02:00',
      '02:00Z = 04:00 +02:00',
      '03:00Z = 05:00 +02:00',
    ])
    expect(slots('0 * * * *', BERLIN, '2026-10-24T21:30:00Z', '2026-10-25T03:00:00Z')).toEqual([
      '22:00Z = 00:00 +02:00',
      '23:00Z = 01:00 +02:00',
      '00:00Z = 02:00 +02:00',
      '02:00Z = 03:00 +01:00',
      '03:00Z = 04:00 +01:00',
    ])
    expect(slots('0 * * * *', NEW_YORK, '2026-03-08T04:30:00Z', '2026-03-08T09:00:00Z')).toEqual([
      '05:00Z = 00:00 -05:00',
      '06:00Z = 01:00 -05:00',
      '07:00Z = 03:00 -04:00',
      '08:00Z = 04:00 -04:00',
      '09:00Z = 05:00 -04:00',
    ])
    expect(slots('0 * * * *', NEW_YORK, '2026-11-01T03:30:00Z', '2026-11-01T09:00:00Z')).toEqual([
      '04:00Z = 00:00 -04:00',
      '05:00Z = 01:00 -04:00',
      '07:00Z = 02:00 -05:00',
      '08:00Z = 03:00 -05:00',
      '09:00Z = 04:00 -05:00',
    ])
    expect(slots('0 * * * *', LORD_HOWE, '2026-04-04T13:30:00Z', '2026-04-04T17:00:00Z')).toEqual([
      '14:00Z = 01:00 +11:00',
      '15:30Z = 02:00 +10:30',
      '16:30Z = 03:00 +10:30',
    ])
    expect(slots('0 * * * *', LORD_HOWE, '2026-10-03T13:00:00Z', '2026-10-03T17:00:00Z')).toEqual([
      '13:30Z = 00:00 +10:30',
      '14:30Z = 01:00 +10:30',
      '15:30Z = 02:30 +11:00',
      '16:00Z = 03:00 +11:00',
      '17:00Z = 04:00 +11:00',
    ])
  })

  it('runs */15 * * * * by elapsed time: every quarter hour of real time across each change, no pause and no repeat', () => {
    const quarters = (from: string, count: number) =>
      Array.from({ length: count }, (_, i) => new Date(new Date(from).getTime() + i * 900_000).toISOString())
    const cases: [string, string, string][] = [
      [BERLIN, '2026-03-29T00:00:00Z', '2026-03-29T02:00:00Z'],
      [BERLIN, '2026-10-24T23:00:00Z', '2026-10-25T02:00:00Z'],
      [NEW_YORK, '2026-03-08T06:00:00Z', '2026-03-08T08:00:00Z'],
      [NEW_YORK, '2026-11-01T05:00:00Z', '2026-11-01T07:00:00Z'],
      [LORD_HOWE, '2026-04-04T14:00:00Z', '2026-04-04T16:00:00Z'],
      [LORD_HOWE, '2026-10-03T14:30:00Z', '2026-10-03T16:30:00Z'],
    ]
    for (const [zone, from, to] of cases) {
      const found: string[] = []
      for (let t = new Date(new Date(from).getTime() - 1); ; ) {
        t = nextFireTime('*/15 * * * *', t, zone)
        if (t > new Date(to)) break
        found.push(t.toISOString())
      }
      const span = (new Date(to).getTime() - new Date(from).getTime()) / 900_000 + 1
      expect(found, `${zone} from ${from}`).toEqual(quarters(from, span))
    }
    // Read locally: Berlin's autumn night shows 02:00–02:45 twice, each a slot of its own.
    expect(slots('*/15 * * * *', BERLIN, '2026-10-24T23:50:00Z', '2026-10-25T01:50:00Z')).toEqual([
      '00:00Z = 02:00 +02:00',
      '00:15Z = 02:15 +02:00',
      '00:30Z = 02:30 +02:00',
      '00:45Z = 02:45 +02:00',
      '01:00Z = 02:00 +01:00',
      '01:15Z = 02:15 +01:00',
      '01:30Z = 02:30 +01:00',
      '01:45Z = 02:45 +01:00',
    ])
    // Lord Howe's spring night: 01:45 +10:30 is followed 15 minutes later by 02:30 +11:00.
    expect(slots('*/15 * * * *', LORD_HOWE, '2026-10-03T15:00:00Z', '2026-10-03T15:45:00Z')).toEqual([
      '15:15Z = 01:45 +10:30',
      '15:30Z = 02:30 +11:00',
      '15:45Z = 02:45 +11:00',
    ])
  })

  it('keeps UTC schedules as they were: slots are the expression read in UTC', () => {
    expect(slotAtOrBefore('30 2 * * *', new Date('2026-03-29T05:00:00Z')).toISOString()).toBe(
      '2026-03-29T02:30:00.000Z',
    )
    expect(nextFireTime('*/15 * * * *', new Date('2026-10-25T00:00:00Z')).toISOString()).toBe(
      '2026-10-25T00:15:00.000Z',
    )
    expect(slotAtOrBefore('*/10 * * * * *', new Date('2026-10-25T00:00:09.999Z')).toISOString()).toBe(
      '2026-10-25T00:00:00.000Z',
    )
  })
})

describe('a year of Europe/Berlin', () => {
  /** Every slot of 2026 in Berlin local time (from local 2026-01-01 00:00 to 2027-01-01 00:00), by local day. */
  function perLocalDay(expression: string): Map<string, number> {
    const days = new Map<string, number>()
    const end = new Date('2026-12-31T23:00:00Z').getTime() // 2027-01-01 00:00 +01:00
    let steps = 0
    for (let t = new Date('2025-12-31T22:59:59Z'); ; ) {
      const next = nextFireTime(expression, t, BERLIN)
      expect(next.getTime(), 'nextFireTime stalled: the scheduler would wait forever').toBeGreaterThan(
        t.getTime(),
      )
      if (next.getTime() >= end) break
      const day = formatLocal(next, BERLIN).slice(0, 10)
      days.set(day, (days.get(day) ?? 0) + 1)
      t = next
      if (++steps > 20_000) throw new Error('the walk spun: more slots than a year can hold')
    }
    return days
  }

  it('has 365 slots of 30 2 * * *, one on every local day including both change days', () => {
    const days = perLocalDay('30 2 * * *')
    expect(days.size).toBe(365)
    expect([...days.values()].every((n) => n === 1)).toBe(true)
    expect(slotAtOrBefore('30 2 * * *', new Date('2026-03-29T01:00:00Z'), BERLIN).toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    )
  })

  it('has 365 × 48 slots of */30 * * * *: 46 on the spring day, 50 on the autumn day, 48 on every other', () => {
    const days = perLocalDay('*/30 * * * *')
    expect([...days.values()].reduce((a, b) => a + b, 0)).toBe(365 * 48)
    expect(days.get('2026-03-29')).toBe(46)
    expect(days.get('2026-10-25')).toBe(50)
    const others = [...days.entries()].filter(([day]) => day !== '2026-03-29' && day !== '2026-10-25')
    expect(others.length).toBe(363)
    expect(others.every(([, n]) => n === 48)).toBe(true)
    // 17,520 slots walked one by one: 12–21 s beside the rest of the suite, past 30 s on a clean clone's
    // busier run; a generous bound, so only a stall fails it.
  }, 120_000)
})
