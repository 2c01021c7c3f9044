import type { Logger } from '../../src/logger.js'
import { quietLog } from '../support/log-capture.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type LeaseStore, MemoryStore, type RunSpec, run } from '../../src/index.js'
import { type Fault, FaultyStore, type StoreOp } from './faulty-store.js'

const TTL = 3000
const RETRY = 1000
const HOLD = TTL - TTL / 6

interface Term {
  owner: string
  start: number
  end?: number
}

interface LogLine {
  level: 'info' | 'warn'
  msg: string
  fields?: Record<string, unknown>
}

/** One campaigning candidate whose work records its terms and runs until its term is aborted. */
function candidate(
  store: LeaseStore,
  owner: string,
  terms: Term[],
  options: { ttlMs?: number; retryMs?: number; work?: (signal: AbortSignal) => unknown } = {},
) {
  const stop = new AbortController()
  const lines: LogLine[] = []
  const log: Logger = {
    info: (fields, msg) => lines.push({ level: 'info', msg: msg ?? '', fields: fields as LogLine['fields'] }),
    warn: (fields, msg) => lines.push({ level: 'warn', msg: msg ?? '', fields: fields as LogLine['fields'] }),
    ...{ debug: () => {}, error: () => {}, child: () => log },
  }
  const done = run(
    store,
    {
      name: 'net-a',
      owner,
      ttlMs: options.ttlMs ?? TTL,
      retryMs: options.retryMs ?? RETRY,
      signal: stop.signal,
      log,
    },
    async (signal) => {
      const term: Term = { owner, start: performance.now() }
      terms.push(term)
      try {
        if (options.work) return await options.work(signal)
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      } finally {
        term.end = performance.now()
      }
    },
  )
  return { stop: () => stop.abort(), done, lines, owner }
}

/** The leases some owner holds (released ones are listed as free). */
async function held(store: LeaseStore) {
  return (await store.list()).filter((r) => r.owner !== undefined)
}

