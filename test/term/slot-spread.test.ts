import { expect, it } from 'vitest'
import { SPREAD_MAX_MS, shortestGapMs, slotSpreadMs } from '../../src/term/slot-spread.js'

const AT = new Date('2026-12-02T04:00:00Z')
const names = Array.from({ length: 100 }, (_, i) => `inst-tick:${1001 + i}`)

it('spreads a hundred installations of one net over the first quarter of a 30 s period', () => {
  const offsets = names.map((name) => slotSpreadMs(name, '*/30 * * * * *', 'UTC', AT))
  expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0)
  expect(Math.max(...offsets), 'a pass would start past a quarter of its period').toBeLessThan(7_500)
  // One-second buckets of the 7.5 s: a burst would put most passes in one of them.
  const buckets = new Map<number, number>()
  for (const o of offsets) buckets.set(Math.floor(o / 1000), (buckets.get(Math.floor(o / 1000)) ?? 0) + 1)
  expect(buckets.size, 'the passes still start within a second of each other').toBe(8)
  expect(Math.max(...buckets.values()), 'one second still takes a burst of the passes').toBeLessThan(25)
})

it('gives a net the same offset on every replica and every term', () => {
  const later = new Date('2027-03-01T00:00:00Z')
  for (const name of names.slice(0, 5))
    expect(slotSpreadMs(name, '*/30 * * * * *', 'UTC', AT)).toBe(
      slotSpreadMs(name, '*/30 * * * * *', 'UTC', later),
    )
})

it('bounds the offset by a minute for a daily schedule, and by the shortest gap of an irregular one', () => {
  for (const name of names) expect(slotSpreadMs(name, '0 3 * * *', 'UTC', AT)).toBeLessThan(SPREAD_MAX_MS)
  // 09:00 and 09:10 each day: the 10-minute gap bounds it, not the 23 h 50 min one.
  expect(shortestGapMs('0 0,10 9 * * *', 'UTC', AT)).toBe(600_000)
  for (const name of names) expect(slotSpreadMs(name, '*/4 * * * * *', 'UTC', AT)).toBeLessThan(1_000)
})
