/**
 * DAY_MATCH through the passes that run: a worker's term (runNetCampaign, fake timers) serves only the
 * slots of the reading chosen, and `once` (runOnceOnRuntime, on the in-memory runtime and the test Mongo)
 * claims the slot the same reading gives, recorded under the schedule's instant.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { DayMatch } from '../../src/schedule/schedule.js'
import { loadConfig, MemoryRunLedger } from '../../src/index.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import { scheduleOf } from '../../src/schedule/schedule.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { parseSlotOption } from '../../src/term/one-slot.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { campaignOptions } from '../support/term-specs.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const opened: PassRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})
afterEach(() => vi.useRealTimers())

/** The slots a term of tick-net on `schedule` under `dayMatch` serves over `hours` from `from` (UTC). */
async function drive(schedule: string, dayMatch: DayMatch, from: string, hours: number): Promise<string[]> {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date(from))
  const { net, passes } = recordingNet({ schedule })
  const env = { LEASECRON_NET_TICK_NET_DAY_MATCH: dayMatch, LEASECRON_NET_TICK_NET_CATCH_UP: 'none' }
  const loaded = loadConfig(env, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded)}`)
  const stop = new AbortController()
  const done = runNetCampaign(
    campaignOptions(loaded.config.nets[0]!, {
      ...{ ledger: new MemoryRunLedger(), runHistory: 10_000 },
      ...{ owner: 'alpha', signal: stop.signal },
    }),
  )
  for (let minute = 0; minute < hours * 60; minute += 10) await vi.advanceTimersByTimeAsync(10 * 60_000)
  stop.abort()
  await vi.advanceTimersByTimeAsync(1000)
  await done
  return passes.map((p) => p.slot!.slice(0, 13))
}

describe('a term under DAY_MATCH', () => {
  // 2026-06-01 is a Monday, the first of the month; 2026-06-02 a Tuesday within the first seven days.
  it('with all, serves the hours of the first Monday of June and none of the Tuesday after', async () => {
    const served = await drive('0 * 1-7 * 1', 'all', '2026-05-31T23:30:00Z', 48)
    expect(served).toHaveLength(24)
    expect(new Set(served.map((s) => s.slice(0, 10)))).toEqual(new Set(['2026-06-01']))
  })

  it('with any, serves every hour of both days', async () => {
    const served = await drive('0 * 1-7 * 1', 'any', '2026-05-31T23:30:00Z', 48)
    expect(served).toHaveLength(48)
    expect(new Set(served.map((s) => s.slice(0, 10)))).toEqual(new Set(['2026-06-01', '2026-06-02']))
  })
})

describe.each(['memory', 'mongo'] as const)('once under DAY_MATCH=all, on the %s store', (store) => {
  it('claims the slot of a day matching both fields, and finds none today when the weekday differs', async () => {
    const now = new Date()
    const [date, weekday] = [now.getUTCDate(), now.getUTCDay()]
    const { net } = recordingNet({ schedule: `* * ${date} * ${weekday}` })
    const env: Record<string, string> = {
      LEASECRON_FORGE: 'sandbox',
      LEASECRON_NET_TICK_NET_DAY_MATCH: 'all',
    }
    if (store === 'mongo') {
      const database = await useTestDatabase('once_day_match')
      Object.assign(env, { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
    }
    const loaded = loadConfig(env, [net], TEST_LEASES, { needsForge: false })
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
    const config = loaded.config
    const runtime = await openRuntime({ config, log })
    opened.push(runtime)
    const netConfig = config.nets[0]!
    const parsed = parseSlotOption(undefined, scheduleOf(netConfig), new Date(), netConfig.timeZone)
    if (!parsed.ok) throw new Error(parsed.expected)
    expect(
      Date.now() - parsed.slot.getTime(),
      'today matches both fields: the slot is this minute',
    ).toBeLessThan(120_000)
    const signal = new AbortController().signal
    const owner = ownerId('day-match-once')
    const result = await runOnceOnRuntime({
      runtime,
      config,
      net: netConfig,
      slot: parsed.slot,
      owner,
      log,
      signal,
    })
    expect(result.outcome).toBe('ran')
    const [record] = await runtime.ledger.history(netConfig.definition.name, 1)
    expect(record?.slot.toISOString()).toBe(parsed.slot.toISOString())

    // Another weekday with the same date: no slot today under all (under any, today's date would do).
    const other = { schedule: `* * ${date} * ${(weekday + 1) % 7}`, timeZone: 'UTC' }
    const all = parseSlotOption(undefined, scheduleOf({ ...other, dayMatch: 'all' }), now, 'UTC')
    const any = parseSlotOption(undefined, scheduleOf({ ...other, dayMatch: 'any' }), now, 'UTC')
    expect(all.ok && now.getTime() - all.slot.getTime()).toBeGreaterThan(86_400_000)
    expect(any.ok && now.getTime() - any.slot.getTime()).toBeLessThan(120_000)
  })
})