function overlaps(terms: Term[], now: number): Array<[Term, Term]> {
  const found: Array<[Term, Term]> = []
  for (const a of terms) {
    for (const b of terms) {
      if (a === b || a.start > b.start) continue
      if (b.start < (a.end ?? now) && a.owner !== b.owner) found.push([a, b])
    }
  }
  return found
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date('2026-09-30T15:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

describe('lease.run', () => {
  it('serves at most one term at a time among 5 candidates with slow, uneven answers', async () => {
    const seed = 17
    let state = seed
    const random = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return state / 2 ** 31
    }
    const store = new FaultyStore(new MemoryStore(), (): Fault => {
      const r = random()
      if (r < 0.3) return { kind: 'delay-request', ms: Math.floor(random() * (TTL / 4)) }
      if (r < 0.6) return { kind: 'delay-answer', ms: Math.floor(random() * (TTL / 4)) }
      return { kind: 'pass' }
    })
    const terms: Term[] = []
    const cs = Array.from({ length: 5 }, (_, i) => candidate(store, `c${i}`, terms))
    // Every 20 s the holder stops, so the lease changes hands under load many times.
    for (let second = 0; second < 120; second++) {
      await vi.advanceTimersByTimeAsync(1000)
      if (second % 20 === 19) {
        const holder = terms.find((t) => t.end === undefined)
        cs.find((c) => c.owner === holder?.owner)?.stop()
      }
    }
    for (const c of cs) c.stop()
    await vi.advanceTimersByTimeAsync(10_000)
    await Promise.all(cs.map((c) => c.done))
    expect(terms.length, 'the lease never changed hands, the test proves nothing').toBeGreaterThanOrEqual(5)
    expect(overlaps(terms, performance.now()), 'two candidates served the same lease at once').toEqual([])
  })

  it('keeps a healthy holder’s term for as long as it is healthy', async () => {
    const store = new MemoryStore()
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(100)
    const b = candidate(store, 'beta', terms)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(terms, 'the holder gave its lease up while healthy').toEqual([
      { owner: 'alpha', start: expect.any(Number) },
    ])
    a.stop()
    b.stop()
    await vi.advanceTimersByTimeAsync(10_000)
    await Promise.all([a.done, b.done])
  })

  it('hands over within one retry after the holder’s work returns', async () => {
    const store = new MemoryStore()
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms, { work: () => new Promise((r) => setTimeout(r, 5_000)) })
    await vi.advanceTimersByTimeAsync(10)
    const b = candidate(store, 'beta', terms)
    await vi.advanceTimersByTimeAsync(5_000 + RETRY * 1.2 + 50)
    const alphaEnd = terms[0]!.end!
    const beta = terms.find((t) => t.owner === 'beta')
    expect(beta, 'nobody took over after the holder released').toBeDefined()
    expect(beta!.start - alphaEnd, 'hand-over took longer than one retry').toBeLessThanOrEqual(
      RETRY * 1.2 + 1,
    )
    expect(a.lines.map((l) => l.msg)).toContain('released')
    a.stop()
    b.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('tries a dead holder’s lease as its term expires, not up to a retry later', async () => {
    const store = new MemoryStore()
    const diedAt = performance.now()
    // A holder that was granted the lease and died at once: it never renews, its term expires at TTL.
    await store.acquire('net-a', 'dead', new Date(), TTL)
    const terms: Term[] = []
    const b = candidate(store, 'beta', terms, { retryMs: 2_000 })
    await vi.advanceTimersByTimeAsync(TTL + 2_000 * 1.2 + 100)
    const beta = terms.find((t) => t.owner === 'beta')
    expect(beta, 'nobody took the dead holder’s lease over').toBeDefined()
    // On the retry grid alone its attempts fall at 0, 2.0–2.4 s and 4.0–4.8 s: the third is the first after 3 s.
    expect(
      beta!.start - diedAt,
      'the standby waited out its retry past the expiry it had read',
    ).toBeLessThanOrEqual(TTL + 2_000 * 0.2 + 10)
    expect(
      beta!.start - diedAt,
      'the standby took a lease whose term had not expired',
    ).toBeGreaterThanOrEqual(TTL)
    b.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('adds no attempt while the holder lives: one acquire per retry, as before', async () => {
    const store = new MemoryStore()
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(10)
    const acquires: string[] = []
    const counting: LeaseStore = Object.assign(Object.create(store), {
      acquire: (...args: Parameters<LeaseStore['acquire']>) => {
        acquires.push(args[1])
        return store.acquire(...args)
      },
    })
    const b = candidate(counting, 'beta', terms, { retryMs: 2_000 })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(
      terms.map((t) => t.owner),
      'the standby took a live holder’s lease',
    ).toEqual(['alpha'])
    // 60 s at one attempt per 2.0–2.4 s: 26 to 31 with the first.
    expect(acquires.length, 'the standby tried more often than its retry').toBeLessThanOrEqual(31)
    a.stop()
    b.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('steps down no later than ttl − ttl/6 after a slow grant was sent when no renewal lands', async () => {
    const slowGrant = 400
    const store = new FaultyStore(new MemoryStore(), (op) =>
      op === 'acquire'
        ? { kind: 'delay-answer', ms: slowGrant }
        : op === 'renew'
          ? { kind: 'hang' }
          : { kind: 'pass' },
    )
    const terms: Term[] = []
    const sentAt = performance.now()
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(TTL * 2)
    expect(terms[0]?.start, 'the grant was not served').toBe(sentAt + slowGrant)
    expect(terms[0]?.end, 'the term outlived its provable lease').toBeLessThanOrEqual(sentAt + HOLD)
    expect(terms[0]?.end).toBeGreaterThan(sentAt + HOLD - 5)
    expect(a.lines.find((l) => l.msg.startsWith('stepping down'))?.fields).toMatchObject({
      lease: 'net-a',
      owner: 'alpha',
      ttlMs: TTL,
    })
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('counts a slow renewal from its send, not from its answer', async () => {
    let renewals = 0
    const store = new FaultyStore(new MemoryStore(), (op) => {
      if (op !== 'renew') return { kind: 'pass' }
      renewals++
      return renewals === 1 ? { kind: 'delay-answer', ms: 900 } : { kind: 'hang' }
    })
    const terms: Term[] = []
    const start = performance.now()
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(TTL * 3)
    const firstRenewalSent = start + TTL / 3
    expect(terms[0]?.end, 'the deadline was counted from the answer').toBeLessThanOrEqual(
      firstRenewalSent + HOLD,
    )
    expect(terms[0]?.end, 'the proven renewal did not extend the term').toBeGreaterThan(start + HOLD)
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('keeps its term on a store that answers each renewal in ttl/4, renewing every ttl/3 from the send', async () => {
    const store = new FaultyStore(new MemoryStore(), (op) =>
      op === 'renew' ? { kind: 'delay-answer', ms: TTL / 4 } : { kind: 'pass' },
    )
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(TTL * 10)
    expect(terms, 'a holder answered within every bound stepped down').toHaveLength(1)
    expect(terms[0]?.end).toBeUndefined()
    const renewals = store.calls.filter((c) => c.op === 'renew').length
    expect(renewals, 'renewals drifted from a ttl/3 cadence').toBeGreaterThanOrEqual(29)
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('keeps the term through one failed renewal', async () => {
    let renewals = 0
    const store = new FaultyStore(new MemoryStore(), (op) =>
      op === 'renew' && ++renewals === 2 ? { kind: 'fail' } : { kind: 'pass' },
    )
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(TTL * 10)
    expect(renewals, 'the failing renewal never happened').toBeGreaterThan(3)
    expect(terms, 'one failed renewal ended the term').toHaveLength(1)
    expect(terms[0]?.end).toBeUndefined()
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('ends the term at the next renewal after a thief took the lease', async () => {
    const inner = new MemoryStore()
    const terms: Term[] = []
    const a = candidate(inner, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(50)
    // A thief whose clock runs far ahead sees the lease expired and takes it.
    expect(await inner.acquire('net-a', 'thief', new Date(Date.now() + 10 * TTL), TTL)).toMatchObject({
      owner: 'thief',
      fence: 2,
      previousHolder: 'alpha',
    })
    const stolenAt = performance.now()
    await vi.advanceTimersByTimeAsync(TTL)
    expect(terms[0]?.end, 'the term went on after the lease was stolen').toBeDefined()
    expect(terms[0]!.end! - stolenAt).toBeLessThanOrEqual(TTL / 3 + 1)
    expect(a.lines.map((l) => l.msg)).toContain('lost to another owner')
    expect(a.lines.find((l) => l.msg === 'had already lost it')?.fields).toMatchObject({
      fence: 1,
      holder: 'thief',
    })
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('follows an unanswered acquire with a release and never serves it', async () => {
    const store = new FaultyStore(new MemoryStore(), (op) =>
      op === 'acquire' ? { kind: 'lose-answer' } : { kind: 'pass' },
    )
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(TTL / 3 + 10)
    expect(
      store.calls.map((c) => c.op),
      'no release followed the unanswered acquire',
    ).toEqual(['acquire', 'release'])
    expect(await held(store.inner), 'a lease granted without an answer stayed held').toEqual([])
    await vi.advanceTimersByTimeAsync(TTL * 5)
    expect(terms, 'a grant whose answer never arrived was served').toEqual([])
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('logs a store outage once and its recovery once', async () => {
    let down = true
    const store = new FaultyStore(new MemoryStore(), () => (down ? { kind: 'fail' } : { kind: 'pass' }))
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(20_000)
    expect(terms, 'a store that cannot answer elected somebody').toEqual([])
    down = false
    await vi.advanceTimersByTimeAsync(5_000)
    const events = a.lines.map((l) => l.fields?.event)
    expect(
      events.filter((e) => e === 'store-failing'),
      'the outage was not logged exactly once',
    ).toHaveLength(1)
    expect(
      events.filter((e) => e === 'store-recovered'),
      'the recovery was not logged exactly once',
    ).toHaveLength(1)
    expect(terms).toHaveLength(1)
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('still elects with a 1 ms retry against a store that takes 50 ms to answer', async () => {
    const store = new FaultyStore(new MemoryStore(), () => ({ kind: 'delay-answer', ms: 50 }))
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms, { retryMs: 1 })
    await vi.advanceTimersByTimeAsync(500)
    expect(terms, 'an attempt bounded by the retry never hears its answer').toHaveLength(1)
    a.stop()
    await vi.advanceTimersByTimeAsync(10_000)
  })

  it('leaves no lease behind when stopped in the middle of an attempt', async () => {
    const store = new FaultyStore(new MemoryStore(), (op: StoreOp) =>
      op === 'acquire' ? { kind: 'delay-answer', ms: 500 } : { kind: 'pass' },
    )
    const terms: Term[] = []
    const a = candidate(store, 'alpha', terms)
    await vi.advanceTimersByTimeAsync(100)
    a.stop()
    await vi.advanceTimersByTimeAsync(6_000)
    await a.done
    expect(await held(store.inner), 'the stopped candidate left its lease behind').toEqual([])
    expect(terms).toEqual([])
  })

  it('releases on stop, after the term’s work has settled', async () => {
    const store = new MemoryStore()
    const order: string[] = []
    const stop = new AbortController()
    const done = run(
      store,
      { name: 'net-a', owner: 'alpha', ttlMs: TTL, signal: stop.signal },
      async (signal) => {
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }))
        await new Promise((r) => setTimeout(r, 200))
        order.push(`work settled, lease held by ${(await store.list())[0]?.owner}`)
      },
    )
    await vi.advanceTimersByTimeAsync(100)
    stop.abort()
    await vi.advanceTimersByTimeAsync(1_000)
    await done
    expect(order).toEqual(['work settled, lease held by alpha'])
    expect(await held(store), 'a clean stop left the lease held').toEqual([])
  })

  it('logs a throwing work and goes on campaigning', async () => {
    const store = new MemoryStore()
    let terms = 0
    const lines: string[] = []
    const stop = new AbortController()
    const done = run(
      store,
      {
        name: 'net-a',
        owner: 'alpha',
        ttlMs: TTL,
        retryMs: RETRY,
        signal: stop.signal,
        log: quietLog({ info: (_, m) => lines.push(m ?? ''), warn: (_, m) => lines.push(m ?? '') }),
      },
      () => {
        terms++
        throw new Error('boom')
      },
    )
    await vi.advanceTimersByTimeAsync(RETRY * 3.7)
    expect(terms, 'the campaign stopped after work threw').toBeGreaterThanOrEqual(3)
    expect(lines).toContain('term work failed')
    stop.abort()
    await vi.advanceTimersByTimeAsync(RETRY * 2)
    await expect(done).resolves.toBeUndefined()
  })

  it.each([
    ['no store', undefined, { name: 'a', owner: 'o', ttlMs: 10 }, /LeaseStore is required/],
    ['a blank name', new MemoryStore(), { name: ' ', owner: 'o', ttlMs: 10 }, /name must be/],
    ['a blank owner', new MemoryStore(), { name: 'a', owner: '', ttlMs: 10 }, /owner must be/],
    ['a ttl under 1 ms', new MemoryStore(), { name: 'a', owner: 'o', ttlMs: 0 }, /ttlMs must be/],
    [
      'a ttl beyond the timer limit',
      new MemoryStore(),
      { name: 'a', owner: 'o', ttlMs: 2 ** 31 },
      /ttlMs must be/,
    ],
    [
      'a ttl written as a duration string',
      new MemoryStore(),
      { name: 'a', owner: 'o', ttlMs: '6s' },
      /ttlMs must be a number of milliseconds .*, got the string "6s" \(write the number of milliseconds, e\.g\. 6000 for 6 s\)/,
    ],
    [
      'a retry written as a duration string',
      new MemoryStore(),
      { name: 'a', owner: 'o', ttlMs: 6000, retryMs: '2s' },
      /retryMs must be .*, got the string "2s"/,
    ],
  ] as const)('rejects a spec with %s', async (_what, store, spec, message) => {
    // A JavaScript caller's spec: the types would refuse the strings at build time.
    const given = spec as unknown as RunSpec
    await expect(run(store as unknown as LeaseStore, given, () => {})).rejects.toThrow(message)
    await expect(run(store as unknown as LeaseStore, given, () => {})).rejects.toMatchObject({
      code: 'LEASE_INVALID_SPEC',
    })
  })
})
