/**
 * The holder honours its net's controls: a paused net's slots are recorded `paused`, a pause expires by
 * itself, a run request runs as a manual slot within the poll interval, `--abort` ends the pass in flight,
 * a catch-up runs the paused slots, and a control store that does not answer fails open.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, MemoryRunLedger, MemoryStore, systemClock } from '../../src/index.js'
import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import type { NetControlStore } from '../../src/control/net-control-store.js'
import { CONTROL_POLL_MS } from '../../src/worker/holder-controls.js'
import { createLogger } from '../../src/worker/logger.js'
import { createWorkerMetrics } from '../../src/worker/metrics.js'
import { runNetCampaign } from '../../src/worker/scheduler.js'
import type { PassForge } from '../../src/worker/slot-pass.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const noForge: PassForge = {
  get octokit(): never {
    throw new Error('these passes never talk to the forge')
  },
}
const T0 = new Date('2026-09-30T15:00:00.200Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const TICK_ONLY = { LEASECRON_NET_TICK_NET_CATCH_UP: 'none', LEASECRON_NET_TICK_NET_TIMEOUT: '10m' }

function campaign(net: Parameters<typeof loadConfig>[1][number], controls: NetControlStore) {
  const loaded = loadConfig(TICK_ONLY, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error('test net configuration rejected')
  const stop = new AbortController()
  const ledger = new MemoryRunLedger()
  const metrics = createWorkerMetrics()
  const done = runNetCampaign({
    store: new MemoryStore(),
    ledger,
    runHistory: 1000,
    owner: 'alpha',
    net: loaded.config.nets[0]!,
    resources: {},
    forge: noForge,
    log: createLogger({ level: 'silent' }),
    metrics,
    clock: systemClock,
    signal: stop.signal,
    controls,
  })
  const finish = async () => {
    stop.abort()
    await vi.advanceTimersByTimeAsync(1000)
    await done
  }
  return { ledger, finish, metrics }
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(T0)
})
afterEach(() => vi.useRealTimers())

describe('the holder honouring its net’s controls', () => {
  it('records each slot due while the net is paused as paused, with who and why, and runs none', async () => {
    const controls = new MemoryNetControlStore()
    await controls.pause('tick-net', { reason: 'forge maintenance', by: 'ann' }, T0)
    const { net, passes } = recordingNet()
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(passes, 'a paused net ran a pass').toEqual([])
    const runs = await c.ledger.history('tick-net', 10)
    expect(runs.map((r) => [r.slot.toISOString(), r.outcome, r.error])).toEqual([
      ['2026-09-30T15:00:03.000Z', 'paused', 'paused by ann: forge maintenance'],
      ['2026-09-30T15:00:02.000Z', 'paused', 'paused by ann: forge maintenance'],
      ['2026-09-30T15:00:01.000Z', 'paused', 'paused by ann: forge maintenance'],
    ])
    await controls.resume('tick-net', {}, new Date())
    await vi.advanceTimersByTimeAsync(1_000)
    expect(
      passes.map((p) => p.slot),
      'the net did not run again after resume',
    ).toEqual(['2026-09-30T15:00:04.000Z'])
    await c.finish()
  })

  it('runs again by itself once a pause’s until has passed', async () => {
    const controls = new MemoryNetControlStore()
    await controls.pause('tick-net', { until: at(2_500) }, T0)
    const { net, passes } = recordingNet()
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(4_000)
    expect(
      passes.map((p) => p.slot),
      'an expired pause still held the net',
    ).toEqual(['2026-09-30T15:00:03.000Z', '2026-09-30T15:00:04.000Z'])
    const outcomes = (await c.ledger.history('tick-net', 10)).map((r) => r.outcome)
    expect(outcomes).toEqual(['ok', 'ok', 'paused', 'paused'])
    await c.finish()
  })

  it('runs a requested run within the poll interval as a manual slot, once, and clears the request', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ schedule: '0 3 * * *' })
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(100)
    const { request } = await controls.request('tick-net', 'run', { by: 'ann' }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(
      passes.map((p) => p.slot),
      'a daily net waited for its next slot',
    ).toEqual([request.at.toISOString()])
    expect(await c.ledger.get('tick-net', request.at, { manual: true })).toMatchObject({
      id: `tick-net@manual@${request.at.toISOString()}`,
      manual: true,
      outcome: 'ok',
    })
    expect((await controls.get('tick-net', new Date())).run, 'the request was left pending').toBe(undefined)
    await vi.advanceTimersByTimeAsync(3 * CONTROL_POLL_MS)
    expect(passes, 'one request ran twice').toHaveLength(1)
    await c.finish()
  })

  it('aborts the pass in flight on a pause with abort, and records the next slots paused', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ passMs: () => 60_000 })
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(1_500)
    expect(passes).toHaveLength(1)
    await controls.pause('tick-net', { abort: true, by: 'ann' }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(passes[0]?.aborted, 'the pass in flight ran on after pause --abort').toBe(true)
    const runs = await c.ledger.history('tick-net', 20)
    expect(runs.find((r) => r.slot.toISOString() === '2026-09-30T15:00:01.000Z')?.outcome).toBe('aborted')
    expect(runs.filter((r) => r.outcome === 'paused').length, 'no slot was recorded paused').toBeGreaterThan(
      0,
    )
    expect(passes, 'a pass ran while paused').toHaveLength(1)
    await c.finish()
  })

  it('runs the paused slots oldest first on a catch-up request', async () => {
    const controls = new MemoryNetControlStore()
    await controls.pause('tick-net', {}, T0)
    const { net, passes } = recordingNet({ schedule: '*/2 * * * * *' })
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(4_000)
    expect(passes).toEqual([])
    // A pause on a slow schedule: resume just after a tick, so the catch-up runs before the next one.
    await controls.resume('tick-net', { catchUp: true }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    const slots = passes.map((p) => p.slot)
    expect(slots.slice(0, 2), 'the paused slots did not run, oldest first').toEqual([
      '2026-09-30T15:00:02.000Z',
      '2026-09-30T15:00:04.000Z',
    ])
    const runs = await c.ledger.history('tick-net', 20)
    expect(
      runs.filter((r) => r.outcome === 'paused'),
      'a paused slot was left',
    ).toEqual([])
    expect((await controls.get('tick-net', new Date())).catchUp).toBe(undefined)
    await c.finish()
  })

  it('runs as scheduled when the control store does not answer (fail open)', async () => {
    const controls = new MemoryNetControlStore()
    controls.get = async () => {
      throw new Error('no answer')
    }
    const { net, passes } = recordingNet()
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(2_000)
    expect(passes, 'an unreadable control stopped the net').toHaveLength(2)
    await c.finish()
  })
})
