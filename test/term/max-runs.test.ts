/**
 * MAX_RUNS (#40): a net runs at most that many scheduled slots — a slot whose pass started counts, whatever
 * its outcome; skipped slots and manual runs do not — then no path runs another and the net shows
 * `finished`, not `late`. Through the worker's term (fake timers, memory ledger), `once` on both stores and
 * a backfill; the variable and the field are refused (exit 78's issues) when not a whole number from 1 to
 * 1000.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, MemoryRunLedger } from '../../src/index.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import type { RunLedger } from '../../src/runs/run-ledger.js'
import { netState } from '../../src/status/net-state.js'
import { runBackfill } from '../../src/term/backfill.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { netPlans } from '../../src/worker/status/worker-status.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { backfillSpec, campaignOptions } from '../support/term-specs.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const opened: PassRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})
afterEach(() => vi.useRealTimers())

/** tick-net (every second) under `env`, with `own` fields on its definition. */
function netUnder(env: Record<string, string>, own: { maxRuns?: unknown } = {}) {
  const recording = recordingNet()
  return {
    ...recording,
    loaded: loadConfig(
      { LEASECRON_FORGE: 'sandbox', ...env },
      [{ ...recording.net, ...(own as { maxRuns?: number }) }],
      TEST_LEASES,
      {
        needsForge: false,
      },
    ),
  }
}

function configUnder(env: Record<string, string>, own: { maxRuns?: number } = {}) {
  const { loaded, passes } = netUnder(env, own)
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return { config: loaded.config, net: loaded.config.nets[0]!, passes }
}

const at = (seconds: number) => new Date(`2026-09-30T15:00:${String(seconds).padStart(2, '0')}.000Z`)

/** A slot an earlier term recorded, ended `outcome` after `attempts` attempts. */
async function recorded(
  ledger: RunLedger,
  seconds: number,
  outcome: 'ok' | 'failed' | 'skipped',
  attempts = 1,
) {
  const slot = at(seconds)
  await ledger.claim({ net: 'tick-net', slot, owner: 'earlier', fence: 1, startedAt: slot })
  const finishedAt = new Date(slot.getTime() + 100)
  await ledger.finish('tick-net', slot, 'earlier', 1, { finishedAt, outcome, attempts })
}

describe('LEASECRON_NET_<NET>_MAX_RUNS and maxRuns', () => {
  it('are read as a whole number of runs, the variable over the net’s own maxRuns, and unset by default', () => {
    expect(configUnder({ LEASECRON_NET_TICK_NET_MAX_RUNS: '12' }, { maxRuns: 3 }).net.maxRuns).toBe(12)
    expect(configUnder({}, { maxRuns: 3 }).net.maxRuns).toBe(3)
    expect(configUnder({}).net.maxRuns).toBeUndefined()
  })

  it.each(['0', '-1', '2.5', 'ten', '1001'])(
    'refuse MAX_RUNS=%s, naming the variable and what it expects',
    (value) => {
      const { loaded } = netUnder({ LEASECRON_NET_TICK_NET_MAX_RUNS: value })
      expect(loaded.ok, `MAX_RUNS=${value} was taken`).toBe(false)
      expect(loaded.ok ? [] : loaded.issues).toEqual([
        expect.objectContaining({
          variable: 'LEASECRON_NET_TICK_NET_MAX_RUNS',
          expected: expect.stringMatching(/whole number of runs from 1 to 1000/),
        }),
      ])
    },
  )

  it.each([0, 1.5, '3'])('refuse a net’s own maxRuns of %j, naming the net', (maxRuns) => {
    const { loaded } = netUnder({}, { maxRuns })
    expect(loaded.ok, `maxRuns ${JSON.stringify(maxRuns)} was taken`).toBe(false)
    expect(JSON.stringify(loaded.ok ? [] : loaded.issues)).toMatch(/maxRuns/)
  })
})

describe('a term of a net with MAX_RUNS', () => {
  it('runs its slots up to the cap, counting an earlier term’s runs but not a skipped slot, then runs and records nothing more and shows finished', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    })
    vi.setSystemTime(new Date('2026-09-30T15:00:03.200Z'))
    const ledger = new MemoryRunLedger()
    await recorded(ledger, 0, 'failed')
    await recorded(ledger, 1, 'skipped', 0)
    const { net, passes } = configUnder({ LEASECRON_NET_TICK_NET_MAX_RUNS: '3' })
    const stop = new AbortController()
    const done = runNetCampaign(campaignOptions(net, { ledger, runHistory: 1000, signal: stop.signal }))
    await vi.advanceTimersByTimeAsync(5_000)
    stop.abort()
    await vi.advanceTimersByTimeAsync(1_000)
    await done
    // :00 ran (failed) and :01 was skipped: the two left are the election's catch-up of :02 and :03
    // (a takeover's gap), and no tick after them runs.
    expect(passes.map((p) => p.slot)).toEqual([at(2).toISOString(), at(3).toISOString()])
    const runs = await ledger.history('tick-net', 100)
    expect(runs.map((r) => r.slot.toISOString()).sort(), 'a slot past the cap was recorded').toEqual(
      [at(0), at(1), at(2), at(3)].map((d) => d.toISOString()),
    )
    const plan = netPlans([net])[0]!
    expect(netState(runs, plan, new Date('2026-09-30T16:00:00Z'))).toBe('finished')
  })
})

