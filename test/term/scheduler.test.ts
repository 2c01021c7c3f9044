import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  defineNet,
  type LeaseStore,
  MemoryRunLedger,
  MemoryStore,
  RunLedgerError,
  loadConfig,
  systemClock,
} from '../../src/index.js'
import { createCampaignHeartbeats } from '../../src/term/campaign-heartbeats.js'
import { FaultyStore } from '../lease/faulty-store.js'
import type { RunClaim, RunLedger, RunLedgerCallOptions } from '../../src/runs/run-ledger.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { recordingNet, TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'
import { asPromRegistry } from '../../src/forge/meter/prom-registry.js'
import { campaignOptions } from '../support/term-specs.js'

const silent = createLogger({ level: 'silent' })
/**
 * The net's first pass waits for the schedule's first tick, as before the ledger; and its passes may
 * outlast the every-second schedule's interval (the default TIMEOUT) without being timed out.
 */
const TICK_ONLY = { LEASECRON_NET_TICK_NET_CATCH_UP: 'none', LEASECRON_NET_TICK_NET_TIMEOUT: '10m' }

/** A ledger whose store never answers a claim (the fault under test); other calls work. */
class DeafLedger extends MemoryRunLedger {
  override async claim(): Promise<boolean> {
    throw new RunLedgerError(
      'RUN_LEDGER_FAILED',
      { component: 'DeafLedger', operation: 'claim' },
      'no answer',
    )
  }
}

interface CampaignOptions {
  store?: LeaseStore
  owner?: string
  ledger?: RunLedger
  env?: Record<string, string>
  runHistory?: number
  log?: ReturnType<typeof createLogger>
  heartbeats?: ReturnType<typeof createCampaignHeartbeats>
}

