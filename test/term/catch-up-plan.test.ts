/**
 * The catch-up planner, exhaustively: which due slots an election runs and which it records `missed`, for
 * each policy, window, cap and lookback, a new net, gaps in the middle of the record and daylight-saving
 * change days (the slots come from schedule.ts by the DST rule).
 */
import { describe, expect, it } from 'vitest'
import { type CatchUpInput, planCatchUp } from '../../src/term/catch-up-plan.js'
import type { CatchUpPolicy } from '../../src/index.js'

const HOUR = 3_600_000
const NOW = '2026-10-01T12:00:30.000Z'
/** The hourly slot `h` hours before 12:00Z on 2026-10-01 (0 → 12:00Z, the newest due at NOW). */
const hoursBack = (h: number) => new Date(Date.parse('2026-10-01T12:00:00.000Z') - h * HOUR)
const iso = (slots: readonly Date[]) => slots.map((s) => s.toISOString().slice(0, 16))
const hours = (...back: number[]) => iso(back.map(hoursBack))

function plan(over: Partial<CatchUpInput> & { policy: CatchUpPolicy }) {
  return planCatchUp({
    schedule: '0 * * * *',
    timeZone: 'UTC',
    now: new Date(NOW),
    windowMs: 24 * HOUR,
    max: 10,
    recorded: [],
    lookback: 1000,
    ...over,
  })
}

/** A ledger that ran every hourly slot from `from` hours back to `to` hours back (inclusive). */
const ranFrom = (from: number, to = from) =>
  Array.from({ length: from - to + 1 }, (_, i) => hoursBack(from - i))

