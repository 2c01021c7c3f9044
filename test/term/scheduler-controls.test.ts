/**
 * The holder honours its net's controls: a paused net's slots are recorded `paused`, a pause expires by
 * itself, a run request runs as a manual slot within the poll interval, `--abort` ends the pass in flight,
 * a catch-up runs the paused slots, and a control store that does not answer fails open. The two
 * safeguards of control-requests.ts and holder-controls.ts each have a case that fails without them: a catch-up re-reads the pause
 * between its slots, and a run request is cleared only once its claim had an answer (a claim the ledger
 * did not answer, a holder that died mid-run: the request is kept for the next poll or the successor).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineNet, type LeaseStore, loadConfig, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import type { NetControlStore } from '../../src/control/net-control-store.js'
import { CONTROL_POLL_MS } from '../../src/term/control-poll.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import type { RunClaim, RunLedger, RunLedgerCallOptions } from '../../src/runs/run-ledger.js'
import { recordingNet, TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'
import { campaignOptions } from '../support/term-specs.js'

const T0 = new Date('2026-09-30T15:00:00.200Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const TICK_ONLY = { LEASECRON_NET_TICK_NET_CATCH_UP: 'none', LEASECRON_NET_TICK_NET_TIMEOUT: '10m' }

interface CampaignWorld {
  store?: LeaseStore
  ledger?: RunLedger
  owner?: string
  /** More of the net's variables (TTL_MS, RETRY_MS), without the LEASECRON_NET_TICK_NET_ prefix. */
  env?: Record<string, string>
}

function campaign(
  net: Parameters<typeof loadConfig>[1][number],
  controls: NetControlStore,
  world: CampaignWorld = {},
) {
  const more = Object.entries(world.env ?? {}).map(([k, v]) => [`LEASECRON_NET_TICK_NET_${k}`, v])
  const loaded = loadConfig({ ...TICK_ONLY, ...Object.fromEntries(more) }, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error('test net configuration rejected')
  const stop = new AbortController()
  const ledger = world.ledger ?? new MemoryRunLedger()
  const metrics = createWorkerMetrics()
  const done = runNetCampaign(
    campaignOptions(loaded.config.nets[0]!, {
      ...{ store: world.store ?? new MemoryStore(), ledger, owner: world.owner ?? 'alpha' },
      ...{ metrics, signal: stop.signal, controls },
    }),
  )
  const finish = async () => {
    stop.abort()
    await vi.advanceTimersByTimeAsync(1000)
    await done
  }
  return { ledger, finish, metrics }
}

/**
 * `store` as a holder's process sees it: every call rejects once `gone()` (the process died; nothing it
 * sends reaches the store any more), and goes to the real store before. Methods run on the store itself,
 * so its private fields work.
 */
function untilGone<T extends object>(store: T, gone: () => boolean): T {
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name, target)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) =>
        gone()
          ? Promise.reject(new Error(`the holder's process is gone (${String(name)})`))
          : value.apply(target, args)
    },
  })
}

/** The real memory ledger, whose first `n` manual claims get no answer (rejected as a claim's bound would). */
class UnansweredManualClaims extends MemoryRunLedger {
  unanswered = 0
  #left: number

  constructor(n: number) {
    super()
    this.#left = n
  }

  override async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    if (!claim.manual || this.#left <= 0) return super.claim(claim, options)
    this.#left--
    this.unanswered++
    throw new DOMException('the run ledger did not answer the claim within its bound', 'TimeoutError')
  }
}