function campaign(net: Parameters<typeof loadConfig>[1][number], options: CampaignOptions = {}) {
  const { store = new MemoryStore(), owner = 'alpha', ledger = new MemoryRunLedger(), heartbeats } = options
  const loaded = loadConfig(options.env ?? {}, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error('test net configuration rejected')
  const stop = new AbortController()
  const metrics = createWorkerMetrics()
  const done = runNetCampaign(
    campaignOptions(loaded.config.nets[0]!, {
      ...{ store, ledger, runHistory: options.runHistory ?? 1000, owner, log: options.log ?? silent },
      ...{ metrics, signal: stop.signal, ...(heartbeats ? { heartbeats } : {}) },
    }),
  )
  const { ttlMs } = loaded.config.nets[0]!.pacing
  /** Stops the campaign and lets its term end and release (fake timers advance past the release). */
  const finish = async () => {
    stop.abort()
    await vi.advanceTimersByTimeAsync(1000)
    await done
  }
  return { stop: () => stop.abort(), finish, done, metrics, store, ledger, ttlMs }
}

async function counter(
  metrics: ReturnType<typeof createWorkerMetrics>,
  name: string,
  labels: Record<string, string>,
) {
  const metric = (await asPromRegistry(metrics.registry).getMetricsAsJSON()).find((m) => m.name === name)
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
  it('runs the first pass at election, for the schedule’s most recent slot, then follows the schedule', async () => {
    const { net, passes } = recordingNet()
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(100)
    expect(
      passes.map((p) => p.slot),
      'no pass at election',
    ).toEqual(['2026-09-30T15:00:00.000Z'])
    await vi.advanceTimersByTimeAsync(3000)
    expect(passes.map((p) => p.pass)).toEqual([1, 2, 3, 4])
    expect(passes.map((p) => p.slot)).toEqual([
      '2026-09-30T15:00:00.000Z',
      '2026-09-30T15:00:01.000Z',
      '2026-09-30T15:00:02.000Z',
      '2026-09-30T15:00:03.000Z',
    ])
    expect(new Set(passes.map((p) => p.fence)).size, 'the passes of one term carry one fence').toBe(1)
    await c.finish()
  })

  it('logs one line per term with the net, the fence and the next pass time in UTC', async () => {
    const lines: Record<string, unknown>[] = []
    const destination = { write: (line: string) => void lines.push(JSON.parse(line)) }
    const log = createLogger({ level: 'info', destination, pretty: false })
    const { net } = recordingNet({ schedule: '*/5 * * * *' })
    const c = campaign(net, { log })
    await vi.advanceTimersByTimeAsync(100)
    const began = lines.filter((l) => typeof l.nextPassAt === 'string')
    expect(began, 'an operator cannot tell when an elected net will next run').toEqual([
      expect.objectContaining({
        level: 'info',
        net: net.name,
        fence: 1,
        nextPassAt: '2026-09-30T15:05:00.000Z',
      }),
    ])
    expect(String(began[0]!.msg)).toContain('2026-09-30T15:05:00.000Z')
    await c.finish()
  })

  it('writes a term line’s lease once, though its logger binds the lease and the line carries it too', async () => {
    const raw: string[] = []
    const log = createLogger({
      level: 'info',
      destination: { write: (l: string) => void raw.push(l) },
      pretty: false,
    })
    const { net } = recordingNet()
    const c = campaign(net, { log })
    await vi.advanceTimersByTimeAsync(100)
    const elected = raw.filter((l) => l.includes('"event":"elected"'))
    expect(elected, 'the election was not logged').toHaveLength(1)
    expect(elected[0]!.split('"lease":').length - 1, `a log reader sees the lease twice: ${elected[0]}`).toBe(
      1,
    )
    expect(JSON.parse(elected[0]!)).toEqual(
      expect.objectContaining({ lease: TICK_LEASE.name, owner: 'alpha' }),
    )
    await c.finish()
  })

  it('with CATCH_UP=none waits for the schedule’s next tick', async () => {
    const { net, passes } = recordingNet()
    const c = campaign(net, { env: TICK_ONLY })
    await vi.advanceTimersByTimeAsync(500)
    expect(passes, 'a pass ran before the first tick').toEqual([])
    await vi.advanceTimersByTimeAsync(600)
    expect(passes.map((p) => p.slot)).toEqual(['2026-09-30T15:00:01.000Z'])
    await c.finish()
  })

  it('records each pass in the ledger with its owner, fence and outcome, and the error of a failed one', async () => {
    const { net, passes } = recordingNet({ fail: (n) => n === 2 })
    const c = campaign(net)
    await vi.advanceTimersByTimeAsync(1_500)
    await c.finish()
    const runs = await c.ledger.history('tick-net', 10)
    expect(runs.map((r) => [r.slot.toISOString(), r.owner, r.fence, r.outcome])).toEqual([
      ['2026-09-30T15:00:01.000Z', 'alpha', passes[1]!.fence, 'failed'],
      ['2026-09-30T15:00:00.000Z', 'alpha', passes[0]!.fence, 'ok'],
    ])
    expect(runs[0]!.error).toMatch(/pass 2 failed on purpose/)
    expect(runs[1]!.finishedAt, 'a finished pass has no end in the ledger').toBeInstanceOf(Date)
  })

  it('skips a slot the ledger already has, as slot-taken, and runs the next one', async () => {
    const { net, passes } = recordingNet()
    const ledger = new MemoryRunLedger()
    // Claimed ahead of its tick (a replica whose clock runs ahead): the tick finds it taken.
    const slot = new Date('2026-09-30T15:00:01.000Z')
    await ledger.claim({ net: 'tick-net', slot, owner: 'skewed-holder', fence: 1, startedAt: slot })
    const c = campaign(net, { ledger })
    await vi.advanceTimersByTimeAsync(2_100)
    expect(
      passes.map((p) => p.slot),
      'a slot another term claimed ran again',
    ).toEqual(['2026-09-30T15:00:00.000Z', '2026-09-30T15:00:02.000Z'])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'slot-taken' }),
    ).toBe(1)
    await c.finish()
  })

  it('runs no pass when the ledger cannot answer a claim, and counts it apart (fail-closed)', async () => {
    const { net, passes } = recordingNet()
    const c = campaign(net, { ledger: new DeafLedger() })
    await vi.advanceTimersByTimeAsync(2_100)
    expect(passes, 'a pass ran without a claim the ledger answered').toEqual([])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'claim-failed' }),
    ).toBe(3)
    await c.finish()
  })

  // Counted among the newest without `until`, records dated years ahead (by hand, or another program's)
  // took the kept places and every real record was pruned: the ledger forgot the slots it had run.
  it('prunes around runs dated years ahead, keeping LEASECRON_RUN_HISTORY real runs', async () => {
    const { net } = recordingNet()
    const ledger = new MemoryRunLedger()
    for (let i = 1; i <= 5; i++) {
      const slot = new Date(Date.parse('2026-09-30T14:00:00.000Z') + i * 1000)
      await ledger.claim({ net: 'tick-net', slot, owner: 'old', fence: 1, startedAt: slot })
      const ahead = new Date(Date.parse('2030-01-01T00:00:00.000Z') + i * 1000)
      await ledger.claim({ net: 'tick-net', slot: ahead, owner: 'ahead', fence: 1, startedAt: ahead })
    }
    const c = campaign(net, { ledger, runHistory: 3 })
    await vi.advanceTimersByTimeAsync(100)
    const real = (await ledger.history('tick-net', 100)).filter((r) => r.owner !== 'ahead')
    expect(real, 'runs dated ahead took the places of the real runs, which were pruned').toHaveLength(3)
    expect(real[0]!.slot.toISOString()).toBe('2026-09-30T15:00:00.000Z')
    await c.finish()
  })

  it('prunes the ledger to LEASECRON_RUN_HISTORY runs per net on the term’s first pass', async () => {
    const { net } = recordingNet()
    const ledger = new MemoryRunLedger()
    for (let i = 1; i <= 10; i++) {
      const slot = new Date(Date.parse('2026-09-30T14:00:00.000Z') + i * 1000)
      await ledger.claim({ net: 'tick-net', slot, owner: 'old', fence: 1, startedAt: slot })
    }
    const c = campaign(net, { ledger, runHistory: 3 })
    await vi.advanceTimersByTimeAsync(100)
    const kept = await ledger.history('tick-net', 100)
    expect(kept, 'the holder did not prune the ledger').toHaveLength(3)
    expect(kept[0]!.slot.toISOString()).toBe('2026-09-30T15:00:00.000Z')
    await c.finish()
  })

  it('with OVERLAP=buffer-one runs the newest buffered slot as soon as the pass ends, and records the slots it replaced skipped', async () => {
    const { net, passes } = recordingNet({ passMs: () => 2300 })
    const c = campaign(net, { env: TICK_ONLY })
    await vi.advanceTimersByTimeAsync(7_900)
    // Passes run 2.3 s from the ticks at :01, then from each pass's end: :01–:03.3, :03.3–:05.6,
    // :05.6–:07.9, :07.9–; the ticks at :02, :04 and :06 were buffered and then replaced by the next one.
    expect(
      passes.map((p) => p.slot?.slice(17, 19)),
      'the buffered slots did not run, in order',
    ).toEqual(['01', '03', '05', '07'])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'overlap' }),
      'every replaced buffered slot is counted as skipped for overlap',
    ).toBe(3)
    await c.finish()
    const runs = (await c.ledger.history('tick-net', 20)).reverse()
    expect(
      runs.map((r) => [r.slot.toISOString().slice(17, 19), r.outcome, r.attempts]),
      'a slot between passes is unaccounted, or has two entries',
    ).toEqual([
      ['01', 'ok', 1],
      ['02', 'skipped', 0],
      ['03', 'ok', 1],
      ['04', 'skipped', 0],
      ['05', 'ok', 1],
      ['06', 'skipped', 0],
      ['07', 'aborted', 1],
    ])
    const started = runs.filter((r) => r.outcome !== 'skipped').map((r) => r.startedAt.toISOString())
    expect(started, 'a buffered slot waited for a tick instead of running when the pass ended').toEqual([
      '2026-09-30T15:00:01.000Z',
      '2026-09-30T15:00:03.300Z',
      '2026-09-30T15:00:05.600Z',
      '2026-09-30T15:00:07.900Z',
    ])
  })

  it('with OVERLAP=skip records each overlapped slot skipped and runs none of them late', async () => {
    const { net, passes } = recordingNet({ passMs: () => 2300 })
    const ledger = new MemoryRunLedger()
    // Another replica's claim of an overlapped slot is left as it is.
    const taken = new Date('2026-09-30T15:00:05.000Z')
    await ledger.claim({ net: 'tick-net', slot: taken, owner: 'other', fence: 9, startedAt: taken })
    const c = campaign(net, { ledger, env: { ...TICK_ONLY, LEASECRON_NET_TICK_NET_OVERLAP: 'skip' } })
    await vi.advanceTimersByTimeAsync(7_900)
    // Passes from the ticks that found none running: :01–:03.3, :04–:06.3, :07–; the ticks at :02, :03,
    // :05, :06 and :08 found one running.
    expect(passes.map((p) => p.slot?.slice(17, 19))).toEqual(['01', '04', '07'])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'overlap' }),
    ).toBe(5)
    await c.finish()
    expect(passes, 'a skipped slot ran late').toHaveLength(3)
    const runs = (await ledger.history('tick-net', 20)).reverse()
    expect(
      runs.map((r) => [r.slot.toISOString().slice(17, 19), r.owner, r.outcome, r.attempts]),
      'an overlapped slot is unaccounted, or another replica’s claim was overwritten',
    ).toEqual([
      ['01', 'alpha', 'ok', 1],
      ['02', 'alpha', 'skipped', 0],
      ['03', 'alpha', 'skipped', 0],
      ['04', 'alpha', 'ok', 1],
      ['05', 'other', undefined, undefined],
      ['06', 'alpha', 'skipped', 0],
      ['07', 'alpha', 'aborted', 1],
      ['08', 'alpha', 'skipped', 0],
    ])
  })

  it('with OVERLAP=buffer-all runs every overlapped slot in order, keeping at most CATCH_UP_MAX waiting', async () => {
    const { net, passes } = recordingNet({ passMs: () => 2300 })
    const env = {
      ...TICK_ONLY,
      LEASECRON_NET_TICK_NET_OVERLAP: 'buffer-all',
      LEASECRON_NET_TICK_NET_CATCH_UP_MAX: '2',
    }
    const c = campaign(net, { env })
    await vi.advanceTimersByTimeAsync(7_900)
    // :01 runs 1.0–3.3 while :02 and :03 wait; :02 runs 3.3–5.6 while :04 and :05 come (:03, the oldest of
    // three waiting, is let go); :04 runs 5.6–7.9 while :06 and :07 come (:05 let go); :06 starts at 7.9.
    expect(passes.map((p) => p.slot?.slice(17, 19))).toEqual(['01', '02', '04', '06'])
    await c.finish()
    const runs = (await c.ledger.history('tick-net', 20)).reverse()
    expect(
      runs.map((r) => [r.slot.toISOString().slice(17, 19), r.outcome]),
      'a waiting slot was lost unrecorded, or ran out of order',
    ).toEqual([
      ['01', 'ok'],
      ['02', 'ok'],
      ['03', 'skipped'],
      ['04', 'ok'],
      ['05', 'skipped'],
      ['06', 'aborted'],
    ])
  })

  it('with OVERLAP=buffer-all and room to wait, runs every slot one after another and lets none go', async () => {
    const { net, passes } = recordingNet({ passMs: () => 1500 })
    const c = campaign(net, { env: { ...TICK_ONLY, LEASECRON_NET_TICK_NET_OVERLAP: 'buffer-all' } })
    await vi.advanceTimersByTimeAsync(7_100)
    expect(passes.map((p) => p.slot?.slice(17, 19))).toEqual(['01', '02', '03', '04', '05'])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'overlap' }),
    ).toBe(0)
    await c.finish()
  })

  it('with OVERLAP=replace aborts the pass in flight for the new slot, saying so in its record', async () => {
    let pass = 0
    const { net, passes } = recordingNet({ passMs: () => (++pass === 1 ? 2300 : 300) })
    const c = campaign(net, { env: { ...TICK_ONLY, LEASECRON_NET_TICK_NET_OVERLAP: 'replace' } })
    await vi.advanceTimersByTimeAsync(3_500)
    expect(passes.map((p) => [p.slot?.slice(17, 19), p.aborted])).toEqual([
      ['01', true],
      ['02', false],
      ['03', false],
    ])
    await c.finish()
    const runs = (await c.ledger.history('tick-net', 20)).reverse()
    expect(runs.map((r) => [r.slot.toISOString().slice(17, 19), r.outcome])).toEqual([
      ['01', 'aborted'],
      ['02', 'ok'],
      ['03', 'ok'],
    ])
    expect(runs[0]!.error, 'the aborted record does not say what replaced it').toMatch(
      /replaced: the slot of 2026-09-30T15:00:02.000Z replaces it/,
    )
    expect(runs[1]!.startedAt.toISOString(), 'the new slot waited for a tick').toBe(
      '2026-09-30T15:00:02.000Z',
    )
  })

  it('with OVERLAP=allow starts each slot’s pass at its tick beside the running ones, each claimed once', async () => {
    const { net, passes } = recordingNet({ passMs: () => 2300 })
    const c = campaign(net, { env: { ...TICK_ONLY, LEASECRON_NET_TICK_NET_OVERLAP: 'allow' } })
    await vi.advanceTimersByTimeAsync(5_500)
    expect(passes.map((p) => p.slot?.slice(17, 19))).toEqual(['01', '02', '03', '04', '05'])
    await vi.advanceTimersByTimeAsync(2_500)
    await c.finish()
    const runs = (await c.ledger.history('tick-net', 20)).reverse()
    expect(
      runs.map((r) => [
        r.slot.toISOString().slice(17, 19),
        r.startedAt.toISOString().slice(17, 23),
        r.outcome,
      ]),
      'a slot waited for the one before, or was claimed twice',
    ).toEqual([
      ['01', '01.000', 'ok'],
      ['02', '02.000', 'ok'],
      ['03', '03.000', 'ok'],
      ['04', '04.000', 'ok'],
      ['05', '05.000', 'ok'],
      ['06', '06.000', 'aborted'],
      ['07', '07.000', 'aborted'],
      ['08', '08.000', 'aborted'],
    ])
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'overlap' }),
    ).toBe(0)
  })

  it('with OVERLAP=buffer-one drops the buffered slot when the term ends: not run, not recorded by this term', async () => {
    const { net, passes } = recordingNet({ passMs: () => 60_000 })
    const c = campaign(net, { env: TICK_ONLY })
    await vi.advanceTimersByTimeAsync(3_100)
    expect(passes.map((p) => p.slot?.slice(17, 19))).toEqual(['01'])
    c.stop()
    await vi.advanceTimersByTimeAsync(100)
    await c.done
    await vi.advanceTimersByTimeAsync(5_000)
    expect(passes, 'the buffered slot ran after its term ended').toHaveLength(1)
    const runs = (await c.ledger.history('tick-net', 20)).reverse()
    expect(
      runs.map((r) => [r.slot.toISOString().slice(17, 19), r.outcome]),
      'the dropped slot :03 was recorded, so the successor’s catch-up could not run it',
    ).toEqual([
      ['01', 'aborted'],
      ['02', 'skipped'],
    ])
  })

  it('retries a failed pass within its slot under one claim, as RETRIES says, before the next tick', async () => {
    let calls = 0
    const { net, passes } = recordingNet({ schedule: '*/5 * * * *', fail: () => ++calls === 1 })
    const env = { LEASECRON_NET_TICK_NET_RETRIES: '2', LEASECRON_NET_TICK_NET_RETRY_BACKOFF: '10s' }
    const c = campaign(net, { env })
    await vi.advanceTimersByTimeAsync(10_500)
    expect(
      passes.map((p) => p.slot),
      'the retry was not made for the same slot',
    ).toEqual(['2026-09-30T15:00:00.000Z', '2026-09-30T15:00:00.000Z'])
    expect(await c.ledger.get('tick-net', new Date('2026-09-30T15:00:00.000Z'))).toMatchObject({
      outcome: 'ok',
      attempts: 2,
    })
    expect(
      await counter(c.metrics, 'leasecron_pass_attempts_total', { net: 'tick-net', outcome: 'failed' }),
    ).toBe(1)
    await c.finish()
  })

  it('aborts the pass in flight when the term ends and awaits it before releasing', async () => {
    const { net, passes } = recordingNet({ passMs: () => 60_000 })
    const c = campaign(net, { env: TICK_ONLY })
    await vi.advanceTimersByTimeAsync(1_500)
    expect(passes).toHaveLength(1)
    c.stop()
    await vi.advanceTimersByTimeAsync(100)
    await c.done
    expect(passes[0]?.aborted, 'the pass in flight was not told the term ended').toBe(true)
    expect(
      (await c.store.list()).filter((l) => l.owner !== undefined),
      'the lease stayed held after a clean stop',
    ).toEqual([])
  })

  it('logs a failing pass and keeps the term and its schedule', async () => {
    const { net, passes, terms } = recordingNet({ fail: (n) => n === 2 })
    const c = campaign(net, { env: TICK_ONLY })
    await vi.advanceTimersByTimeAsync(4_900)
    expect(passes.map((p) => p.pass)).toEqual([1, 2, 3, 4, 5])
    expect(terms(), 'a failing pass ended the term').toBe(1)
    expect(await counter(c.metrics, 'leasecron_pass_errors_total', { net: 'tick-net' })).toBe(1)
    await c.finish()
  })

  it('builds the term state afresh for every term', async () => {
    const { net, passes } = recordingNet()
    const store = new MemoryStore()
    const a = campaign(net, { store, owner: 'alpha' })
    await vi.advanceTimersByTimeAsync(2_900)
    a.stop()
    await vi.advanceTimersByTimeAsync(100)
    await a.done
    const b = campaign(net, { store, owner: 'beta' })
    await vi.advanceTimersByTimeAsync(2_000)
    b.stop()
    await vi.advanceTimersByTimeAsync(100)
    await b.done
    const second = passes.filter((p) => p.termId === 2)
    expect(second[0]?.pass, 'the new term did not start its pass counter afresh').toBe(1)
  })

  it('starts no pass once the term is past its step-down instant, even before the timer fires', async () => {
    const { net, passes } = recordingNet()
    const c = campaign(net, { env: TICK_ONLY })
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
    await c.finish()
  })
})

