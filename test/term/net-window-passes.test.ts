/**
 * START_AT and END_AT bound every path that runs a slot: the worker's term (its ticks and its election's
 * catch-up, driven by fake timers), `once` (on the in-memory runtime and the test Mongo: nothing claimed or
 * recorded outside them), backfill's plan, and the net's state (`finished` past END_AT, `starting` before
 * START_AT's first slot). The configuration's side is test/config/net-window-config.test.ts.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, MemoryRunLedger } from '../../src/index.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import { netState } from '../../src/status/net-state.js'
import { planBackfill } from '../../src/term/backfill-plan.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { netPlans } from '../../src/worker/status/worker-status.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { campaignOptions } from '../support/term-specs.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const opened: PassRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})
afterEach(() => vi.useRealTimers())

const T0 = '2026-09-30T15:00:00.200Z'
const WINDOW = {
  LEASECRON_NET_TICK_NET_START_AT: '2026-09-30T15:00:03Z',
  LEASECRON_NET_TICK_NET_END_AT: '2026-09-30T15:00:06Z',
}

/** tick-net (every second) under `env`, its config loaded. */
function netUnder(env: Record<string, string>) {
  const recording = recordingNet()
  const loaded = loadConfig({ LEASECRON_FORGE: 'sandbox', ...env }, [recording.net], TEST_LEASES, {
    needsForge: false,
  })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return { ...recording, config: loaded.config, net: loaded.config.nets[0]! }
}

/** A term from `from` for `ms` of fake time; the slots its passes served and the ledger it wrote. */
async function drive(env: Record<string, string>, from: string, ms: number) {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date(from))
  const { net, passes } = netUnder(env)
  const ledger = new MemoryRunLedger()
  const stop = new AbortController()
  const done = runNetCampaign(
    campaignOptions(net, { ledger, runHistory: 1000, owner: 'alpha', signal: stop.signal }),
  )
  await vi.advanceTimersByTimeAsync(ms)
  stop.abort()
  await vi.advanceTimersByTimeAsync(1000)
  await done
  return { served: passes.map((p) => p.slot!.slice(17, 19)), ledger }
}

describe('a term under START_AT and END_AT', () => {
  it('serves the slots from START_AT to END_AT and none before or after', async () => {
    const { served, ledger } = await drive(WINDOW, T0, 9_000)
    expect(served).toEqual(['03', '04', '05', '06'])
    const recorded = (await ledger.history('tick-net', 20)).map((r) => r.slot.toISOString().slice(17, 19))
    expect(recorded.sort(), 'a slot outside the window was recorded').toEqual(['03', '04', '05', '06'])
  })

  it('elected after END_AT, catches up no slot past it and records nothing missed', async () => {
    const env = {
      ...WINDOW,
      LEASECRON_NET_TICK_NET_CATCH_UP: 'all',
      LEASECRON_NET_TICK_NET_CATCH_UP_WINDOW: '1h',
    }
    const { served, ledger } = await drive(env, '2026-09-30T15:00:09.200Z', 3_000)
    // A net with nothing recorded catches up its newest due slot: END_AT's last, never one after it.
    expect(served, 'the catch-up ran a slot past END_AT').toEqual(['06'])
    expect((await ledger.history('tick-net', 20)).map((r) => r.outcome)).not.toContain('missed')
  })
})

describe.each(['memory', 'mongo'] as const)('once under START_AT and END_AT, on the %s store', (store) => {
  it('runs a slot inside them, and answers outside-window for one outside, claiming nothing', async () => {
    const now = Date.now()
    const env: Record<string, string> = {
      LEASECRON_NET_TICK_NET_START_AT: new Date(now - 60_000).toISOString(),
      LEASECRON_NET_TICK_NET_END_AT: new Date(now + 60_000).toISOString(),
    }
    if (store === 'mongo') {
      const database = await useTestDatabase('once_window')
      Object.assign(env, { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
    }
    const { config, net, passes } = netUnder(env)
    const runtime = await openRuntime({ config, log })
    opened.push(runtime)
    const once = (slot: Date) =>
      runOnceOnRuntime({
        ...{ runtime, config, net, slot, owner: ownerId('window-once'), log },
        signal: new AbortController().signal,
      })
    const inside = new Date(Math.floor(now / 1000) * 1000)
    expect((await once(inside)).outcome).toBe('ran')
    const before = new Date(Math.floor((now - 120_000) / 1000) * 1000)
    const result = await once(before)
    expect(result.outcome).toBe('outside-window')
    expect(result.error).toMatch(/START_AT/)
    expect(passes.map((p) => p.slot)).toEqual([inside.toISOString()])
    const recorded = await runtime.ledger.history('tick-net', 10)
    expect(
      recorded.map((r) => r.slot.toISOString()),
      'a slot outside the window was recorded',
    ).toEqual([inside.toISOString()])
  })
})

describe('backfill and the state under START_AT and END_AT', () => {
  it('lists only the window’s slots in a backfill of a wider range', () => {
    const { net } = netUnder(WINDOW)
    const plan = planBackfill({
      net,
      from: '2026-09-30T15:00:00Z',
      to: '2026-09-30T15:00:10Z',
      now: new Date('2026-09-30T16:00:00Z'),
      dryRun: true,
      yes: false,
      runHistory: 1000,
    })
    expect(plan.ok && plan.slots.map((s) => s.toISOString().slice(17, 19))).toEqual(['03', '04', '05', '06'])
  })

  it('is finished past END_AT once no pass runs, and starting before START_AT’s first slot', () => {
    const { config } = netUnder(WINDOW)
    const plan = netPlans(config.nets)[0]!
    const slot = new Date('2026-09-30T15:00:06Z')
    const ran = { slot, outcome: 'ok', startedAt: slot, finishedAt: new Date(slot.getTime() + 100) }
    expect(netState([ran], plan, new Date('2026-09-30T16:00:00Z'))).toBe('finished')
    expect(netState([{ slot, startedAt: slot }], plan, new Date('2026-09-30T15:00:06.500Z'))).not.toBe(
      'finished',
    )
    expect(netState([], plan, new Date('2026-09-30T15:00:02Z'))).toBe('starting')
    expect(netState([], plan, new Date('2026-09-30T15:00:05.500Z')), 'no success in the window').toBe('late')
  })
})
