import type { Logger } from '../../src/logger.js'
import { quietLog } from '../support/log-capture.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MemoryStore, run, systemClock, type TermEvent, type TermInfo } from '../../src/index.js'
import { FaultyStore } from './faulty-store.js'

const TTL = 3000
const RETRY = 1000

interface Line {
  level: 'info' | 'warn'
  msg: string
  fields: Record<string, unknown> | undefined
}

function recorder() {
  const lines: Line[] = []
  const log: Logger = {
    info: (fields, msg) => lines.push({ level: 'info', msg: msg ?? '', fields: fields as Line['fields'] }),
    warn: (fields, msg) => lines.push({ level: 'warn', msg: msg ?? '', fields: fields as Line['fields'] }),
    ...{ debug: () => {}, error: () => {}, child: () => log },
  }
  return { lines, log }
}

/** One candidate serving until stopped; records its events, log lines and terms' info. */
function candidate(store: MemoryStore | FaultyStore, owner: string, options: { retryMs?: number } = {}) {
  const stop = new AbortController()
  const events: TermEvent[] = []
  const infos: TermInfo[] = []
  const { lines, log } = recorder()
  const done = run(
    store,
    {
      name: 'net-a',
      owner,
      ttlMs: TTL,
      retryMs: options.retryMs ?? RETRY,
      signal: stop.signal,
      log,
      onEvent: (e) => events.push(e),
    },
    async (signal, info) => {
      infos.push(info)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
    },
  )
  return { stop: () => stop.abort(), done, events, lines, infos }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-09-30T15:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

/** A standby's campaign attempts: its acquires, and its reads of the holder it saw (the only reader). */
const campaignCalls = (store: FaultyStore) =>
  store.calls.filter((c) => (c.op === 'acquire' && c.owner === 'beta') || c.op === 'get').length

describe('lease.run term events', () => {
  it('hands the term’s fence and token to the work, and each new term a greater fence', async () => {
    const store = new MemoryStore()
    const a = candidate(store, 'alpha')
    await vi.advanceTimersByTimeAsync(50)
    a.stop()
    await vi.advanceTimersByTimeAsync(1_000)
    await a.done
    const b = candidate(store, 'beta')
    await vi.advanceTimersByTimeAsync(50)
    expect(a.infos.map((i) => i.fence)).toEqual([1])
    expect(
      b.infos.map((i) => i.fence),
      'the next term did not get a greater fence',
    ).toEqual([2])
    expect(b.infos[0]?.token).toEqual((await store.get('net-a')) && expect.any(String))
    expect(b.infos[0]?.token, 'two terms shared a token').not.toBe(a.infos[0]?.token)
    b.stop()
    await vi.advanceTimersByTimeAsync(1_000)
  })

  it('reports elected (naming the previous holder) and released as typed events and as lines with the fence', async () => {
    const store = new MemoryStore()
    await store.acquire('net-a', 'gone', new Date(Date.now() - 1000), 10)
    const a = candidate(store, 'alpha')
    await vi.advanceTimersByTimeAsync(50)
    a.stop()
    await vi.advanceTimersByTimeAsync(1_000)
    await a.done
    expect(a.events).toEqual([
      { type: 'elected', lease: 'net-a', owner: 'alpha', ttlMs: TTL, fence: 2, previousHolder: 'gone' },
      { type: 'released', lease: 'net-a', owner: 'alpha', ttlMs: TTL, fence: 2 },
    ])
    expect(a.lines.map((l) => [l.msg, l.fields])).toEqual([
      [
        'elected',
        { lease: 'net-a', owner: 'alpha', ttlMs: TTL, event: 'elected', fence: 2, previousHolder: 'gone' },
      ],
      ['released', { lease: 'net-a', owner: 'alpha', ttlMs: TTL, event: 'released', fence: 2 }],
    ])
  })

  it('says once per holder’s term who holds the lease and until when, reading it at most once per ttl', async () => {
    const store = new FaultyStore(new MemoryStore())
    const a = candidate(store, 'alpha')
    await vi.advanceTimersByTimeAsync(50)
    const b = candidate(store, 'beta')
    await vi.advanceTimersByTimeAsync(10 * TTL)
    const waiting = b.events.filter((e) => e.type === 'waiting')
    expect(waiting, 'the waiting candidate did not say exactly once who holds the lease').toEqual([
      expect.objectContaining({ type: 'waiting', holder: 'alpha', fence: 1, expiresAt: expect.any(Date) }),
    ])
    // The standby's attempts after its first refused acquire are reads of the holder it saw (one call
    // each, where a refused acquire and a read were two): it acquires only once the term stands no longer.
    const reads = store.calls.filter((c) => c.op === 'get').length
    const acquires = store.calls.filter((c) => c.op === 'acquire' && c.owner === 'beta').length
    expect(reads + acquires, 'the waiting candidate stopped campaigning').toBeGreaterThanOrEqual(20)
    expect(acquires, 'the standby sent acquires while the holder it read held the lease').toBe(1)
    expect(b.lines.find((l) => l.fields?.event === 'waiting')?.msg).toBe(
      'waiting: another owner holds the lease',
    )
    a.stop()
    await vi.advanceTimersByTimeAsync(3 * RETRY)
    b.stop()
    await vi.advanceTimersByTimeAsync(3 * RETRY)
    expect(
      b.events.find((e) => e.type === 'elected'),
      'beta was not elected after alpha released',
    ).toMatchObject({
      fence: 2,
      previousHolder: 'alpha',
    })
  })

  it('warns on each failed renewal with the time left, and never says nobody is elected while serving', async () => {
    let down = false
    const store = new FaultyStore(new MemoryStore(), (op) =>
      down && op === 'renew' ? { kind: 'fail' } : { kind: 'pass' },
    )
    const a = candidate(store, 'alpha')
    await vi.advanceTimersByTimeAsync(50)
    down = true
    await vi.advanceTimersByTimeAsync(TTL)
    const failed = a.events.filter((e) => e.type === 'renew-failed')
    expect(failed.length, 'a failed renewal went unreported').toBeGreaterThanOrEqual(2)
    const left = failed.map((e) => (e.type === 'renew-failed' ? e.stepDownInMs : Number.NaN))
    expect(left[0], 'the first failure did not say how long the term has left').toBeGreaterThan(0)
    expect(left[1], 'the time left did not shrink').toBeLessThan(left[0]!)
    const outage = a.events.find((e) => e.type === 'store-failing')
    expect(outage).toMatchObject({ holding: true, operation: 'renew' })
    const words = a.lines.filter((l) => l.level === 'warn').map((l) => l.msg)
    expect(words.join('\n'), 'a serving holder said nobody is elected').not.toMatch(/nobody is elected/)
    expect(words).toContain(
      `renewal got no answer: stepping down in ${Math.round(left[0]!)} ms unless one lands`,
    )
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('reports every acquire and renewal attempt, answered or not, and none once stopped', async () => {
    let down = false
    const store = new FaultyStore(new MemoryStore(), (op) =>
      down && op !== 'release' ? { kind: 'fail' } : { kind: 'pass' },
    )
    const stop = new AbortController()
    const attempts: Array<{ operation: string; at: number }> = []
    const done = run(
      store,
      {
        name: 'net-a',
        owner: 'alpha',
        ttlMs: TTL,
        retryMs: RETRY,
        signal: stop.signal,
        onAttempt: (operation) => {
          attempts.push({ operation, at: Date.now() })
          throw new Error('a broken hook')
        },
      },
      (signal) => new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
    )
    await vi.advanceTimersByTimeAsync(TTL * 2)
    const serving = attempts.map((a) => a.operation)
    expect(serving[0], 'the first acquire went unreported').toBe('acquire')
    // A renewal every ttl/3: about six in two ttl.
    expect(serving.filter((o) => o === 'renew').length, 'renewals went unreported').toBeGreaterThanOrEqual(5)
    down = true
    const before = attempts.length
    await vi.advanceTimersByTimeAsync(TTL * 3)
    const failing = attempts.slice(before)
    expect(
      failing.map((a) => a.operation),
      'unanswered calls were not attempts',
    ).toContain('renew')
    expect(
      failing.map((a) => a.operation),
      'unanswered acquires were not attempts',
    ).toContain('acquire')
    const gaps = failing.slice(1).map((a, i) => a.at - failing[i]!.at)
    expect(Math.max(...gaps), 'attempts stopped while the store failed').toBeLessThanOrEqual(
      RETRY * 1.2 + TTL / 3,
    )
    stop.abort()
    await vi.advanceTimersByTimeAsync(10_000)
    await done
    const stopped = attempts.length
    await vi.advanceTimersByTimeAsync(TTL * 3)
    expect(attempts.length, 'a stopped campaign kept attempting').toBe(stopped)
  })

  it('reports an attempt that throws unexpectedly, and is elected on the next attempt', async () => {
    const store = new MemoryStore()
    const stop = new AbortController()
    const { lines, log } = recorder()
    let terms = 0
    let reads = 0
    // A clock that fails once, as the first attempt starts: outside any store call, which would catch it.
    const clock = {
      ...systemClock,
      monotonic: () => {
        if (++reads === 1) throw new RangeError('the clock failed once')
        return performance.now()
      },
    }
    const done = run(
      store,
      { name: 'net-a', owner: 'alpha', ttlMs: TTL, retryMs: RETRY, signal: stop.signal, log, clock },
      async (signal) => {
        terms++
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      },
    ).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(RETRY * 1.2 + 50)
    const failed = lines.find((l) => l.fields?.event === 'attempt-failed')
    expect(failed, 'an attempt that threw left no line').toMatchObject({
      level: 'warn',
      msg: 'campaign attempt failed unexpectedly: trying again after the retry pause',
      fields: { lease: 'net-a', owner: 'alpha', err: expect.any(RangeError) },
    })
    expect(terms, 'the campaign died with its attempt instead of trying again').toBe(1)
    stop.abort()
    await vi.advanceTimersByTimeAsync(RETRY * 2)
    expect(await done, 'the campaign ended abnormally').toBeUndefined()
  })

  it('never throws on a store answering a record whose expiry is not a Date', async () => {
    const inner = new MemoryStore()
    await inner.acquire('net-a', 'alpha', new Date(), 60 * TTL)
    // A store of someone else's that breaks the LeaseRecord contract: the expiry comes back as text.
    const store = new FaultyStore(inner)
    const get = store.get.bind(store)
    store.get = async (name, options) => {
      const record = await get(name, options)
      return record && { ...record, expiresAt: String(record.expiresAt) as unknown as Date }
    }
    const b = candidate(store, 'beta')
    await vi.advanceTimersByTimeAsync(5 * RETRY)
    expect(
      b.events.filter((e) => e.type === 'attempt-failed'),
      'the waiting note threw',
    ).toEqual([])
    expect(store.calls.filter((c) => c.op === 'acquire').length, 'beta stopped campaigning').toBeGreaterThan(
      3,
    )
    b.stop()
    await vi.advanceTimersByTimeAsync(2 * RETRY)
    await expect(b.done).resolves.toBeUndefined()
  })

  it('goes on campaigning and resolves when its log and its event subscriber throw', async () => {
    const store = new MemoryStore()
    const stop = new AbortController()
    let terms = 0
    const done = run(
      store,
      {
        name: 'net-a',
        owner: 'alpha',
        ttlMs: TTL,
        retryMs: RETRY,
        signal: stop.signal,
        log: quietLog({
          info: () => {
            throw new Error('log sink broken')
          },
          warn: () => {
            throw new Error('log sink broken')
          },
        }),
        onEvent: () => {
          throw new Error('metrics broken')
        },
      },
      async () => {
        terms++
        await new Promise((r) => setTimeout(r, 100))
      },
    )
    await vi.advanceTimersByTimeAsync(RETRY * 4)
    expect(terms, 'a throwing subscriber stopped the campaign').toBeGreaterThanOrEqual(3)
    stop.abort()
    await vi.advanceTimersByTimeAsync(RETRY * 2)
    await expect(done).resolves.toBeUndefined()
    expect(
      (await store.get('net-a'))?.owner,
      'a throwing subscriber kept the lease from being released',
    ).toBe(undefined)
  })

  it.each([
    ['0', 0],
    ['a negative retry', -5],
  ])(
    'treats a retry of %s as the default ttl/3 instead of campaigning in a hot loop',
    async (_what, retryMs) => {
      const store = new FaultyStore(new MemoryStore())
      const holder = candidate(store, 'holder')
      await vi.advanceTimersByTimeAsync(10)
      const b = candidate(store, 'beta', { retryMs })
      await vi.advanceTimersByTimeAsync(10 * TTL)
      const attempts = campaignCalls(store)
      // ttl/3 jittered by up to +20%: between 25 and 31 attempts in 10 ttl.
      expect(attempts, 'a retry ≤ 0 did not fall back to ttl/3').toBeGreaterThanOrEqual(25)
      expect(attempts).toBeLessThanOrEqual(31)
      holder.stop()
      b.stop()
      await vi.advanceTimersByTimeAsync(10_000)
    },
  )

  it('floors a tiny retry at ttl/30', async () => {
    const store = new FaultyStore(new MemoryStore())
    const holder = candidate(store, 'holder')
    await vi.advanceTimersByTimeAsync(10)
    const b = candidate(store, 'beta', { retryMs: 1 })
    await vi.advanceTimersByTimeAsync(TTL)
    const attempts = campaignCalls(store)
    expect(attempts, 'a 1 ms retry campaigned faster than ttl/30').toBeLessThanOrEqual(31)
    expect(attempts, 'a 1 ms retry was slowed beyond ttl/30').toBeGreaterThanOrEqual(25)
    holder.stop()
    b.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('rejects a retry that is not a number, naming the default', async () => {
    await expect(
      run(new MemoryStore(), { name: 'a', owner: 'o', ttlMs: 10, retryMs: Number.NaN }, () => {}),
    ).rejects.toThrow(/retryMs must be .*≤ 0 for the default ttl\/3.*NaN/)
  })
})