/**
 * A real memory ledger whose claims, once `hold()` is called, wait until the test calls `open()`: the claim
 * in flight while the test moves time. Every claim is recorded as it is asked.
 */
class GatedLedger extends MemoryRunLedger {
  readonly asked: string[] = []
  #held = false
  #waiting: Array<() => void> = []
  hold(): void {
    this.#held = true
  }
  open(): void {
    this.#held = false
    for (const resolve of this.#waiting.splice(0)) resolve()
  }
  override async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    this.asked.push(claim.slot.toISOString())
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    return super.claim(claim, options)
  }
}

/**
 * Moves wall and monotonic time `ms` ahead with no timer running (a blocked event loop, or a process
 * paused), until the returned function puts performance.now back.
 */
function jumpAhead(ms: number): () => void {
  vi.setSystemTime(Date.now() + ms)
  const performanceNow = performance.now
  const jumped = performance.now() + ms
  performance.now = () => jumped
  return () => {
    performance.now = performanceNow
  }
}

/** A TTL long enough that the schedule's next tick, not a renewal, is the next timer to fire. */
const LONG_TERM = { LEASECRON_NET_TICK_NET_TTL_MS: '30000' }
const PAST_STEP_DOWN_MS = 40_000

describe('the deadline re-checks around a slot’s claim', () => {
  it('claims nothing for a tick that arrives after the term’s step-down instant', async () => {
    const { net, passes } = recordingNet()
    const ledger = new GatedLedger()
    const c = campaign(net, { ledger, env: LONG_TERM })
    await vi.advanceTimersByTimeAsync(100)
    expect(ledger.asked, 'no claim at election').toHaveLength(1)
    const restore = jumpAhead(PAST_STEP_DOWN_MS)
    try {
      await vi.advanceTimersToNextTimerAsync()
    } finally {
      restore()
    }
    expect(
      await counter(c.metrics, 'leasecron_skipped_ticks_total', { net: 'tick-net', reason: 'deadline' }),
      'the late tick did not arrive at the scheduler',
    ).toBe(1)
    expect(
      ledger.asked,
      'a tick past the deadline claimed its slot: the successor can no longer run it',
    ).toHaveLength(1)
    expect(passes).toHaveLength(1)
    await c.finish()
  })

  it('runs no pass when the deadline passes while its claim is in flight, and records the slot aborted', async () => {
    const { net, passes } = recordingNet()
    const ledger = new GatedLedger()
    const c = campaign(net, { ledger, env: LONG_TERM })
    await vi.advanceTimersByTimeAsync(100)
    ledger.hold()
    await vi.advanceTimersToNextTimerAsync()
    expect(ledger.asked, 'the next tick did not claim its slot').toHaveLength(2)
    const slot = new Date(ledger.asked[1]!)
    const restore = jumpAhead(PAST_STEP_DOWN_MS)
    try {
      ledger.open()
      // Let the claim's answer reach the pass, with time still past the deadline and no timer run.
      for (let i = 0; i < 20; i++) await Promise.resolve()
      await vi.advanceTimersByTimeAsync(0)
    } finally {
      restore()
    }
    expect(passes, 'a pass started after its term’s deadline').toHaveLength(1)
    expect(await ledger.get('tick-net', slot), 'the claimed slot was not recorded aborted').toMatchObject({
      outcome: 'aborted',
    })
    await c.finish()
  })
})

