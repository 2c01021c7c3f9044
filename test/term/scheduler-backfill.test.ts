/**
 * The holder runs a backfill request (term/backfill-job.ts): its slots oldest first, one a job between
 * the net's own passes, each claimed in the ledger under the holder's fence, the cursor moved past each;
 * a cancel or a pause stops it before the next slot, and a successor after a takeover goes on from the
 * cursor with no slot run twice. The safeguards each have a case that fails without them: a tick that
 * falls due during a backfill's slot waits under OVERLAP=skip (not recorded skipped), each job re-reads
 * the request (a cancel stops it), and a deposed holder leaves the cursor to its successor.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, type LeaseStore, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import type { NetControlStore } from '../../src/control/net-control-store.js'
import { CONTROL_POLL_MS } from '../../src/term/control-poll.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import type { RunClaim, RunLedger, RunLedgerCallOptions } from '../../src/runs/run-ledger.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { campaignOptions } from '../support/term-specs.js'

const T0 = new Date('2026-09-30T15:00:00.200Z')
const DAILY = '0 3 * * *'
const days = (n: number) =>
  Array.from({ length: n }, (_, i) => new Date(Date.UTC(2026, 8, 30 - n + i, 3, 0, 0)))
const range = (slots: Date[]) => ({ from: slots[0]!, to: slots[slots.length - 1]!, slots })

interface Side {
  store?: LeaseStore
  ledger?: RunLedger
  owner?: string
  env?: Record<string, string>
}

function campaign(net: Parameters<typeof loadConfig>[1][number], controls: NetControlStore, side: Side = {}) {
  const env = Object.entries({ CATCH_UP: 'none', TIMEOUT: '10m', ...side.env })
  const vars = Object.fromEntries(env.map(([k, v]) => [`LEASECRON_NET_TICK_NET_${k}`, v]))
  const loaded = loadConfig(vars, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error('test net configuration rejected')
  const stop = new AbortController()
  const ledger = side.ledger ?? new MemoryRunLedger()
  const done = runNetCampaign(
    campaignOptions(loaded.config.nets[0]!, {
      ...{ store: side.store ?? new MemoryStore(), ledger, owner: side.owner ?? 'alpha' },
      ...{ signal: stop.signal, controls },
    }),
  )
  const finish = async () => {
    stop.abort()
    await vi.advanceTimersByTimeAsync(1000)
    await done
  }
  return { ledger, finish }
}

/** The ledger's records of `slots`, as [slot, outcome, owner]. */
async function records(ledger: RunLedger, slots: Date[]) {
  const runs = await Promise.all(slots.map((slot) => ledger.get('tick-net', slot)))
  return runs.map((r, i) => [slots[i]!.toISOString(), r?.outcome, r?.owner])
}

/** The real memory ledger, whose first claim of `slot` gets no answer (rejected as a claim's bound would). */
class UnansweredClaimOf extends MemoryRunLedger {
  unanswered = 0
  readonly #slot: number

  constructor(slot: Date) {
    super()
    this.#slot = slot.getTime()
  }

  override async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    if (claim.slot.getTime() !== this.#slot || this.unanswered > 0) return super.claim(claim, options)
    this.unanswered++
    throw new DOMException('the run ledger did not answer the claim within its bound', 'TimeoutError')
  }
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(T0)
})
afterEach(() => vi.useRealTimers())

