import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MemoryStore, loadConfig, systemClock } from '../../src/index.js'
import { createLogger } from '../../src/worker/logger.js'
import { createWorkerMetrics } from '../../src/worker/metrics.js'
import { runNetCampaign } from '../../src/worker/scheduler.js'
import type { ForgeOctokit } from '../../src/forge/github-app.js'
import { recordingNet, TEST_LEASES } from './test-nets.js'

// These passes never talk to the forge; the scheduler only hands the client through.
const noForge = undefined as unknown as ForgeOctokit
const silent = createLogger({ level: 'silent' })

function campaign(net: ReturnType<typeof recordingNet>['net'], store = new MemoryStore(), owner = 'alpha') {
  const loaded = loadConfig({}, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error('test net configuration rejected')
  const stop = new AbortController()
  const metrics = createWorkerMetrics()
  const done = runNetCampaign({
    store,
    owner,
    net: loaded.config.nets[0]!,
    resources: {},
    forge: noForge,
    log: silent,
    metrics,
    clock: systemClock,
    signal: stop.signal,
  })
  return { stop: () => stop.abort(), done, metrics, store }
}

async function counter(
  metrics: ReturnType<typeof createWorkerMetrics>,
  name: string,
  labels: Record<string, string>,
) {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)
  const found = metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
  return found?.value ?? 0
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date('2026-09-30T15:00:00.200Z'))
})
afterEach(() => vi.useRealTimers())

describe('the scheduler', () => {
  it('runs the first pass at the next tick of the schedule, not at election', async () => {
    const { net, passes } = recordingNet()
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(500)
    expect(passes, 'a pass ran before the first tick').toEqual([])
    await vi.advanceTimersByTimeAsync(600)
    expect(passes.map((p) => p.pass)).toEqual([1])
    await vi.advanceTimersByTimeAsync(3000)
    expect(passes.map((p) => p.pass)).toEqual([1, 2, 3, 4])
    c.stop()
    await vi.advanceTimersByTimeAsync(1000)
    await c.done
  })

  it('skips and counts a tick that finds the previous pass still running', async () => {
    const { net, passes } = recordingNet({ passMs: () => 2500 })
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(6_900)
    // Ticks 0.8 s apart from the start, then every second: passes start at 0.8 s (running to 3.3 s),
    // 3.8 s (to 6.3 s) and 6.8 s; the ticks at 1.8, 2.8, 4.8 and 5.8 s find a pass running.
    expect(passes.map((p) => p.pass)).toEqual([1, 2, 3])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'overlap' }),
    ).toBe(4)
    c.stop()
    await vi.advanceTimersByTimeAsync(1000)
    await c.done
  })

  it('aborts the pass in flight when the term ends and awaits it before releasing', async () => {
    const { net, passes } = recordingNet({ passMs: () => 60_000 })
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(1_500)
    expect(passes).toHaveLength(1)
    c.stop()
    await vi.advanceTimersByTimeAsync(100)
    await c.done
    expect(passes[0]?.aborted, 'the pass in flight was not told the term ended').toBe(true)
    expect(
      (await c.store.list()).filter((r) => r.owner !== undefined),
      'the lease stayed held after a clean stop',
    ).toEqual([])
  })

  it('logs a failing pass and keeps the term and its schedule', async () => {
    const { net, passes, terms } = recordingNet({ fail: (n) => n === 2 })
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(4_900)
    expect(passes.map((p) => p.pass)).toEqual([1, 2, 3, 4, 5])
    expect(terms(), 'a failing pass ended the term').toBe(1)
    expect(await counter(c.metrics, 'leasecron_pass_errors_total', { net: 'tick-net' })).toBe(1)
    c.stop()
    await vi.advanceTimersByTimeAsync(1000)
    await c.done
  })

  it('builds the term state afresh for every term', async () => {
    const { net, passes } = recordingNet()
    const store = new MemoryStore()
    const a = campaign(net, store, 'alpha')
    await vi.advanceTimersByTimeAsync(2_900)
    a.stop()
    await vi.advanceTimersByTimeAsync(100)
    await a.done
    const b = campaign(net, store, 'beta')
    await vi.advanceTimersByTimeAsync(2_000)
    b.stop()
    await vi.advanceTimersByTimeAsync(100)
    await b.done
    const second = passes.filter((p) => p.termId === 2)
    expect(second[0]?.pass, 'the new term did not start its pass counter afresh').toBe(1)
  })

  it('starts no pass once the term is past its step-down instant, even before the timer fires', async () => {
    const { net, passes } = recordingNet()
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(1_100)
    expect(passes).toHaveLength(1)
    // A blocked event loop: wall and monotonic time jump past the deadline with no timer having run.
    vi.setSystemTime(Date.now() + 10_000)
    const performanceNow = performance.now
    const jumped = performance.now() + 10_000
    performance.now = () => jumped
    try {
      await vi.advanceTimersToNextTimerAsync()
    } finally {
      performance.now = performanceNow
    }
    expect(passes, 'a pass started after the term’s deadline').toHaveLength(1)
    c.stop()
    await vi.advanceTimersByTimeAsync(1000)
    await c.done
  })
})