/** A net whose first pass ignores its abort until the test lets it end: the stuck pass liveness is for. */
function stuckNet() {
  let letGo = () => {}
  let first = true
  const net = defineNet({
    name: 'tick-net',
    lease: TICK_LEASE.name,
    schedule: '* * * * * *',
    description: 'a first pass that hangs',
    options: {},
    setup: () => ({}),
    term: () => async () => {
      if (!first) return
      first = false
      await new Promise<void>((resolve) => {
        letGo = resolve
      })
    },
  })
  return { net, letGo: () => letGo() }
}

/** A store whose renewals are refused once `lose()` is called: the term ends as lost. */
function losingStore() {
  let losing = false
  const store = new FaultyStore(new MemoryStore(), (op) =>
    losing && op === 'renew' ? { kind: 'refuse' } : { kind: 'pass' },
  )
  return { store, lose: () => (losing = true) }
}

describe('campaign heartbeats', () => {
  it('name a campaign stuck behind a pass that ignores its abort, once silent past 3× its TTL', async () => {
    const heartbeats = createCampaignHeartbeats(systemClock)
    const { store, lose } = losingStore()
    const { net, letGo } = stuckNet()
    const c = campaign(net, { store, heartbeats })
    await vi.advanceTimersByTimeAsync(100)
    lose()
    await vi.advanceTimersByTimeAsync(2 * c.ttlMs)
    expect(heartbeats.stale(), 'a campaign was called stuck within its limit').toEqual([])
    await vi.advanceTimersByTimeAsync(2 * c.ttlMs)
    expect(heartbeats.stale(), 'a stuck campaign would pass /healthz').toEqual([
      expect.objectContaining({ net: 'tick-net', lease: TICK_LEASE.name, limitMs: 3 * c.ttlMs }),
    ])
    letGo()
    await vi.advanceTimersByTimeAsync(c.ttlMs)
    expect(heartbeats.stale(), 'a campaign that attempts again stayed stuck').toEqual([])
    c.stop()
    await vi.advanceTimersByTimeAsync(c.ttlMs)
    await c.done
    await vi.advanceTimersByTimeAsync(10 * c.ttlMs)
    expect(heartbeats.stale(), 'a stopped campaign was called stuck').toEqual([])
  })

  it('name a campaign that ended abnormally, with its error, from then on', async () => {
    const heartbeats = createCampaignHeartbeats(systemClock)
    const { net } = recordingNet()
    // Not a LeaseStore: run() refuses the spec and the campaign's promise rejects.
    const c = campaign(net, { store: Object.create(null) as LeaseStore, heartbeats })
    await expect(c.done).rejects.toMatchObject({ name: 'LeaseSpecError' })
    const stale = [
      expect.objectContaining({
        net: 'tick-net',
        lease: TICK_LEASE.name,
        endedWith: expect.stringContaining('a LeaseStore is required'),
      }),
    ]
    expect(heartbeats.stale(), 'a dead campaign passed /healthz').toEqual(stale)
    await vi.advanceTimersByTimeAsync(10 * c.ttlMs)
    expect(heartbeats.stale(), 'a dead campaign was forgotten').toEqual(stale)
  })

  it('keep a campaign whose store refuses it live: it goes on attempting', async () => {
    const heartbeats = createCampaignHeartbeats(systemClock)
    const { store, lose } = losingStore()
    const { net } = recordingNet({ passMs: () => 60_000 })
    const c = campaign(net, { store, heartbeats })
    await vi.advanceTimersByTimeAsync(100)
    lose()
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(c.ttlMs)
      expect(heartbeats.stale(), 'a campaign that keeps attempting was called stuck').toEqual([])
    }
    c.stop()
    await vi.advanceTimersByTimeAsync(c.ttlMs)
    await c.done
  })
})
