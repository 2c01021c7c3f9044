import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../src/lease/clock.js'
import { MemoryReplicaStore } from '../../src/lease/memory-replica-store.js'
import { LIVE_HORIZON_MIN_MS } from '../../src/lease/replica-store.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { ANNOUNCEMENT_INTERVALS, ShareKeeper, WINDOW_READS } from '../../src/share/share-keeper.js'

/** A term in `keeper`'s share whose step-down calls `onStepDown` (as the runner's serving listens to it). */
function termOf(keeper: ShareKeeper, onStepDown: () => void, orphaned?: boolean) {
  const share = keeper.onTerm(orphaned)
  // The keeper may ask the new term to step down at once (it rebalances as the term joins).
  if (share.stepDown.aborted) onStepDown()
  else share.stepDown.addEventListener('abort', onStepDown, { once: true })
  return share
}

const INTERVAL = 1000
/** The longest announcement a keeper believes (replica-store.ts, the live horizon): a replica alive through a test. */
const LONGEST = LIVE_HORIZON_MIN_MS

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-12-01T21:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

function keeper(store: MemoryReplicaStore, owner: string, leases: number, slack = 0): ShareKeeper {
  return new ShareKeeper({
    store,
    owner,
    leases,
    slack,
    intervalMs: INTERVAL,
    clock: systemClock,
    log: createLogger({ level: 'silent' }),
    metrics: createWorkerMetrics(),
  })
}

