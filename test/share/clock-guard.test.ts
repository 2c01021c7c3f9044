import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MemoryStore, run } from '../../src/index.js'
import {
  ClockGuard,
  type ClockGuardChange,
  clockVerdict,
  OFFSET_SAMPLES,
  offsetSample,
} from '../../src/share/clock-guard.js'
import { runClockProbe } from '../../src/share/clock-probe.js'
import { systemClock } from '../../src/lease/clock.js'

const TTL = 6000

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-12-01T21:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

describe('the clock guard’s rule', () => {
  it('lets a net campaign up to an offset of exactly ttl/6 either way, and holds it back 1 ms beyond', () => {
    expect(clockVerdict(1000, TTL).campaign).toBe(true)
    expect(clockVerdict(-1000, TTL).campaign).toBe(true)
    expect(clockVerdict(1001, TTL).campaign, 'a clock ahead beyond ttl/6 still campaigns').toBe(false)
    expect(clockVerdict(-1001, TTL).campaign, 'a clock behind beyond ttl/6 still campaigns').toBe(false)
  })

  it('says why it holds back: the offset, its direction and the limit', () => {
    const verdict = clockVerdict(-2500, TTL)
    expect(verdict.campaign).toBe(false)
    if (verdict.campaign) return
    expect(verdict.reason).toContain('2500 ms behind')
    expect(verdict.reason).toContain('ttl/6 = 1000 ms')
  })

  it('does not hold back before any measurement, nor when the guard is off', () => {
    expect(clockVerdict(undefined, TTL).campaign).toBe(true)
    expect(clockVerdict(50_000, TTL, false).campaign, 'LEASECRON_CLOCK_GUARD=off held a net back').toBe(true)
  })

  it('estimates the offset from the midpoint of the round trip', () => {
    // Sent at 10 000 by our clock, answered 400 ms later; the server stamped 9 000 in between.
    expect(offsetSample(10_000, 9_000, 400)).toEqual({ offsetMs: 1200, roundTripMs: 400 })
  })
})

describe('ClockGuard', () => {
  it('keeps the sample with the shortest round trip of the last few as its estimate', () => {
    const guard = new ClockGuard({ enforce: true, onChange: () => {} })
    expect(guard.offsetMs()).toBeUndefined()
    guard.record({ offsetMs: 900, roundTripMs: 800 })
    guard.record({ offsetMs: 10, roundTripMs: 4 })
    guard.record({ offsetMs: 300, roundTripMs: 200 })
    expect(guard.offsetMs(), 'a slow answer’s midpoint outweighed a fast one').toBe(10)
    for (let i = 0; i < OFFSET_SAMPLES; i++) guard.record({ offsetMs: 2000 + i, roundTripMs: 50 })
    expect(guard.offsetMs(), 'an old sample outlived the window').toBe(2000 + OFFSET_SAMPLES - 1)
  })

  it('shifts the ticks by its estimate while it is on, and by nothing before a sample or when off', () => {
    const on = new ClockGuard({ enforce: true, onChange: () => {} })
    expect(on.tickOffsetMs(), 'ticks moved before any measurement').toBe(0)
    on.record({ offsetMs: 4_200, roundTripMs: 3 })
    expect(on.tickOffsetMs(), 'a replica 4.2 s ahead would start its slots early').toBe(4_200)
    const off = new ClockGuard({ enforce: false, onChange: () => {} })
    off.record({ offsetMs: 4_200, roundTripMs: 3 })
    expect(off.tickOffsetMs(), 'LEASECRON_CLOCK_GUARD=off still followed the server’s clock').toBe(0)
  })

  it('reports each net’s flip once, and lists the held-back nets until they resume', () => {
    const changes: ClockGuardChange[] = []
    const guard = new ClockGuard({ enforce: true, onChange: (c) => changes.push(c) })
    guard.record({ offsetMs: 0, roundTripMs: 1 })
    guard.verdict('a', TTL)
    expect(changes, 'a net that may campaign was reported as a change').toEqual([])
    guard.record({ offsetMs: 1500, roundTripMs: 0 })
    for (let i = 0; i < 3; i++) guard.verdict('a', TTL)
    guard.verdict('b', 12_000)
    expect(changes.map((c) => [c.lease, c.verdict.campaign])).toEqual([['a', false]])
    expect(guard.heldBack()).toEqual(['a'])
    for (let i = 0; i < OFFSET_SAMPLES; i++) guard.record({ offsetMs: 20, roundTripMs: 0 })
    guard.verdict('a', TTL)
    expect(changes.map((c) => [c.lease, c.verdict.campaign])).toEqual([
      ['a', false],
      ['a', true],
    ])
    expect(guard.heldBack()).toEqual([])
  })
})

