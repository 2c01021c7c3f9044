import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../src/lease/clock.js'
import { MemoryReplicaStore } from '../../src/lease/memory-replica-store.js'
import { createLogger } from '../../src/worker/logger.js'
import { createWorkerMetrics } from '../../src/worker/metrics.js'
import { ShareKeeper } from '../../src/worker/share-keeper.js'

const INTERVAL = 1000

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
  it('reserves a place per acquire in flight, so concurrent campaigns cannot overshoot the share', async () => {
    const store = new MemoryReplicaStore()
    await store.announce('other', new Date(), 60_000)
    const a = keeper(store, 'a', 4)
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    expect(a.share).toBe(2)
    expect([a.gate.reserve(), a.gate.reserve(), a.gate.reserve()]).toEqual([true, true, false])
    a.gate.settled()
    a.onTerm(() => {})
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
    for (let i = 0; i < 4; i++) a.onTerm(() => steppedDown.push(i))
    expect(steppedDown, 'a replica alone stepped down').toEqual([])
    const b = keeper(store, 'b', 4)
    const stopB = new AbortController()
    const loopB = b.run(stopB.signal)
    await b.firstRead
    expect(b.share).toBe(2)
    await vi.advanceTimersByTimeAsync(INTERVAL)
    expect(a.share).toBe(2)
    expect(steppedDown, 'not the two newest terms stepped down, or not once each').toEqual([2, 3])
    await vi.advanceTimersByTimeAsync(3 * INTERVAL)
    expect(steppedDown, 'a term was asked to step down twice').toEqual([2, 3])
    stopB.abort()
    await loopB
    await vi.advanceTimersByTimeAsync(INTERVAL)
    expect(a.share, 'a clean stop did not give its share back at the next read').toBe(4)
    stopA.abort()
    await loopA
    expect(await store.live(new Date())).toEqual([])
  })

  it('keeps terms within the slack above its share', async () => {
    const store = new MemoryReplicaStore()
    await store.announce('other', new Date(), 60_000)
    const a = keeper(store, 'a', 4, 1)
    const stop = new AbortController()
    const loop = a.run(stop.signal)
    await a.firstRead
    const steppedDown: number[] = []
    for (let i = 0; i < 3; i++) a.onTerm(() => steppedDown.push(i))
    expect(steppedDown, 'three terms on a share of two with a slack of one stepped down').toEqual([])
    a.onTerm(() => steppedDown.push(3))
    expect(steppedDown, 'four terms on a share of two with a slack of one: down to the share').toEqual([2, 3])
    stop.abort()
    await loop
  })
})
