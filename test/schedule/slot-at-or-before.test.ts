import cron from 'node-cron'
import { describe, expect, it } from 'vitest'
import { slotAtOrBefore } from '../../src/schedule/schedule.js'

describe('a schedule’s slot at or before an instant', () => {
  it.each([
    ['*/5 * * * *', '2026-09-30T15:05:00.000Z', '2026-09-30T15:05:00.000Z'],
    ['*/5 * * * *', '2026-09-30T15:04:59.999Z', '2026-09-30T15:00:00.000Z'],
    ['*/5 * * * *', '2026-09-30T15:09:30.500Z', '2026-09-30T15:05:00.000Z'],
    ['*/10 * * * * *', '2026-09-30T15:05:09.500Z', '2026-09-30T15:05:00.000Z'],
    ['0 9 * * mon', '2026-09-30T15:05:09.500Z', '2026-09-28T09:00:00.000Z'],
    ['0 0 1 * *', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
  ])('%s at %s is %s (UTC)', (schedule, at, slot) => {
    expect(slotAtOrBefore(schedule, new Date(at)).toISOString()).toBe(slot)
  })

  it('agrees with node-cron’s own fire times, so a tick and a trigger name the same slot', () => {
    for (const schedule of ['*/7 * * * * *', '*/2 * * * *', '15 */3 * * *']) {
      const task = cron.createTask(schedule, () => {}, { timezone: 'UTC' })
      try {
        for (const fire of task.getNextRuns(5)) {
          expect(slotAtOrBefore(schedule, fire).getTime(), `${schedule} at ${fire.toISOString()}`).toBe(
            fire.getTime(),
          )
          expect(slotAtOrBefore(schedule, new Date(fire.getTime() + 999)).getTime()).toBe(fire.getTime())
        }
      } finally {
        void task.destroy()
      }
    }
  })
})
