/**
 * slotsAtOrBefore (one walk back over many slots, for the election's catch-up) gives exactly the slots that
 * slotAtOrBefore gives one at a time, on ordinary days and across daylight-saving changes of both rules.
 */
import { describe, expect, it } from 'vitest'
import { slotAtOrBefore, slotsAtOrBefore } from '../../src/schedule/schedule.js'

/** The first `count` slots back from `from`, one slotAtOrBefore call each (the rule's reference). */
function oneAtATime(schedule: string, from: Date, zone: string, count: number): string[] {
  const out: string[] = []
  let slot = slotAtOrBefore(schedule, from, zone)
  for (let i = 0; i < count; i++) {
    out.push(slot.toISOString())
    slot = slotAtOrBefore(schedule, new Date(slot.getTime() - 1), zone)
  }
  return out
}

function walked(schedule: string, from: Date, zone: string, count: number): string[] {
  const out: string[] = []
  for (const slot of slotsAtOrBefore(schedule, from, zone)) {
    out.push(slot.toISOString())
    if (out.length === count) break
  }
  return out
}

const CASES: Array<[schedule: string, zone: string, from: string, count: number]> = [
  ['* * * * * *', 'UTC', '2026-10-01T12:00:00.400Z', 300],
  ['*/15 * * * *', 'Europe/Berlin', '2026-03-29T04:00:00Z', 24],
  ['*/15 * * * *', 'Europe/Berlin', '2026-10-25T03:10:00Z', 24],
  ['*/20 * * * *', 'America/New_York', '2026-11-01T08:00:00Z', 20],
  ['*/20 * * * *', 'America/New_York', '2026-03-08T09:00:00Z', 20],
  ['*/10 * * * *', 'Australia/Lord_Howe', '2026-04-05T16:00:00Z', 30],
  ['*/10 * * * *', 'Australia/Lord_Howe', '2026-10-03T17:00:00Z', 30],
  ['0 * * * *', 'Europe/Berlin', '2026-03-29T06:00:00Z', 12],
  ['0 * * * *', 'America/New_York', '2026-11-01T09:30:00Z', 12],
  ['30 * * * *', 'Australia/Lord_Howe', '2026-10-03T18:00:00Z', 10],
  ['30 2 * * *', 'Europe/Berlin', '2026-11-02T00:00:00Z', 300],
  ['0 2 * * *', 'America/New_York', '2026-03-10T00:00:00Z', 5],
  ['0 9 * * 1-5', 'Europe/Berlin', '2026-04-01T12:00:00Z', 15],
]

describe('slotsAtOrBefore', () => {
  it.each(CASES)(
    'walks %s in %s back from %s exactly as slotAtOrBefore steps',
    (schedule, zone, from, count) => {
      const reference = oneAtATime(schedule, new Date(from), zone, count)
      expect(
        walked(schedule, new Date(from), zone, count),
        'the walk skipped, repeated or reordered a slot',
      ).toEqual(reference)
      expect(new Set(reference).size, 'the reference itself repeated a slot').toBe(count)
    },
  )
})
