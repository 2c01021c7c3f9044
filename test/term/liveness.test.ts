/**
 * /healthz fails when the event loop stalls: real stalls (a synchronous busy wait) measured by Node's own
 * event-loop delay histogram, through the real HTTP server. Bounds are generous (stalls of seconds against
 * limits of seconds) so a loaded 2-core machine's ordinary jitter cannot decide a result.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type HealthServer, startHealthServer } from '../../src/worker/http.js'
import { DEFAULT_MAX_EVENT_LOOP_DELAY_MS, watchEventLoop } from '../../src/term/liveness.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { createCampaignHeartbeats } from '../../src/term/campaign-heartbeats.js'
import { type Clock, systemClock } from '../../src/lease/clock.js'

/** Blocks the event loop for `ms`, then lets the histogram's timer record the delay. */
async function stall(ms: number): Promise<void> {
  // The histogram measures between two of its own ticks: let the first one happen before blocking.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const until = performance.now() + ms
  while (performance.now() < until) {
    // busy: the stuck pass this models
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
}

describe('event-loop liveness', () => {
  it('is lost after a stall longer than the limit, and back at the next check', async () => {
    const liveness = watchEventLoop(2_000)
    try {
      await stall(3_000)
      const stalled = liveness.check()
      expect(stalled.live, 'a 3 s stall passed a 2 s limit').toBe(false)
      expect(stalled.eventLoopDelayMs).toBeGreaterThanOrEqual(2_500)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(liveness.check().live, 'one stall kept failing later checks').toBe(true)
    } finally {
      liveness.stop()
    }
  })

  it('holds through short pauses under the limit', async () => {
    const liveness = watchEventLoop(3_000)
    try {
      await stall(300)
      expect(liveness.check()).toMatchObject({ live: true, maxEventLoopDelayMs: 3_000 })
    } finally {
      liveness.stop()
    }
  })
})

describe('/healthz', () => {
  let server: HealthServer | undefined
  afterEach(() => server?.close())

  it('answers 503 "stalled" after the event loop stalled past the limit, then 200 again', async () => {
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry: createWorkerMetrics().registry,
      ready: async () => ({ ready: true, detail: {} }),
    })
    const healthz = async () => {
      const response = await fetch(`http://127.0.0.1:${server!.port}/healthz`)
      return { status: response.status, body: await response.json() }
    }
    expect((await healthz()).status).toBe(200)
    await stall(DEFAULT_MAX_EVENT_LOOP_DELAY_MS + 1_000)
    const stalled = await healthz()
    expect(stalled.status, 'the kubelet would see a stalled worker as live').toBe(503)
    expect(stalled.body).toMatchObject({ status: 'stalled', live: false })
    expect((await healthz()).status, 'one stall would fail every later probe').toBe(200)
  }, 30_000)
})

describe('/healthz and campaign heartbeats', () => {
  let server: HealthServer | undefined
  afterEach(() => server?.close())

  it('answers 503 "stuck" naming the net whose campaign went silent past its limit, 200 once it beats', async () => {
    // A clock of the test's own: the heartbeats read only its monotonic time.
    let monotonic = 0
    const clock: Clock = { ...systemClock, monotonic: () => monotonic }
    const heartbeats = createCampaignHeartbeats(clock)
    const campaign = heartbeats.watch({ lease: 'merge-gate', net: 'merge-gate-sweeper', limitMs: 9_000 })
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry: createWorkerMetrics().registry,
      ready: async () => ({ ready: true, detail: {} }),
      staleCampaigns: () => heartbeats.stale(),
    })
    const healthz = async () => {
      const response = await fetch(`http://127.0.0.1:${server!.port}/healthz`)
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }
    monotonic = 9_000
    expect((await healthz()).status, 'a campaign at its limit was called stuck').toBe(200)
    monotonic = 9_001
    const stuck = await healthz()
    expect(stuck.status, 'the kubelet would see a stuck campaign as live').toBe(503)
    expect(stuck.body).toMatchObject({ status: 'stuck', live: false })
    expect(String(stuck.body.detail)).toContain(
      'merge-gate-sweeper (lease merge-gate): no attempt for 9001 ms',
    )
    campaign.beat()
    expect((await healthz()).status, 'a campaign that attempted again stayed stuck').toBe(200)
    monotonic = 100_000
    campaign.end()
    expect((await healthz()).status, 'an ended campaign was called stuck').toBe(200)
    const crashed = heartbeats.watch({ lease: 'board-sync', net: 'board-issue-sync', limitMs: 9_000 })
    crashed.fail(new TypeError('record.expiresAt.getTime is not a function'))
    const dead = await healthz()
    expect(dead.status, 'the kubelet would see a net nobody campaigns for as live').toBe(503)
    expect(String(dead.body.detail)).toContain(
      'board-issue-sync (lease board-sync): the campaign ended abnormally (TypeError: record.expiresAt.getTime is not a function)',
    )
  })
})