describe.each(['memory', 'mongo'] as const)('once of a net with MAX_RUNS, on the %s store', (store) => {
  it('runs the cap’s slots, then answers finished claiming nothing; a manual run still runs', async () => {
    const env: Record<string, string> = { LEASECRON_NET_TICK_NET_MAX_RUNS: '2' }
    if (store === 'mongo') {
      const database = await useTestDatabase('max_runs_once')
      Object.assign(env, { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
    }
    const { config, net, passes } = configUnder(env)
    const runtime = await openRuntime({ config, log })
    opened.push(runtime)
    const once = (slot: Date, manual = false) =>
      runOnceOnRuntime({
        ...{ runtime, config, net, slot, owner: ownerId('max-runs-once'), log },
        signal: new AbortController().signal,
        ...(manual ? { manual: true } : {}),
      })
    const base = Math.floor(Date.now() / 60_000) * 60_000 - 60_000
    const second = (s: number) => new Date(base + s * 1000)
    expect((await once(second(0))).outcome).toBe('ran')
    expect((await once(second(1))).outcome).toBe('ran')
    const third = await once(second(2))
    expect(third.outcome, 'a slot past the cap ran').toBe('finished')
    expect(third.error).toMatch(/MAX_RUNS \(2\)/)
    // The manual run must find the lease free, or it answers `held` whatever the cap: on FerretDB, which
    // applies an update as read-then-write, a renewal still in flight at the release can write the third
    // once's term back until its expiry (a TTL, 3 s here); a release that missed its bound leaves it so too.
    await vi.waitFor(
      async () => {
        const lease = await runtime.store.get('tick-net')
        const free = !lease?.owner || (lease.expiresAt?.getTime() ?? 0) <= Date.now()
        expect(free, 'the third once’s lease was still held').toBe(true)
      },
      { timeout: 15_000, interval: 200 },
    )
    expect((await once(second(3), true)).outcome, 'a manual run was refused for the cap').toBe('ran')
    expect(passes).toHaveLength(3)
    const runs = await runtime.ledger.history('tick-net', 10)
    expect(
      runs.map((r) => r.slot.toISOString()),
      'the finished slot was recorded',
    ).not.toContain(second(2).toISOString())
    expect(netState(runs, netPlans([net])[0]!, new Date(base + 3_600_000))).toBe('finished')
  })
})

describe('a backfill and the state of a net with MAX_RUNS', () => {
  it('runs the backfill’s slots up to the cap and reports the rest not-run, saying why', async () => {
    const { net } = configUnder({ LEASECRON_NET_TICK_NET_MAX_RUNS: '2' })
    const ledger = new MemoryRunLedger()
    const result = await runBackfill(backfillSpec(net, [at(1), at(2), at(3)], { ledger }))
    expect(result.slots.map((s) => s.outcome)).toEqual(['ok', 'ok', 'not-run'])
    expect(result.slots[2]!.error).toMatch(/MAX_RUNS \(2\)/)
    expect(result.end).toBe('done')
    expect(await ledger.get('tick-net', at(3)), 'the slot past the cap was recorded').toBeUndefined()
  })

  it('is late, not finished, while fewer slots than the cap ran, and not finished while the last runs', () => {
    const plan = { schedule: '* * * * * *', timeZone: 'UTC', maxRuns: 2 }
    const now = new Date('2026-09-30T16:00:00Z')
    const ok = (s: number) => ({ slot: at(s), outcome: 'ok', attempts: 1 })
    expect(netState([ok(1)], plan, now)).toBe('late')
    expect(netState([ok(1), { slot: at(2), outcome: 'skipped', attempts: 0 }], plan, now)).toBe('late')
    expect(netState([ok(1), { slot: at(2), outcome: 'ok', attempts: 1, manual: true }], plan, now)).toBe(
      'late',
    )
    expect(netState([ok(1), ok(2)], plan, now)).toBe('finished')
    expect(netState([ok(1), { slot: at(2), startedAt: at(2) }], plan, now)).not.toBe('finished')
  })
})