describe('planning a catch-up', () => {
  it('runs only the newest due slot of a new net under latest and all, records nothing, and runs nothing under none', () => {
    for (const policy of ['latest', 'all'] as const) {
      const p = plan({ policy, recorded: [] })
      expect(iso(p.run), `${policy}: a new net must run its newest slot, as before catch-up`).toEqual(
        hours(0),
      )
      expect(p.missed, `${policy}: a new net recorded its past as missed`).toEqual([])
      expect(p.floor).toBeUndefined()
    }
    expect(plan({ policy: 'none', recorded: [] })).toEqual({ run: [], missed: [], lookbackExhausted: false })
  })

  it('plans as for a new net when the ledger did not answer: no record, only the newest slot’s claim', () => {
    expect(iso(plan({ policy: 'all', recorded: undefined }).run)).toEqual(hours(0))
    expect(plan({ policy: 'all', recorded: undefined }).missed).toEqual([])
    expect(plan({ policy: 'none', recorded: undefined }).run).toEqual([])
  })

  it('under all, does not run a new net’s newest slot when it is older than the window (latest still does)', () => {
    const weekly = { schedule: '0 9 * * 1', now: new Date('2026-10-01T12:00:00Z'), recorded: [] }
    expect(plan({ ...weekly, policy: 'all' }).run).toEqual([])
    expect(iso(plan({ ...weekly, policy: 'latest' }).run)).toEqual(['2026-09-28T09:00'])
  })

  it('under all, runs every unrecorded slot within the window oldest first and records the older ones missed (window)', () => {
    // Ran up to 30 hours back; down since: 30 slots due, 0..23 hours back within 24h (the election is at :00:30).
    const p = plan({ policy: 'all', recorded: ranFrom(40, 30), max: 100 })
    expect(iso(p.run)).toEqual(
      hours(23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
    )
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(24, 25, 26, 27, 28, 29))
    expect(new Set(p.missed.map((m) => m.reason))).toEqual(
      new Set(['outside the catch-up window of 1d (CATCH_UP_WINDOW)']),
    )
    expect(p.floor?.toISOString()).toBe(hoursBack(40).toISOString())
  })

  it('under all, runs the newest CATCH_UP_MAX of the window and records the older ones in it missed (cap)', () => {
    const p = plan({ policy: 'all', recorded: ranFrom(40, 30), max: 3, windowMs: 6 * HOUR })
    expect(iso(p.run), 'the newest three, oldest first').toEqual(hours(2, 1, 0))
    const byReason = (text: string) => iso(p.missed.filter((m) => m.reason.includes(text)).map((m) => m.slot))
    expect(byReason('cap of 3 slots (CATCH_UP_MAX)')).toEqual(hours(3, 4, 5))
    expect(byReason('window of 6h')).toEqual(
      hours(6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29),
    )
    expect(p.run.length + p.missed.length, 'a due slot was neither run nor recorded').toBe(30)
  })

  it('runs a slot exactly the window old, and not one a second older', () => {
    const exact = plan({
      policy: 'all',
      now: new Date('2026-10-01T12:00:00Z'),
      recorded: ranFrom(10, 4),
      windowMs: 2 * HOUR,
    })
    expect(iso(exact.run)).toEqual(hours(2, 1, 0))
    const later = plan({
      policy: 'all',
      now: new Date('2026-10-01T12:00:01Z'),
      recorded: ranFrom(10, 4),
      windowMs: 2 * HOUR,
    })
    expect(iso(later.run)).toEqual(hours(1, 0))
    expect(iso(later.missed.map((m) => m.slot))).toEqual(hours(2, 3))
  })

  it('under latest, runs the newest due slot and records every older unrecorded one missed', () => {
    const p = plan({ policy: 'latest', recorded: ranFrom(10, 5) })
    expect(iso(p.run)).toEqual(hours(0))
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(1, 2, 3, 4))
    expect(p.missed[0]?.reason).toBe(
      'CATCH_UP=latest: only the newest due slot runs after an outage longer than a takeover',
    )
  })

  it('under latest, runs a takeover’s whole gap oldest first when every unrecorded slot fell due within its bound', () => {
    // The holder ran 08:00 and died; 09:00–12:00 fell due by the election at 12:00:30, within a 4 h bound.
    const p = plan({ policy: 'latest', recorded: ranFrom(10, 4), takeoverMs: 3 * HOUR + 30_000 })
    expect(iso(p.run), 'a slot of the takeover’s gap was left unrun').toEqual(hours(3, 2, 1, 0))
    expect(p.missed).toEqual([])
  })

  it('under latest, runs only the newest slot when the oldest unrecorded one is older than the takeover bound', () => {
    // A millisecond short of the gap: an outage longer than a takeover, so latest keeps its meaning.
    const p = plan({ policy: 'latest', recorded: ranFrom(10, 4), takeoverMs: 3 * HOUR + 29_999 })
    expect(iso(p.run)).toEqual(hours(0))
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(1, 2, 3))
  })

  it('under latest, runs at most CATCH_UP_MAX of a takeover’s gap, the newest, and records the older ones missed', () => {
    const p = plan({ policy: 'latest', recorded: ranFrom(10, 4), takeoverMs: 4 * HOUR, max: 2 })
    expect(iso(p.run)).toEqual(hours(1, 0))
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(2, 3))
    expect(p.missed[0]?.reason).toBe('over the catch-up cap of 2 slots (CATCH_UP_MAX)')
  })

  it('under latest, runs only the newest slot when the lookback ran out before the gap’s oldest slot', () => {
    const p = plan({ policy: 'latest', recorded: ranFrom(10, 4), takeoverMs: 4 * HOUR, lookback: 3 })
    expect(p.lookbackExhausted).toBe(true)
    expect(iso(p.run)).toEqual(hours(0))
  })

  it('under latest, a recovery within a term runs only the newest slot, whatever the takeover bound', () => {
    const p = plan({ policy: 'latest', recorded: ranFrom(10, 4), takeoverMs: 4 * HOUR, occasion: 'recovery' })
    expect(iso(p.run)).toEqual(hours(0))
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(1, 2, 3))
  })

  it('under latest, runs nothing when the newest due slot has a record, and still accounts the older gap', () => {
    const p = plan({ policy: 'latest', recorded: [...ranFrom(10, 5), hoursBack(0)] })
    expect(p.run).toEqual([])
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(1, 2, 3, 4))
  })

  it('under none, records every unrecorded due slot missed and runs none', () => {
    const p = plan({ policy: 'none', recorded: ranFrom(10, 5) })
    expect(p.run).toEqual([])
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(0, 1, 2, 3, 4))
    expect(p.missed[0]?.reason).toMatch(/^CATCH_UP=none/)
  })

  it('plans only the gaps in the middle of the record, never a slot that has one', () => {
    const recorded = [...ranFrom(20, 15), ...ranFrom(12, 10), hoursBack(7), ...ranFrom(3, 1)]
    const all = plan({ policy: 'all', recorded })
    expect(iso(all.run)).toEqual(hours(14, 13, 9, 8, 6, 5, 4, 0))
    expect(all.missed).toEqual([])
    const latest = plan({ policy: 'latest', recorded })
    expect(iso(latest.run)).toEqual(hours(0))
    expect(iso(latest.missed.map((m) => m.slot))).toEqual(hours(4, 5, 6, 8, 9, 13, 14))
  })

  it('plans nothing again once its plan is in the ledger (a second election right after)', () => {
    for (const policy of ['latest', 'all', 'none'] as const) {
      const recorded = ranFrom(40, 30)
      const first = plan({ policy, recorded, max: 4, windowMs: 8 * HOUR })
      const after = [...recorded, ...first.run, ...first.missed.map((m) => m.slot)]
      const second = plan({ policy, recorded: after, max: 4, windowMs: 8 * HOUR })
      expect({ run: second.run, missed: second.missed }, `${policy}: a second election re-planned`).toEqual({
        run: [],
        missed: [],
      })
    }
  })

  it('looks at no slot at or before the oldest record, nor after the election', () => {
    const p = plan({ policy: 'none', recorded: [hoursBack(3), new Date('2026-10-01T13:00:00Z')] })
    expect(
      iso(p.missed.map((m) => m.slot)),
      'a slot older than the ledger’s oldest record was accounted',
    ).toEqual(hours(0, 1, 2))
    const ahead = plan({ policy: 'none', recorded: [new Date('2026-10-01T13:00:00Z')] })
    expect(ahead.missed, 'a record after the election made the whole past a gap').toEqual([])
  })

  it('looks back over at most `lookback` slots, recorded or not, and says so', () => {
    const p = plan({ policy: 'none', recorded: [hoursBack(100), hoursBack(2)], lookback: 5 })
    expect(iso(p.missed.map((m) => m.slot))).toEqual(hours(0, 1, 3, 4))
    expect(p.lookbackExhausted).toBe(true)
    expect(plan({ policy: 'none', recorded: [hoursBack(4)], lookback: 4 }).lookbackExhausted).toBe(false)
  })
})

