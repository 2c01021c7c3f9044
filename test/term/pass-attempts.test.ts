/**
 * Timeouts and retries within a slot: one claim, many attempts, driven with fake timers through the real
 * slot pass (slotPassSpec → runSlotPass), the real memory ledger and the net's variables as loadConfig
 * parses them.
 */
import { RunMemory } from '../../src/term/run-memory.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineNet, loadConfig, MemoryRunLedger, systemClock } from '../../src/index.js'
import type { PassContext } from '../../src/nets/net.js'
import type { RunClaim, RunLedgerCallOptions } from '../../src/runs/run-ledger.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { runSlotPass, slotPassSpec } from '../../src/term/slot-pass.js'
import { TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'
import { asPromRegistry } from '../../src/forge/meter/prom-registry.js'
import { passSetting } from '../support/term-specs.js'
import { termCallBoundMs } from '../../src/lease/call-bound.js'
import { followerCount } from '../../src/lease/follow-abort.js'
import { anyDependants } from '../support/abort-dependants.js'

const P = 'LEASECRON_NET_TICK_NET_'
const slot = new Date('2026-09-30T15:00:00.000Z')

/** The real memory ledger, counting the claims it is asked for. */
class CountingLedger extends MemoryRunLedger {
  claims = 0
  override claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    this.claims++
    return super.claim(claim, options)
  }
}

type Behaviour = (context: PassContext, attempt: number) => Promise<void>

/** One slot pass of a net whose attempts behave as `behaviour` says; `term` and `stepDownInMs` are the term's. */
function slotPass(env: Record<string, string>, behaviour: Behaviour, given: { stepDownInMs?: number } = {}) {
  const net = defineNet({
    name: 'tick-net',
    lease: TICK_LEASE.name,
    schedule: '* * * * *',
    description: 'attempts as told',
    options: {},
    setup: () => ({}),
    term: () => async (context: PassContext) => behaviour(context, ++state.attempts),
  })
  const loaded = loadConfig(env, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`configuration refused: ${JSON.stringify(loaded)}`)
  const config = loaded.config.nets[0]!
  const state = { attempts: 0, startedAt: [] as number[] }
  const ledger = new CountingLedger()
  const metrics = createWorkerMetrics()
  const term = new AbortController()
  const deadline = systemClock.monotonic() + (given.stepDownInMs ?? Number.POSITIVE_INFINITY)
  const spec = slotPassSpec(
    passSetting(config, { ledger, runHistory: 100, metrics }),
    {
      fence: 1,
      term: term.signal,
      live: () => !term.signal.aborted && systemClock.monotonic() < deadline,
      stepDownAt: () => deadline,
      nextPassNumber: () => 1,
      looksForOlderClaims: () => false,
      boundMs: termCallBoundMs(config.pacing.ttlMs),
      runs: new RunMemory(ledger),
    },
    config.definition.term(
      {},
      {
        options: {},
        log: createLogger({ level: 'silent' }),
        signal: term.signal,
        stepDownAt: () => deadline,
      },
    ),
    slot,
  )
  return { result: runSlotPass(spec), ledger, metrics, term, state }
}

/** A behaviour that notes when each attempt began, then fails the first `failures` attempts. */
function failingFirst(failures: number, starts: number[]): Behaviour {
  return async (_context, attempt) => {
    starts.push(Date.now() - slot.getTime())
    if (attempt <= failures) throw new Error(`transient fault ${attempt}`)
  }
}

/** A behaviour whose first `hangs` attempts wait for their signal (and reject with its reason), then succeed. */
function hangingFirst(hangs: number, starts: number[]): Behaviour {
  return (context, attempt) => {
    starts.push(Date.now() - slot.getTime())
    if (attempt > hangs) return Promise.resolve()
    return new Promise<void>((_, reject) =>
      context.signal.addEventListener('abort', () => reject(context.signal.reason)),
    )
  }
}