describe('the share keeper', () => {
  // Past MAX_LIVE_REPLICAS (3 here) every keeper counts the same first owners, plus itself: the counted
  // ones' shares still cover every lease (4 + 3 + 3 = 10), and one past the cap still wants some.
  it('keeps shares that cover every lease when the live replicas pass the live-read cap', async () => {
    const store = new MemoryReplicaStore({ liveRead: 3 })
    for (const other of ['b', 'c', 'd', 'e']) await store.announce(other, new Date(), LONGEST)
    const stop = new AbortController()
    const [a, z] = [keeper(store, 'a', 10), keeper(store, 'z', 10)]
    const loops = [a.run(stop.signal), z.run(stop.signal)]
    await Promise.all([a.firstRead, z.firstRead])
    expect([a.share, z.share], 'a share shrank to nothing or past what the cap implies').toEqual([4, 2])
    stop.abort()
    await Promise.all(loops)
  })

  it('reserves a place per acquire in flight, so concurrent campaigns cannot overshoot the share', async () => {
    const store = new MemoryReplicaStore()
    await store.announce('other', new Date(), LONGEST)
    const a = keeper(store, 'a', 4)
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    expect(a.share).toBe(2)
    expect([a.gate.reserve(), a.gate.reserve(), a.gate.reserve()]).toEqual([true, true, false])
    a.gate.settled()
    termOf(a, () => {})
    expect(a.gate.reserve(), 'a term and an acquire in flight left room for a third').toBe(false)
    a.gate.settled()
    expect(a.gate.reserve()).toBe(true)
    stop.abort()
    await loop
  })

  it('steps down from its newest terms when a replica joins, and its share grows back when that one stops', async () => {
    const store = new MemoryReplicaStore()
    const a = keeper(store, 'a', 4)
    const stopA = new AbortController()
    const loopA = a.run(stopA.signal)
    await a.firstRead
    const steppedDown: number[] = []
    for (let i = 0; i < 4; i++) termOf(a, () => steppedDown.push(i))
    expect(steppedDown, 'a replica alone stepped down').toEqual([])
    const b = keeper(store, 'b', 4)
    const stopB = new AbortController()
    const loopB = b.run(stopB.signal)
    await b.firstRead
    expect(b.share).toBe(2)
    await vi.advanceTimersByTimeAsync(INTERVAL)
    expect(a.share).toBe(2)
    expect(steppedDown, 'a replica seen in one read already moved terms').toEqual([])
    await vi.advanceTimersByTimeAsync(WINDOW_READS * INTERVAL)
    expect(steppedDown, 'not the two newest terms stepped down, or not once each').toEqual([2, 3])
    await vi.advanceTimersByTimeAsync(3 * INTERVAL)
    expect(steppedDown, 'a term was asked to step down twice').toEqual([2, 3])
    stopB.abort()
    await loopB
    await vi.advanceTimersByTimeAsync(2 * INTERVAL)
    expect(a.share, 'a clean stop did not give its share back after two reads').toBe(4)
    stopA.abort()
    await loopA
    expect(await store.live(new Date())).toEqual([])
  })

  it('keeps terms within the slack above its share', async () => {
    const store = new MemoryReplicaStore()
    await store.announce('other', new Date(), LONGEST)
    const a = keeper(store, 'a', 4, 1)
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    const steppedDown: number[] = []
    for (let i = 0; i < 3; i++) termOf(a, () => steppedDown.push(i))
    expect(steppedDown, 'three terms on a share of two with a slack of one stepped down').toEqual([])
    termOf(a, () => steppedDown.push(3))
    expect(steppedDown, 'four terms on a share of two with a slack of one: down to the share').toEqual([2, 3])
    stop.abort()
    await loop
  })

  it('settles ten leases on four replicas at the best split: the replica ranked past the ceilings steps down its third', async () => {
    const store = new MemoryReplicaStore()
    for (const other of ['a', 'b', 'd']) await store.announce(other, new Date(), LONGEST)
    const [b, c] = [keeper(store, 'b', 10), keeper(store, 'c', 10)]
    const stop = new AbortController()
    const loops = [b.run(stop.signal), c.run(stop.signal)]
    await Promise.all([b.firstRead, c.firstRead])
    const steppedDown: string[] = []
    for (const [name, k] of [
      ['b', b],
      ['c', c],
    ] as const)
      for (let i = 0; i < 3; i++) termOf(k, () => steppedDown.push(`${name}${i}`))
    await vi.advanceTimersByTimeAsync((WINDOW_READS + 1) * INTERVAL)
    expect([b.share, c.share], 'the shares by rank of a, b, c, d are 3, 3, 2, 2').toEqual([3, 2])
    expect(steppedDown, 'at 3/3/3/1 nobody made room for the fourth replica').toEqual(['c2'])
    stop.abort()
    await Promise.all(loops)
  })

  it('moves no term and opens no room when one replica’s announcement is late by an interval', async () => {
    const store = new MemoryReplicaStore()
    const announceC = () => store.announce('c', new Date(), ANNOUNCEMENT_INTERVALS * INTERVAL)
    await announceC()
    const [a, b] = [keeper(store, 'a', 6), keeper(store, 'b', 6)]
    const stop = new AbortController()
    const loops = [a.run(stop.signal), b.run(stop.signal)]
    await Promise.all([a.firstRead, b.firstRead])
    const steppedDown: string[] = []
    for (const [name, k] of [
      ['a', a],
      ['b', b],
    ] as const)
      for (let i = 0; i < 2; i++) termOf(k, () => steppedDown.push(`${name}${i}`))
    const reserves: boolean[] = []
    // c beats every interval, but one beat lands an interval late: its announcement lapses for one read.
    for (let beat = 1; beat <= 12; beat++) {
      await vi.advanceTimersByTimeAsync(INTERVAL)
      if (beat !== 2 && beat !== 3) await announceC()
      reserves.push(a.gate.reserve())
      if (reserves.at(-1)) a.gate.settled()
    }
    expect(steppedDown, 'a flickering count made a holder step down').toEqual([])
    expect(reserves, 'a flickering count let a replica at its share campaign for more').not.toContain(true)
    stop.abort()
    await Promise.all(loops)
  })

  it('moves no term for a stale announcement of a replica that restarted, read for its whole life', async () => {
    const store = new MemoryReplicaStore()
    const a = keeper(store, 'a', 6)
    const b = keeper(store, 'b', 6)
    const stop = new AbortController()
    const loops = [a.run(stop.signal), b.run(stop.signal)]
    await Promise.all([a.firstRead, b.firstRead])
    const steppedDown: number[] = []
    for (let i = 0; i < 3; i++) termOf(a, () => steppedDown.push(i))
    // The restarted replica's old announcement lives on beside the new one for its whole life.
    await store.announce('b-before-restart', new Date(), ANNOUNCEMENT_INTERVALS * INTERVAL)
    await vi.advanceTimersByTimeAsync((ANNOUNCEMENT_INTERVALS + 3) * INTERVAL)
    expect(steppedDown, 'a stale announcement made a holder at its share step down').toEqual([])
    expect(a.share).toBe(3)
    stop.abort()
    await Promise.all(loops)
  })

  it('lets a survivor take an orphaned lease above its share at once, and a freed one once the dead replica is gone', async () => {
    const store = new MemoryReplicaStore()
    const announceC = () => store.announce('c', new Date(), ANNOUNCEMENT_INTERVALS * INTERVAL)
    await announceC()
    const a = keeper(store, 'a', 6)
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    termOf(a, () => {})
    termOf(a, () => {})
    expect(a.share).toBe(3)
    // A third replica counted: b too.
    await store.announce('b', new Date(), LONGEST)
    await vi.advanceTimersByTimeAsync(2 * INTERVAL)
    await announceC()
    await store.announce('b', new Date(), LONGEST)
    expect(a.share).toBe(2)
    expect(a.gate.reserve(), 'a replica at its share campaigned for a freed lease').toBe(false)
    expect(a.gate.reserve(true), 'a replica at its share did not campaign for an orphaned lease').toBe(true)
    a.gate.settled()
    // c died: its announcement expires; the share grows once two reads have not seen it.
    await vi.advanceTimersByTimeAsync((ANNOUNCEMENT_INTERVALS + 2) * INTERVAL)
    expect(a.share, 'the survivors’ share did not grow after a death').toBe(3)
    expect(a.gate.reserve()).toBe(true)
    stop.abort()
    await loop
  })

  it('does not count announcements stamped by clocks a day ahead: a lone replica keeps every lease', async () => {
    const store = new MemoryReplicaStore()
    const tomorrow = new Date(Date.now() + 24 * 3_600_000)
    for (const ghost of ['g1', 'g2', 'g3', 'g4'])
      await store.announce(ghost, tomorrow, ANNOUNCEMENT_INTERVALS * INTERVAL)
    const a = keeper(store, 'a', 4)
    const steppedDown: number[] = []
    for (let i = 0; i < 4; i++) termOf(a, () => steppedDown.push(i))
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await vi.advanceTimersByTimeAsync((WINDOW_READS + 1) * INTERVAL)
    expect(a.share, 'replicas whose announcements expire tomorrow were counted').toBe(4)
    expect(steppedDown, 'a replica alone stepped down for dead replicas of a clock ahead').toEqual([])
    stop.abort()
    await loop
  })

  it('does not announce while the clock guard holds a lease back, and announces again once it lets go', async () => {
    const store = new MemoryReplicaStore()
    let heldBack: string[] = ['a-lease']
    const a = new ShareKeeper({
      store,
      owner: 'a',
      leases: 2,
      slack: 0,
      intervalMs: INTERVAL,
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
      metrics: createWorkerMetrics(),
      clockGuard: { heldBack: () => heldBack },
    })
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    await vi.advanceTimersByTimeAsync(2 * INTERVAL)
    expect(await store.live(new Date()), 'a replica held back by the clock guard announced itself').toEqual(
      [],
    )
    heldBack = []
    await vi.advanceTimersByTimeAsync(INTERVAL)
    expect(await store.live(new Date())).toEqual(['a'])
    stop.abort()
    await loop
  })

  it('divides the leases it is told of now: more room when they grow, a step-down when they shrink below its terms', async () => {
    const store = new MemoryReplicaStore()
    await store.announce('other', new Date(), LONGEST)
    const a = keeper(store, 'a', 2)
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    const steppedDown: number[] = []
    termOf(a, () => steppedDown.push(0))
    expect([a.share, a.gate.reserve()]).toEqual([1, false])
    a.setLeases(6)
    expect([a.leases, a.share], 'new installations’ leases opened no room').toEqual([6, 3])
    expect(a.gate.reserve()).toBe(true)
    a.gate.settled()
    termOf(a, () => steppedDown.push(1))
    termOf(a, () => steppedDown.push(2))
    a.setLeases(2)
    expect(steppedDown, 'a gone installation’s leases still counted towards the share').toEqual([1, 2])
    expect(() => a.setLeases(-1)).toThrow(/leases must be a whole number/)
    stop.abort()
    await loop
  })
})