describe('the clock probe', () => {
  it('measures a server 3 s behind as an offset of +3 s, through answers that take 40 ms', async () => {
    const guard = new ClockGuard({ enforce: true, onChange: () => {} })
    const estimates: number[] = []
    const stop = new AbortController()
    const serverTime = async () => {
      await new Promise((r) => setTimeout(r, 20))
      const stamped = Date.now() - 3000
      await new Promise((r) => setTimeout(r, 20))
      return stamped
    }
    const probe = runClockProbe({
      serverTime,
      guard,
      clock: systemClock,
      signal: stop.signal,
      onEstimate: (ms) => estimates.push(ms),
      intervalMs: 1000,
    })
    await vi.advanceTimersByTimeAsync(3500)
    stop.abort()
    await probe
    expect(estimates.length, 'the probe did not measure once per interval').toBe(4)
    expect(guard.offsetMs()).toBe(3000)
  })

  it('records nothing for an unanswered probe: the last estimate stands', async () => {
    const guard = new ClockGuard({ enforce: true, onChange: () => {} })
    let answer = true
    const stop = new AbortController()
    const probe = runClockProbe({
      serverTime: async () => {
        if (!answer) throw new Error('no answer')
        return Date.now() - 500
      },
      guard,
      clock: systemClock,
      signal: stop.signal,
      onEstimate: () => {},
      intervalMs: 1000,
    })
    await vi.advanceTimersByTimeAsync(10)
    answer = false
    await vi.advanceTimersByTimeAsync(5000)
    stop.abort()
    await probe
    expect(guard.offsetMs()).toBe(500)
  })
})

describe('a campaign behind the clock guard', () => {
  it('sends no acquire while its offset exceeds ttl/6, and is elected once it is back under', async () => {
    const store = new MemoryStore()
    const guard = new ClockGuard({ enforce: true, onChange: () => {} })
    guard.record({ offsetMs: 1200, roundTripMs: 0 })
    const stop = new AbortController()
    const attempts: string[] = []
    let elected = 0
    const campaign = run(
      store,
      {
        name: 'net-a',
        owner: 'skewed',
        ttlMs: TTL,
        retryMs: 1000,
        signal: stop.signal,
        onAttempt: (kind) => attempts.push(kind),
        mayCampaign: () => guard.verdict('net-a', TTL).campaign,
      },
      async (term) => {
        elected++
        await new Promise((r) => term.addEventListener('abort', r, { once: true }))
      },
    )
    await vi.advanceTimersByTimeAsync(10_000)
    expect(elected, 'a replica whose clock is off by more than ttl/6 was elected').toBe(0)
    expect(await store.get('net-a'), 'a held-back campaign wrote to the store').toBeUndefined()
    expect(attempts.length).toBeGreaterThanOrEqual(7)
    expect(new Set(attempts)).toEqual(new Set(['withheld']))
    for (let i = 0; i < OFFSET_SAMPLES; i++) guard.record({ offsetMs: 30, roundTripMs: 0 })
    await vi.advanceTimersByTimeAsync(1500)
    expect(elected, 'the campaign did not resume once the offset was back under ttl/6').toBe(1)
    stop.abort()
    await campaign
  })

  it('withholds when its gate throws: a broken guard holds back rather than campaigns', async () => {
    const store = new MemoryStore()
    const stop = new AbortController()
    const campaign = run(
      store,
      {
        name: 'net-a',
        owner: 'o',
        ttlMs: TTL,
        signal: stop.signal,
        mayCampaign: () => {
          throw new Error('broken gate')
        },
      },
      () => undefined,
    )
    await vi.advanceTimersByTimeAsync(10_000)
    expect(await store.get('net-a')).toBeUndefined()
    stop.abort()
    await campaign
  })
})
