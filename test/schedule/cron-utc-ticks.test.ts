/**
 * cron-utc-ticks.ts against node-cron itself: for expressions of plain numbers, ranges, steps and lists
 * (and names), the Intl-free walk over node-cron's own parse gives exactly the fire times node-cron's
 * `getNextRuns` gives on a UTC clock, from the same instant. The day tokens are left to node-cron.
 */
import fc from 'fast-check'
import cron from 'node-cron'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { nodeCronUtcTicks } from '../../src/schedule/cron-utc-ticks.js'
import { checkSchedule } from '../../src/schedule/schedule.js'

/** node-cron's own next `count` fire times in UTC (through its Intl formatter), from the faked clock. */
function nodeCronTicks(expression: string, count: number): number[] {
  const task = cron.createTask(expression, () => {}, { timezone: 'Etc/UTC' })
  try {
    return task.getNextRuns(count).map((d) => d.getTime())
  } finally {
    void task.destroy()
  }
}

/** One field as people write it: `*`, a value, a range, a step, or a list of values. */
const field = (low: number, high: number) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min: low, max: high }).map(String),
    fc
      .tuple(fc.integer({ min: low, max: high }), fc.integer({ min: low, max: high }))
      .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.integer({ min: 2, max: Math.max(2, high - low) }).map((n) => `*/${n}`),
    fc
      .uniqueArray(fc.integer({ min: low, max: high }), { minLength: 2, maxLength: 4 })
      .map((xs) => xs.join(',')),
  )

const expression = fc
  .tuple(field(0, 59), field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 7))
  .map((fields) => fields.join(' '))

const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) })

describe('node-cron fire times on a UTC clock, without Intl', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('gives the same next twenty fire times as node-cron for any expression of plain fields', () => {
    fc.assert(
      fc.property(expression, instant, (text, now) => {
        vi.useFakeTimers({ toFake: ['Date'], now })
        const fields = cron.validateDetailed(text).fields
        if (fields === undefined) return // node-cron refuses it (an impossible day): nothing to walk
        const ours = nodeCronUtcTicks(fields, 20, now)
        expect(ours, `the check would read other intervals than node-cron ticks for ${text}`).toEqual(
          nodeCronTicks(text, 20),
        )
      }),
      { numRuns: 150 },
    )
  })

  it('agrees with node-cron on the schedules people write most, names and Sunday as 7 included', () => {
    const now = Date.UTC(2026, 1, 27, 23, 59, 30)
    vi.useFakeTimers({ toFake: ['Date'], now })
    for (const text of [
      '* * * * *',
      '*/5 * * * *',
      '0 3 * * 1-5',
      '30 2 29 2 *',
      '0 0 * * 7',
      '0 9 * jan,jul sun',
    ]) {
      const fields = cron.validateDetailed(text).fields!
      expect(nodeCronUtcTicks(fields, 10, now), text).toEqual(nodeCronTicks(text, 10))
    }
  })

  it('leaves the day tokens (L, W, #) to node-cron by answering undefined', () => {
    for (const text of ['0 0 L * *', '0 0 15W * *', '0 0 * * 1#2', '0 0 * * 5L']) {
      const fields = cron.validateDetailed(text).fields
      expect(fields, `node-cron accepts ${text}`).toBeDefined()
      expect(nodeCronUtcTicks(fields!, 5, Date.now()), text).toBeUndefined()
    }
  })

  it('still gives the schedule check its interval and its refusals', () => {
    expect(checkSchedule('*/5 * * * *')).toEqual({ ok: true, intervalMs: 300_000 })
    expect(checkSchedule('0 0 L * *')).toMatchObject({ ok: true })
    expect(checkSchedule('1-0 * * * *')).toMatchObject({ ok: false })
    expect(checkSchedule('0 0 1 * 1')).toMatchObject({ ok: false })
  })
})
