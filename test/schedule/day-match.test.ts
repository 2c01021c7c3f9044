/**
 * DAY_MATCH: a schedule restricting both day fields is read as either day (`any`) or both (`all`), and
 * refused without the choice. The slots are checked against an oracle written from the definitions (each
 * day of the year tested field by field), through every function that computes slots: nextFireTime,
 * slotAtOrBefore, slotsAtOrBefore and slotsBetween (backfill's list). `L` and `#` go the same way.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
import { slotsBetween } from '../../src/schedule/schedule-range.js'
import {
  checkSchedule,
  type DayMatch,
  nextFireTime,
  slotAtOrBefore,
  slotsAtOrBefore,
} from '../../src/schedule/schedule.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const YEAR_START = new Date('2026-01-01T00:00:00Z')
const YEAR_END = new Date('2026-12-31T23:59:59Z')
const DAY_MS = 86_400_000

/** The year's days (UTC) whose date and weekday pass `dayOk`, at 09:00 UTC: what the schedule must list. */
function oracle(dayOk: (date: number, weekday: number, lastDate: number) => boolean): string[] {
  const days: string[] = []
  for (let t = YEAR_START.getTime(); t <= YEAR_END.getTime(); t += DAY_MS) {
    const d = new Date(t)
    const lastDate = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
    if (dayOk(d.getUTCDate(), d.getUTCDay(), lastDate)) days.push(new Date(t + 9 * 3_600_000).toISOString())
  }
  return days
}

/** The year's slots of `expression` in UTC, by nextFireTime walking forward. */
function walkedForward(schedule: Parameters<typeof nextFireTime>[0]): string[] {
  const slots: string[] = []
  for (let t = nextFireTime(schedule, new Date(YEAR_START.getTime() - 1), 'UTC'); t <= YEAR_END; ) {
    slots.push(t.toISOString())
    t = nextFireTime(schedule, t, 'UTC')
  }
  return slots
}

/** The same slots walked back from the year's end, oldest first. */
function walkedBack(schedule: Parameters<typeof slotsAtOrBefore>[0]): string[] {
  const slots: string[] = []
  for (const slot of slotsAtOrBefore(schedule, YEAR_END, 'UTC')) {
    if (slot < YEAR_START) break
    slots.push(slot.toISOString())
  }
  return slots.reverse()
}

const CASES: [string, DayMatch | undefined, Parameters<typeof oracle>[0]][] = [
  ['0 9 13 * 5', 'all', (date, weekday) => date === 13 && weekday === 5],
  ['0 9 13 * 5', 'any', (date, weekday) => date === 13 || weekday === 5],
  ['0 9 1-7 * 1', 'all', (date, weekday) => date <= 7 && weekday === 1],
  ['0 9 L * 5', 'all', (date, weekday, last) => date === last && weekday === 5],
  ['0 9 L * *', undefined, (date, _weekday, last) => date === last],
  ['0 9 * * 1#2', undefined, (date, weekday) => weekday === 1 && date >= 8 && date <= 14],
]

describe('a schedule’s days', () => {
  it.each(CASES)(
    '%s with DAY_MATCH=%s lists exactly the oracle’s days, forward, back and as a range',
    (expression, dayMatch, dayOk) => {
      const schedule = dayMatch === undefined ? expression : { expression, dayMatch }
      expect(checkSchedule(schedule).ok, 'the schedule was refused').toBe(true)
      const expected = oracle(dayOk)
      expect(expected.length).toBeGreaterThan(0)
      expect(walkedForward(schedule), 'nextFireTime').toEqual(expected)
      expect(walkedBack(schedule), 'slotsAtOrBefore').toEqual(expected)
      expect(
        slotsBetween(schedule, YEAR_START, YEAR_END, 'UTC', 1_000).slots.map((s) => s.toISOString()),
        'slotsBetween (backfill)',
      ).toEqual(expected)
      const mid = new Date('2026-12-01T00:00:00Z')
      const before = expected.filter((s) => s <= mid.toISOString()).at(-1)
      expect(slotAtOrBefore(schedule, mid, 'UTC').toISOString(), 'slotAtOrBefore').toBe(before)
    },
  )

  it('runs Friday the 13th at 09:00 in Berlin in February, March and November 2026', () => {
    const schedule = { expression: '0 9 13 * 5', dayMatch: 'all' as const }
    const slots = slotsBetween(schedule, YEAR_START, YEAR_END, 'Europe/Berlin', 100).slots
    expect(slots.map((s) => s.toISOString())).toEqual([
      '2026-02-13T08:00:00.000Z',
      '2026-03-13T08:00:00.000Z',
      '2026-11-13T08:00:00.000Z',
    ])
  })

  it('refuses both day fields restricted without a DAY_MATCH, saying how to choose', () => {
    const check = checkSchedule('0 9 13 * 5')
    expect(check.ok).toBe(false)
    expect(check.ok ? '' : check.expected).toMatch(
      /DAY_MATCH, as the day of month and the day of week are both restricted: choose.*`any`.*`all`/,
    )
    expect(checkSchedule({ expression: '0 9 13 * 5', dayMatch: undefined }).ok).toBe(false)
  })

  it('takes its interval from the reading chosen: a day for any, four weeks for all', () => {
    expect(checkSchedule({ expression: '0 9 13 * 5', dayMatch: 'any' })).toEqual({
      ok: true,
      intervalMs: DAY_MS,
    })
    const all = checkSchedule({ expression: '0 9 13 * 5', dayMatch: 'all' })
    expect(all.ok && all.intervalMs).toBe(28 * DAY_MS)
  })
})

describe('LEASECRON_NET_<NET>_DAY_MATCH', () => {
  const load = (env: Record<string, string>, dayMatch?: DayMatch) => {
    const { net } = recordingNet({ schedule: '0 9 13 * 5' })
    return loadConfig(
      { LEASECRON_FORGE: 'sandbox', ...env },
      [{ ...net, ...(dayMatch ? { dayMatch } : {}) }],
      TEST_LEASES,
    )
  }

  it('is required for a schedule restricting both day fields, and named in the refusal', () => {
    const loaded = load({})
    expect(loaded.ok).toBe(false)
    expect(JSON.stringify(loaded.ok ? [] : loaded.issues)).toMatch(
      /LEASECRON_NET_TICK_NET_DAY_MATCH, or dayMatch/,
    )
  })

  it('reads any or all, from the variable over the net’s own dayMatch', () => {
    const fromVariable = load({ LEASECRON_NET_TICK_NET_DAY_MATCH: 'all' }, 'any')
    expect(fromVariable.ok && fromVariable.config.nets[0]!.dayMatch).toBe('all')
    const fromNet = load({}, 'any')
    expect(fromNet.ok && fromNet.config.nets[0]!.dayMatch).toBe('any')
  })

  it('refuses another word, naming the variable and the two choices', () => {
    const loaded = load({ LEASECRON_NET_TICK_NET_DAY_MATCH: 'both' })
    expect(loaded.ok).toBe(false)
    const issues = loaded.ok ? [] : loaded.issues
    expect(issues, 'one issue, the variable’s: the schedule is not refused again').toEqual([
      expect.objectContaining({
        variable: 'LEASECRON_NET_TICK_NET_DAY_MATCH',
        expected: expect.stringMatching(/`any`.*`all`/),
      }),
    ])
  })
})