/** `controls`, noting in `taken` each request `owner` cleared. */
function takenBy(controls: NetControlStore, owner: string, taken: string[]): NetControlStore {
  return new Proxy(controls, {
    get(target, name) {
      const value = Reflect.get(target, name, target)
      if (name !== 'take') return typeof value === 'function' ? value.bind(target) : value
      return async (...args: Parameters<NetControlStore['take']>) => {
        const cleared = await target.take(...args)
        if (cleared) taken.push(owner)
        return cleared
      }
    },
  })
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

  it('never aborts a requested run for a tick under OVERLAP=replace: the tick’s slot waits for it', async () => {
    const controls = new MemoryNetControlStore()
    let manualAt = Number.NaN
    const net = defineNet({
      name: 'tick-net',
      lease: TICK_LEASE.name,
      schedule: '* * * * * *',
      description: 'a manual run of 3 s, scheduled ones of 100 ms',
      options: {},
      setup: () => ({}),
      term: () => async (ctx) => {
        const ms = ctx.slot.getTime() === manualAt ? 3_000 : 100
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          const stop = () => {
            clearTimeout(timer)
            resolve()
          }
          ctx.signal.addEventListener('abort', stop, { once: true })
        })
      },
    })
    const c = campaign(net, controls, { env: { OVERLAP: 'replace' } })
    await vi.advanceTimersByTimeAsync(100)
    const { request } = await controls.request('tick-net', 'run', { by: 'ann' }, new Date())
    manualAt = request.at.getTime()
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 4_000)
    const manual = await c.ledger.get('tick-net', request.at, { manual: true })
    expect(manual?.outcome, 'a tick replaced the operator’s run').toBe('ok')
    expect(manual!.finishedAt!.getTime() - manual!.startedAt.getTime()).toBeGreaterThanOrEqual(3_000)
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

  it('aborts OVERLAP=allow’s passes beside the one in flight too, on a pause with abort', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ passMs: () => 60_000 })
    const c = campaign(net, controls, { env: { OVERLAP: 'allow' } })
    await vi.advanceTimersByTimeAsync(3_500)
    expect(
      passes.map((p) => p.slot?.slice(17, 19)),
      'allow did not start passes side by side',
    ).toEqual(['01', '02', '03'])
    await controls.pause('tick-net', { abort: true, by: 'ann' }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(
      passes.map((p) => p.aborted),
      'a pass beside the first ran on after pause --abort',
    ).toEqual([true, true, true])
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

  // A paused record dated 2030 (another program's, or by hand) is no tick that came: read without
  // `until`, the catch-up ran it as a slot four years early.
  it('runs no paused slot dated years ahead on a catch-up request', async () => {
    const controls = new MemoryNetControlStore()
    await controls.pause('tick-net', {}, T0)
    const ledger = new MemoryRunLedger()
    const ahead = new Date('2030-01-01T00:00:00.000Z')
    const entry = { net: 'tick-net', slot: ahead, owner: 'ahead', fence: 1, at: ahead }
    await ledger.account({ ...entry, outcome: 'paused', reason: 'by hand' })
    const { net, passes } = recordingNet({ schedule: '*/2 * * * * *' })
    const c = campaign(net, controls, { ledger })
    await vi.advanceTimersByTimeAsync(4_000)
    await controls.resume('tick-net', { catchUp: true }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    const slots = passes.map((p) => p.slot)
    expect(slots.slice(0, 2), 'the paused slots did not run').toEqual([
      '2026-09-30T15:00:02.000Z',
      '2026-09-30T15:00:04.000Z',
    ])
    expect(slots, 'a paused slot dated 2030 ran').not.toContain(ahead.toISOString())
    await c.finish()
  })

  // The newest runs a pass looks at for older terms' unfinished claims: read without `until`, a claim
  // dated 2030 (by hand) filled them and was closed `aborted` four years before its slot.
  it('leaves an unfinished run dated years ahead alone after its passes', async () => {
    const ledger = new MemoryRunLedger()
    const ahead = new Date('2030-01-01T00:00:00.000Z')
    await ledger.claim({ net: 'tick-net', slot: ahead, owner: 'ahead', fence: 0, startedAt: ahead })
    const { net, passes } = recordingNet({ schedule: '*/2 * * * * *' })
    const c = campaign(net, new MemoryNetControlStore(), { ledger })
    await vi.advanceTimersByTimeAsync(7_000)
    expect(passes.length, 'the holder ran no pass').toBeGreaterThanOrEqual(2)
    expect((await ledger.get('tick-net', ahead))?.outcome, 'a run dated 2030 was closed').toBe(undefined)
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

  it('stops a catch-up when the net is paused again between its slots, and leaves the rest recorded paused', async () => {
    const controls = new MemoryNetControlStore()
    await controls.pause('tick-net', {}, T0)
    let resumedAt = Number.POSITIVE_INFINITY
    const { net, passes } = recordingNet({
      schedule: '*/2 * * * * *',
      passMs: () => 100,
      fail: () => {
        // The catch-up's first pass (a slot from before the resume): an operator pauses the net again.
        if (Date.parse(passes.at(-1)?.slot ?? '') < resumedAt)
          void controls.pause('tick-net', { by: 'bob', reason: 'not yet' }, new Date())
        return false
      },
    })
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(10_000)
    const pausedSlots = ['02', '04', '06', '08', '10'].map((s) => `2026-09-30T15:00:${s}.000Z`)
    const outcomes = async (slots: string[]) => {
      const runs = await c.ledger.history('tick-net', 50)
      return slots.map((slot) => runs.find((r) => r.slot.toISOString() === slot)?.outcome)
    }
    expect(await outcomes(pausedSlots)).toEqual(pausedSlots.map(() => 'paused'))
    resumedAt = Date.now()
    await controls.resume('tick-net', { catchUp: true }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 1_000)
    const caughtUp = passes.filter((p) => Date.parse(p.slot ?? '') < resumedAt).map((p) => p.slot)
    expect(caughtUp, 'the catch-up ran on after the net was paused again').toEqual([pausedSlots[0]])
    expect(await outcomes(pausedSlots)).toEqual(['ok', 'paused', 'paused', 'paused', 'paused'])
    expect(
      (await controls.get('tick-net', new Date())).catchUp,
      'the dropped catch-up was left to run again',
    ).toBe(undefined)
    await c.finish()
  })

  it('keeps a run request whose claim the ledger did not answer, and runs it at the next poll', async () => {
    const controls = new MemoryNetControlStore()
    const ledger = new UnansweredManualClaims(1)
    const { net, passes } = recordingNet({ schedule: '0 3 * * *' })
    const c = campaign(net, controls, { ledger })
    await vi.advanceTimersByTimeAsync(100)
    const { request } = await controls.request('tick-net', 'run', { by: 'ann' }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(ledger.unanswered, 'the run request was not claimed at the poll').toBe(1)
    expect(passes).toEqual([])
    expect(
      (await controls.get('tick-net', new Date())).run?.id,
      'a request whose claim had no answer was cleared: it is lost',
    ).toBe(request.id)
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS)
    expect(passes.map((p) => p.slot)).toEqual([request.at.toISOString()])
    expect(await ledger.get('tick-net', request.at, { manual: true })).toMatchObject({
      manual: true,
      outcome: 'ok',
    })
    expect((await controls.get('tick-net', new Date())).run).toBe(undefined)
    await c.finish()
  })

  it('leaves a run request to the successor when its holder dies mid-run, and it runs once', async () => {
    const [store, ledger, controls] = [new MemoryStore(), new MemoryRunLedger(), new MemoryNetControlStore()]
    const taken: string[] = []
    let alphaGone = false
    const { net, passes } = recordingNet({ schedule: '0 3 * * *', passMs: () => 60_000 })
    const env = { TTL_MS: '3000', RETRY_MS: '1000' }
    const side = (owner: string, gone: () => boolean) => ({
      ...{ owner, env },
      ...{ store: untilGone(store, gone), ledger: untilGone(ledger, gone) },
      controls: untilGone(takenBy(controls, owner, taken), gone),
    })
    const alphaSide = side('alpha', () => alphaGone)
    const alpha = campaign(net, alphaSide.controls, alphaSide)
    await vi.advanceTimersByTimeAsync(100)
    const betaSide = side('beta', () => false)
    const beta = campaign(net, betaSide.controls, betaSide)
    const { request } = await controls.request('tick-net', 'run', { by: 'ann' }, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(
      passes.map((p) => [p.termId, p.slot]),
      'alpha did not start the run',
    ).toEqual([[1, request.at.toISOString()]])
    alphaGone = true
    await vi.advanceTimersByTimeAsync(4 * CONTROL_POLL_MS)
    expect(taken, 'the request was cleared before its run had an answer, by the holder that died').toEqual([
      'beta',
    ])
    expect((await controls.get('tick-net', new Date())).run).toBe(undefined)
    expect(passes, 'the successor ran the request again').toHaveLength(1)
    expect(await ledger.get('tick-net', request.at, { manual: true })).toMatchObject({ owner: 'alpha' })
    await alpha.finish()
    await beta.finish()
  })
})