async function attemptsCounted(metrics: ReturnType<typeof createWorkerMetrics>, outcome: string) {
  const metric = (await asPromRegistry(metrics.registry).getMetricsAsJSON()).find(
    (m) => m.name === 'leasecron_pass_attempts_total',
  )
  return metric?.values.find((v) => v.labels.outcome === outcome)?.value ?? 0
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(slot)
})
afterEach(() => vi.useRealTimers())

describe('attempts within a slot', () => {
  it('retries a pass that fails twice and records one claim, outcome ok and 3 attempts, after 10 s and 20 s of backoff', async () => {
    const starts: number[] = []
    const run = slotPass({ [`${P}RETRIES`]: '2', [`${P}RETRY_BACKOFF`]: '10s' }, failingFirst(2, starts))
    await vi.advanceTimersByTimeAsync(9_999)
    expect(starts, 'a retry began before its backoff had passed').toEqual([0])
    await vi.advanceTimersByTimeAsync(25_000)
    expect(await run.result).toEqual({ kind: 'ran', outcome: 'ok', attempts: 3 })
    expect(starts, 'the backoff does not double from 10 s').toEqual([0, 10_000, 30_000])
    expect(run.ledger.claims, 'a retry claimed the slot again').toBe(1)
    const record = await run.ledger.get('tick-net', slot)
    expect(record).toMatchObject({ outcome: 'ok', attempts: 3 })
    expect(record?.error, 'an ok slot keeps a failed attempt’s error').toBeUndefined()
    expect(await attemptsCounted(run.metrics, 'failed')).toBe(2)
    expect(await attemptsCounted(run.metrics, 'ok')).toBe(1)
  })

  it('aborts the signal of a pass that hangs past TIMEOUT and records the slot timed-out with the reason', async () => {
    let reason: unknown
    const run = slotPass({ [`${P}TIMEOUT`]: '30s' }, (context) => {
      return new Promise<void>((resolve) => {
        context.signal.addEventListener('abort', () => {
          reason = context.signal.reason
          resolve()
        })
      })
    })
    await vi.advanceTimersByTimeAsync(29_999)
    expect(reason, 'the signal aborted before TIMEOUT').toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'timed-out', attempts: 1 })
    expect(reason).toMatchObject({ name: 'PassTimeoutError', code: 'PASS_TIMED_OUT' })
    const record = await run.ledger.get('tick-net', slot)
    expect(record).toMatchObject({ outcome: 'timed-out', attempts: 1 })
    expect(record?.error).toMatch(/ran past the net's TIMEOUT \(30s\)/)
  })

  it('times a pass out after the schedule’s interval when TIMEOUT is unset, then retries no further than the next slot', async () => {
    const starts: number[] = []
    const run = slotPass({ [`${P}RETRIES`]: '1', [`${P}RETRY_BACKOFF`]: '1s' }, hangingFirst(1, starts))
    await vi.advanceTimersByTimeAsync(59_999)
    expect(starts).toEqual([0])
    await vi.advanceTimersByTimeAsync(5_000)
    expect(await run.result).toEqual({
      kind: 'ran',
      outcome: 'timed-out',
      attempts: 1,
      error: expect.anything(),
    })
  })

  it('retries a timed-out attempt under the same claim', async () => {
    const starts: number[] = []
    const env = { [`${P}TIMEOUT`]: '20s', [`${P}RETRIES`]: '1', [`${P}RETRY_BACKOFF`]: '1s' }
    const run = slotPass(env, hangingFirst(1, starts))
    await vi.advanceTimersByTimeAsync(21_000)
    expect(await run.result).toEqual({ kind: 'ran', outcome: 'ok', attempts: 2 })
    expect(starts, 'the retry did not follow the timeout by its backoff').toEqual([0, 21_000])
    expect(run.ledger.claims).toBe(1)
    expect(await attemptsCounted(run.metrics, 'timed-out')).toBe(1)
  })

  it('makes no retry that would start past the term’s step-down deadline', async () => {
    const starts: number[] = []
    const run = slotPass({ [`${P}RETRIES`]: '5', [`${P}RETRY_BACKOFF`]: '10s' }, failingFirst(9, starts), {
      stepDownInMs: 25_000,
    })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'failed', attempts: 2 })
    expect(starts, 'the retry at 30 s would have started past the deadline at 25 s').toEqual([0, 10_000])
    expect(await run.ledger.get('tick-net', slot)).toMatchObject({
      outcome: 'failed',
      attempts: 2,
      error: 'Error: transient fault 2',
    })
  })

  it('makes no retry at or after the next slot’s fire time', async () => {
    const starts: number[] = []
    const run = slotPass({ [`${P}RETRIES`]: '10', [`${P}RETRY_BACKOFF`]: '10s' }, failingFirst(99, starts))
    await vi.advanceTimersByTimeAsync(120_000)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'failed', attempts: 3 })
    expect(starts, 'a retry at 70 s would overlap the next slot at 60 s').toEqual([0, 10_000, 30_000])
  })

  it('keeps today’s behaviour with RETRIES unset: one attempt, failed, no wait', async () => {
    const starts: number[] = []
    const run = slotPass({}, failingFirst(1, starts))
    await vi.advanceTimersByTimeAsync(0)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'failed', attempts: 1 })
    expect(starts).toEqual([0])
    expect(await run.ledger.get('tick-net', slot)).toMatchObject({ outcome: 'failed', attempts: 1 })
  })

  it('records aborted and retries nothing when the term ends during an attempt', async () => {
    const starts: number[] = []
    const run = slotPass({ [`${P}RETRIES`]: '3', [`${P}RETRY_BACKOFF`]: '1s' }, (context) => {
      starts.push(Date.now() - slot.getTime())
      return new Promise<void>((_, reject) =>
        context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
      )
    })
    await vi.advanceTimersByTimeAsync(5_000)
    run.term.abort()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'aborted', attempts: 1 })
    expect(starts).toEqual([0])
  })

  it('keeps the last attempt’s outcome when the term ends during a backoff, and makes no further attempt', async () => {
    const starts: number[] = []
    const run = slotPass({ [`${P}RETRIES`]: '3', [`${P}RETRY_BACKOFF`]: '10s' }, failingFirst(9, starts))
    await vi.advanceTimersByTimeAsync(5_000)
    run.term.abort()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'failed', attempts: 1 })
    expect(starts).toEqual([0])
  })
})

describe('what a pass leaves on its term', () => {
  it('leaves nothing on the term’s signal once its attempts (failed, timed out, ok) have ended', async () => {
    const starts: number[] = []
    const run = slotPass(
      { [`${P}RETRIES`]: '2', [`${P}RETRY_BACKOFF`]: '1s', [`${P}TIMEOUT`]: '5s' },
      async (context, attempt) => {
        if (attempt === 1) throw new Error('transient fault')
        if (attempt === 2) return hangingFirst(1, starts)(context, 1)
      },
    )
    await vi.advanceTimersByTimeAsync(10_000)
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'ok', attempts: 3 })
    expect(
      anyDependants(run.term.signal),
      'each attempt would stay on the term for its life (Node 20 keeps AbortSignal.any’s)',
    ).toBe(0)
    expect(followerCount(run.term.signal), 'each attempt would stay on the term until it ends').toBe(0)
  })

  it('still ends the attempt in flight when the term ends', async () => {
    const run = slotPass({}, (context) => hangingFirst(1, [])(context, 1))
    await vi.advanceTimersByTimeAsync(100)
    run.term.abort(new Error('term ended'))
    expect(await run.result).toMatchObject({ kind: 'ran', outcome: 'aborted', attempts: 1 })
  })
})