describe('the holder running a backfill request', () => {
  it('runs the slots oldest first within the poll interval, told backfill, and moves the cursor to the end', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ schedule: DAILY })
    const c = campaign(net, controls)
    await vi.advanceTimersByTimeAsync(100)
    const slots = days(3)
    const { backfill } = await controls.requestBackfill(
      'tick-net',
      { ...range(slots), by: 'ann' },
      new Date(),
    )
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(passes.map((p) => p.slot)).toEqual(slots.map((s) => s.toISOString()))
    expect(await records(c.ledger, slots)).toEqual(slots.map((s) => [s.toISOString(), 'ok', 'alpha']))
    expect((await controls.get('tick-net', new Date())).backfill).toMatchObject({
      id: backfill.id,
      done: 3,
      total: 3,
      owner: 'alpha',
      counts: { ok: 3, failed: 0, taken: 0, aborted: 0 },
    })
    await vi.advanceTimersByTimeAsync(3 * CONTROL_POLL_MS)
    expect(passes, 'a finished backfill ran again').toHaveLength(3)
    await c.finish()
  })

  it('counts a slot already recorded as taken and a failed one as failed, and goes on', async () => {
    const controls = new MemoryNetControlStore()
    const ledger = new MemoryRunLedger()
    const slots = days(3)
    await ledger.claim({ net: 'tick-net', slot: slots[0]!, owner: 'earlier', fence: 1, startedAt: T0 })
    const { net, passes } = recordingNet({ schedule: DAILY, fail: (pass) => pass === 1 })
    const c = campaign(net, controls, { ledger })
    await controls.requestBackfill('tick-net', range(slots), T0)
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(passes.map((p) => p.slot)).toEqual(slots.slice(1).map((s) => s.toISOString()))
    const backfill = (await controls.get('tick-net', new Date())).backfill
    expect(backfill?.counts).toEqual({ ok: 1, failed: 1, taken: 1, aborted: 0 })
    await c.finish()
  })

  it('lets the net’s ticks run between its slots: under OVERLAP=skip a tick due meanwhile waits for the slot', async () => {
    const controls = new MemoryNetControlStore()
    const slots = days(3)
    const backfilled = new Set(slots.map((s) => s.getTime()))
    // The record of the pass is pushed before its length is asked: the backfill's slots take 2.5 s.
    const { net, passes } = recordingNet({
      passMs: () => (backfilled.has(Date.parse(passes.at(-1)?.slot ?? '')) ? 2_500 : 10),
    })
    const c = campaign(net, controls, { env: { OVERLAP: 'skip' } })
    await controls.requestBackfill('tick-net', range(slots), T0)
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 9_000)
    expect(
      passes.filter((p) => backfilled.has(Date.parse(p.slot!))),
      'the backfill did not run',
    ).toHaveLength(3)
    // Each backfill slot is followed by a tick's pass (the one kept while it ran) before the next.
    const kinds = passes.map((p) => (backfilled.has(Date.parse(p.slot!)) ? 'backfill' : 'tick'))
    const first = kinds.indexOf('backfill')
    expect(
      kinds.slice(first, kinds.lastIndexOf('backfill') + 1).join(' '),
      'the net’s ticks were skipped behind the backfill’s slots',
    ).toBe('backfill tick backfill tick backfill')
    await c.finish()
  })

  it('starts no further slot once cancelled; the slot in flight finishes and counts', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ schedule: DAILY, passMs: () => 2_000 })
    const c = campaign(net, controls)
    const slots = days(5)
    await controls.requestBackfill('tick-net', range(slots), T0)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(passes).toHaveLength(1)
    await controls.cancelBackfill('tick-net', { by: 'bob' }, new Date())
    await vi.advanceTimersByTimeAsync(3 * CONTROL_POLL_MS)
    expect(
      passes.map((p) => [p.slot, p.aborted]),
      'a cancelled backfill ran on',
    ).toEqual([[slots[0]!.toISOString(), false]])
    expect((await controls.get('tick-net', new Date())).backfill).toMatchObject({
      done: 1,
      counts: { ok: 1 },
      cancelled: { by: 'bob' },
    })
    await c.finish()
  })

  it('moves nothing for a claim the ledger did not answer, and runs that slot at the next poll', async () => {
    const controls = new MemoryNetControlStore()
    const slots = days(2)
    const ledger = new UnansweredClaimOf(slots[0]!)
    const { net, passes } = recordingNet({ schedule: DAILY })
    const c = campaign(net, controls, { ledger })
    await controls.requestBackfill('tick-net', range(slots), T0)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(ledger.unanswered, 'the first slot was not claimed').toBe(1)
    expect(passes).toEqual([])
    expect(
      (await controls.get('tick-net', new Date())).backfill?.done,
      'an unanswered claim moved the cursor',
    ).toBe(0)
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(passes.map((p) => p.slot)).toEqual(slots.map((s) => s.toISOString()))
    expect((await controls.get('tick-net', new Date())).backfill?.counts).toMatchObject({ ok: 2, failed: 0 })
    await c.finish()
  })

  it('ends the request, saying why, once the net ran its MAX_RUNS', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ schedule: DAILY })
    const c = campaign(net, controls, { env: { MAX_RUNS: '1' } })
    await controls.requestBackfill('tick-net', range(days(3)), T0)
    await vi.advanceTimersByTimeAsync(2 * CONTROL_POLL_MS)
    expect(passes, 'a slot ran past MAX_RUNS').toHaveLength(1)
    expect((await controls.get('tick-net', new Date())).backfill).toMatchObject({
      done: 1,
      cancelled: { by: 'alpha', reason: 'the net ran its MAX_RUNS (1) slots: it is finished' },
    })
    await c.finish()
  })

  it('waits while the net is paused, and goes on from its cursor once resumed', async () => {
    const controls = new MemoryNetControlStore()
    const { net, passes } = recordingNet({ schedule: DAILY })
    await controls.pause('tick-net', { by: 'ann' }, T0)
    const c = campaign(net, controls)
    const slots = days(2)
    await controls.requestBackfill('tick-net', range(slots), T0)
    await vi.advanceTimersByTimeAsync(2 * CONTROL_POLL_MS)
    expect(passes, 'a backfill ran while the net was paused').toEqual([])
    await controls.resume('tick-net', {}, new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 100)
    expect(passes.map((p) => p.slot)).toEqual(slots.map((s) => s.toISOString()))
    await c.finish()
  })

  it('goes on on the successor from the cursor after its holder stops mid-slot, and runs no slot twice', async () => {
    const [store, ledger, controls] = [new MemoryStore(), new MemoryRunLedger(), new MemoryNetControlStore()]
    const { net, passes } = recordingNet({ schedule: DAILY, passMs: () => 2_000 })
    const env = { TTL_MS: '3000', RETRY_MS: '1000' }
    const alpha = campaign(net, controls, { store, ledger, owner: 'alpha', env })
    await vi.advanceTimersByTimeAsync(100)
    const slots = days(4)
    await controls.requestBackfill('tick-net', range(slots), new Date())
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS + 3_000)
    expect(
      passes.map((p) => p.slot),
      'alpha did not reach the second slot',
    ).toEqual(slots.slice(0, 2).map((s) => s.toISOString()))
    const beta = campaign(net, controls, { store, ledger, owner: 'beta', env })
    await alpha.finish()
    await vi.advanceTimersByTimeAsync(2 * CONTROL_POLL_MS + 10_000)
    expect(
      passes.map((p) => p.slot),
      'a slot ran twice, or one never ran',
    ).toEqual(slots.map((s) => s.toISOString()))
    const [first, second, ...rest] = await records(ledger, slots)
    expect([first, second]).toEqual([
      [slots[0]!.toISOString(), 'ok', 'alpha'],
      [slots[1]!.toISOString(), 'aborted', 'alpha'],
    ])
    expect(rest).toEqual(slots.slice(2).map((s) => [s.toISOString(), 'ok', 'beta']))
    expect((await controls.get('tick-net', new Date())).backfill).toMatchObject({
      done: 4,
      owner: 'beta',
      counts: { ok: 3, taken: 1, aborted: 0 },
    })
    await beta.finish()
  })
})
