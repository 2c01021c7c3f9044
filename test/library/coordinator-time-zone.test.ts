/**
 * leaseCoordinator with a node-cron task in a time zone: the zone is node-cron's own `timezone` task option
 * (the coordinator never sees the schedule, only each fire's key), and the ledger records each fire's slot
 * as the UTC instant node-cron fired it for.
 */
import cron from 'node-cron'
import { afterEach, expect, it, vi } from 'vitest'
import { leaseCoordinator, MemoryRunLedger, MemoryStore } from '../../src/index.js'

afterEach(() => vi.useRealTimers())

it('records a Europe/Berlin task’s 09:00 fires as their UTC instants, either side of the spring change', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
  vi.setSystemTime(new Date('2026-03-27T12:00:00Z'))
  const ledger = new MemoryRunLedger()
  const coordinator = leaseCoordinator({ store: new MemoryStore(), ledger })
  let fired = 0
  const task = cron.schedule('0 9 * * *', () => void fired++, {
    name: 'morning-digest',
    timezone: 'Europe/Berlin',
    distributed: true,
    runCoordinator: coordinator,
  })
  for (let hour = 0; hour < 3 * 24; hour++) await vi.advanceTimersByTimeAsync(3_600_000)
  await task.destroy()
  await coordinator.close()
  const slots = (await ledger.history('morning-digest', 10)).map((r) => r.slot.toISOString()).sort()
  expect(slots, '09:00 Berlin is 08:00Z in winter time and 07:00Z in summer time').toEqual([
    '2026-03-28T08:00:00.000Z',
    '2026-03-29T07:00:00.000Z',
    '2026-03-30T07:00:00.000Z',
  ])
  expect(fired).toBe(3)
})