describe('planning a catch-up across daylight-saving changes', () => {
  const berlinDaily = { schedule: '30 2 * * *', timeZone: 'Europe/Berlin', windowMs: 10 * 24 * HOUR }

  it('finds each day’s one slot of 30 2 * * * in Europe/Berlin across the spring change, at 03:00 on the change day', () => {
    // Ran on 2026-03-26 (02:30 +01:00 = 01:30Z); down until the 31st.
    const p = plan({
      ...berlinDaily,
      policy: 'all',
      now: new Date('2026-03-31T12:00:00Z'),
      recorded: [new Date('2026-03-26T01:30:00Z')],
    })
    expect(p.run.map((s) => s.toISOString())).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ])
  })

  it('finds the repeated 02:30 in Europe/Berlin once on the autumn change day (its first occurrence)', () => {
    const p = plan({
      ...berlinDaily,
      policy: 'none',
      now: new Date('2026-10-26T12:00:00Z'),
      recorded: [new Date('2026-10-23T00:30:00Z')],
    })
    expect(p.missed.map((m) => m.slot.toISOString())).toEqual([
      '2026-10-26T01:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-24T00:30:00.000Z',
    ])
  })

  it('finds every real instant of a quarter-hourly schedule through New York’s repeated hour, none twice', () => {
    const p = plan({
      schedule: '*/15 * * * *',
      timeZone: 'America/New_York',
      policy: 'all',
      max: 1000,
      now: new Date('2026-11-01T07:00:00Z'),
      recorded: [new Date('2026-11-01T04:45:00Z')],
    })
    // 00:45 −04:00 was recorded; 01:00–01:45 −04:00, then 01:00–01:45 −05:00, then 02:00 −05:00.
    expect(p.run).toHaveLength(9)
    const steps = p.run.slice(1).map((s, i) => s.getTime() - p.run[i]!.getTime())
    expect(new Set(steps), 'the repeated hour was skipped or doubled').toEqual(new Set([15 * 60_000]))
    expect(p.run[0]?.toISOString()).toBe('2026-11-01T05:00:00.000Z')
    expect(p.run.at(-1)?.toISOString()).toBe('2026-11-01T07:00:00.000Z')
  })

  it('finds every real instant of a quarter-hourly schedule across Lord Howe’s half-hour spring shift', () => {
    // 2026-10-04 02:00 +10:30 → 02:30 +11:00: the wall times 02:00 and 02:15 do not exist.
    const p = plan({
      schedule: '*/15 * * * *',
      timeZone: 'Australia/Lord_Howe',
      policy: 'none',
      now: new Date('2026-10-03T16:00:00Z'),
      recorded: [new Date('2026-10-03T14:45:00Z')],
    })
    const slots = p.missed.map((m) => m.slot.getTime()).reverse()
    expect(slots.slice(1).map((s, i) => s - slots[i]!)).toEqual(Array(slots.length - 1).fill(15 * 60_000))
    expect(slots).toHaveLength(5)
  })
})

describe('planning a catch-up within START_AT and END_AT', () => {
  it('runs and records nothing before START_AT’s first slot has come', () => {
    for (const recorded of [[], ranFrom(10, 5)]) {
      const p = plan({ policy: 'latest', recorded, startAt: new Date('2026-10-01T12:30:00Z') })
      expect([iso(p.run), p.missed], `with ${recorded.length} runs recorded`).toEqual([[], []])
    }
  })

  it('looks at no slot before START_AT: the gap before it is neither run nor recorded missed', () => {
    const p = plan({ policy: 'all', recorded: ranFrom(10, 8), startAt: hoursBack(3) })
    expect(iso(p.run), 'a slot before START_AT was planned').toEqual(hours(3, 2, 1, 0))
    expect(p.missed, 'a slot before START_AT was recorded missed').toEqual([])
  })

  it('plans from END_AT’s last slot, never one after it', () => {
    const p = plan({
      policy: 'all',
      recorded: ranFrom(10, 5),
      endAt: new Date(hoursBack(2).getTime() + 60_000),
    })
    expect(iso(p.run)).toEqual(hours(4, 3, 2))
    expect(p.missed).toEqual([])
  })
})
