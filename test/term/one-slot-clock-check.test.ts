/**
 * The clock check of `once`, `backfill` and a serverless trigger (clock-check.ts), against the test Mongo:
 * a process whose clock is a day ahead of the server refuses with ClockSkewError (typed, naming the offset
 * and the limit) before its one campaign attempt — no lease taken, no slot recorded, no pass run — while
 * one whose clock agrees runs, and LEASECRON_CLOCK_GUARD=off campaigns anyway. The once path is
 * runOnceOnRuntime, the one a serverless trigger takes too (serverless/run-trigger.ts).
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { loadConfig } from '../../src/index.js'
import type { WorkerConfig } from '../../src/config/worker-config.js'
import { type Clock, systemClock } from '../../src/lease/clock.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { slotAtOrBefore } from '../../src/schedule/schedule.js'
import { runBackfill } from '../../src/term/backfill.js'
import { ClockSkewError, runtimeClockCheck } from '../../src/term/clock-check.js'
import { createLogger } from '../../src/observe/logger.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { backfillSpec } from '../support/term-specs.js'

const DAY = 24 * 3_600_000
/** A process clock a day ahead of the server's (and of this test's). */
const tomorrowClock: Clock = { ...systemClock, now: () => new Date(Date.now() + DAY) }
const log = createLogger({ level: 'silent' })

let database: TestDatabase
const opened: PassRuntime[] = []
beforeAll(async () => {
  database = await useTestDatabase('once_clock_check')
})
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})

async function open(env: Record<string, string> = {}) {
  const recording = recordingNet()
  const loaded = loadConfig(
    {
      MONGO_URI: mongoServer().url,
      MONGO_DB: database.db.databaseName,
      LEASECRON_FORGE: 'sandbox',
      LEASECRON_NET_TICK_NET_TTL_MS: '6000',
      ...env,
    },
    [recording.net],
    TEST_LEASES,
    { needsForge: false },
  )
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  const config: WorkerConfig = loaded.config
  const runtime = await openRuntime({ config, log })
  opened.push(runtime)
  return { config, runtime, net: config.nets[0]!, passes: recording.passes }
}

const lease = () =>
  database.db.collection<{ _id: string; token: string | null }>('leases').findOne({ _id: 'tick-net' })
const runs = () => database.db.collection('net_runs').countDocuments({})

describe('the clock check of the short-lived entries', () => {
  it('refuses a once a day ahead with ClockSkewError, taking no lease and recording nothing', async () => {
    const { config, runtime, net, passes } = await open()
    const slot = slotAtOrBefore(net.schedule, tomorrowClock.now())
    const owner = ownerId('skewed-once')
    const refused = await runOnceOnRuntime({
      ...{ runtime, config, net, slot, owner, log, signal: new AbortController().signal },
      clock: tomorrowClock,
    }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused, 'a once a day ahead campaigned').toBeInstanceOf(ClockSkewError)
    const error = refused as ClockSkewError
    expect([error.name, error.code, error.exitCode, error.lease]).toEqual([
      'ClockSkewError',
      'CLOCK_SKEW',
      75,
      'tick-net',
    ])
    expect(error.offsetMs).toBeGreaterThan(DAY - 60_000)
    expect(error.limitMs).toBe(1000)
    expect(error.message).toMatch(/ms ahead of the store's server/)
    expect(error.message).toContain('expected the offset within ±1000 ms')
    expect(await lease(), 'the skewed once took the lease').toBeNull()
    expect(await runs(), 'the skewed once recorded its slot').toBe(0)
    expect(passes).toEqual([])
  })

  it('refuses a backfill a day ahead the same way, before its campaign', async () => {
    const { config, runtime, net, passes } = await open()
    const check = runtimeClockCheck(runtime, config)
    expect(check, 'a runtime on Mongo had no clock check').toBeDefined()
    const slots = [slotAtOrBefore(net.schedule, new Date())]
    const refused = await runBackfill(
      backfillSpec(net, slots, {
        ...{ owner: ownerId('skewed-backfill'), store: runtime.store, ledger: runtime.ledger },
        ...{ runHistory: config.runHistory, pass: async () => async () => {}, forge: runtime.forge },
        ...{ clock: tomorrowClock, ...(check ? { clockCheck: check } : {}) },
      }),
    ).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused, 'a backfill a day ahead campaigned').toBeInstanceOf(ClockSkewError)
    expect(await lease()).toBeNull()
    expect(await runs()).toBe(0)
    expect(passes).toEqual([])
  })

  it('runs a once whose clock agrees with the server, and one a day ahead with LEASECRON_CLOCK_GUARD=off', async () => {
    const agreeing = await open()
    const now = new Date()
    const ran = await runOnceOnRuntime({
      ...agreeing,
      slot: slotAtOrBefore(agreeing.net.schedule, now),
      owner: ownerId('on-time'),
      log,
      signal: new AbortController().signal,
    })
    expect(ran.outcome).toBe('ran')
    const off = await open({ LEASECRON_CLOCK_GUARD: 'off' })
    expect(runtimeClockCheck(off.runtime, off.config)?.enforce).toBe(false)
    const anyway = await runOnceOnRuntime({
      ...off,
      slot: slotAtOrBefore(off.net.schedule, tomorrowClock.now()),
      owner: ownerId('guard-off'),
      log,
      signal: new AbortController().signal,
      clock: tomorrowClock,
    })
    expect(anyway.outcome, 'LEASECRON_CLOCK_GUARD=off still refused').toBe('ran')
  })

  it('ends `leasecron once` and `leasecron backfill` a day ahead with exit 75 and the reason, leaving no lease', async () => {
    const nets = fileURLToPath(new URL('../worker/status/fixtures/status-nets.ts', import.meta.url))
    const env = {
      MONGO_URI: mongoServer().url,
      MONGO_DB: database.db.databaseName,
      LEASECRON_FORGE: 'sandbox',
    }
    const err: string[] = []
    const io = { out: () => undefined, err: (line: string) => err.push(line), env }
    // Only the wall clock is a day ahead (the driver's timers and the server are not): a skewed host.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + DAY })
    try {
      expect(await main(['once', 'status-tick', '--config', nets, '--json'], io)).toBe(75)
      const to = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000)
      const from = new Date(to.getTime() - 2000).toISOString()
      const range = ['--from', from, '--to', to.toISOString(), '--yes']
      expect(await main(['backfill', 'status-tick', '--config', nets, ...range], io)).toBe(75)
    } finally {
      vi.useRealTimers()
    }
    expect(err.filter((l) => l.includes('ClockSkew') || l.includes('ahead of the store')).length).toBe(2)
    const taken = await database.db.collection('leases').findOne({ _id: 'status-tick' as never })
    expect(taken, 'a skewed command took the lease').toBeNull()
  })
})
