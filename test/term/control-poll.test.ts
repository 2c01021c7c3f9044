/**
 * The replica's poll of its nets' controls (control-poll.ts), on the memory twin with fake timers: one
 * read per interval for every net waiting, none while no net waits, a failed read told to every net.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import type { NetControl, NetControlStore } from '../../src/control/net-control-store.js'
import { systemClock } from '../../src/lease/clock.js'
import {
  CONTROL_POLL_MS,
  ControlPoll,
  NOTICED_CONTROL_POLL_MS,
  TICK_READ_WINDOW_MS,
} from '../../src/term/control-poll.js'

/** The memory twin, counting its reads: `getMany` calls with their sizes, and `get` calls. */
function countingStore(fail?: () => boolean) {
  const store = new MemoryNetControlStore()
  const reads: number[] = []
  let gets = 0
  const counting: NetControlStore = Object.assign(Object.create(store), {
    getMany: (nets: readonly string[], now: Date) => {
      reads.push(nets.length)
      if (fail?.()) return Promise.reject(new Error('the store did not answer'))
      return store.getMany(nets, now)
    },
    get: (net: string, now: Date) => {
      gets++
      return store.get(net, now)
    },
  })
  return { store, counting, reads, gets: () => gets }
}

const nets = (n: number) => Array.from({ length: n }, (_, i) => `net-${i}`)

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-12-05T12:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

describe('the replica’s control poll', () => {
  it('reads the controls of every net waiting in one call per interval, and answers each its own', async () => {
    const { store, counting, reads, gets } = countingStore()
    const { request } = await store.request('net-7', 'run', { by: 'ann' }, new Date())
    const poll = new ControlPoll(counting, systemClock)
    const serving = new AbortController().signal
    const answers = nets(50).map((net) => poll.next(net, serving, 1_000))
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS - 1)
    expect(reads, 'a net was read before the interval passed').toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    const controls = (await Promise.all(answers)) as NetControl[]
    expect(reads, 'fifty held nets cost more than one read').toEqual([50])
    expect(gets(), 'a net was read on its own').toBe(0)
    expect(controls.map((c) => c.net)).toEqual(nets(50))
    expect(controls[7]?.run?.id, 'a net’s run request went unseen').toBe(request.id)
    expect(controls.filter((c) => c.run)).toHaveLength(1)
  })

  it('reads at once when woken by a notice, then waits a whole interval again', async () => {
    const { store, counting, reads } = countingStore()
    const poll = new ControlPoll(counting, systemClock, NOTICED_CONTROL_POLL_MS)
    const serving = new AbortController().signal
    poll.wake()
    const first = poll.next('net-1', serving, 1_000)
    const other = poll.next('net-2', serving, 1_000)
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS)
    expect(reads, 'a wake before any net waited read, or the fallback interval was not kept').toEqual([])
    const { request } = await store.request('net-2', 'run', { by: 'ann' }, new Date())
    poll.wake()
    await vi.advanceTimersByTimeAsync(0)
    expect(reads, 'a notice did not make the poll read the waiting nets at once').toEqual([2])
    expect((await other)?.run?.id, 'the request the notice was for went unseen').toBe(request.id)
    expect((await first)?.net).toBe('net-1')
    const again = poll.next('net-1', serving, 1_000)
    await vi.advanceTimersByTimeAsync(NOTICED_CONTROL_POLL_MS - 1)
    expect(reads, 'the poll read before its fallback interval with no notice').toEqual([2])
    await vi.advanceTimersByTimeAsync(1)
    expect(await again).toEqual({ net: 'net-1' })
    expect(reads).toEqual([2, 1])
  })

  it('reads nothing once no net waits: a term that ended leaves no timer and no read', async () => {
    const { counting, reads } = countingStore()
    const poll = new ControlPoll(counting, systemClock)
    const term = new AbortController()
    const answer = poll.next('net-1', term.signal, 1_000)
    term.abort()
    expect(await answer, 'an ended term got an answer').toBeUndefined()
    expect(vi.getTimerCount(), 'the poll kept a timer for nobody').toBe(0)
    await vi.advanceTimersByTimeAsync(3 * CONTROL_POLL_MS)
    expect(reads).toEqual([])
  })

  it('tells every waiting net when the read fails, and reads again for the nets that wait again', async () => {
    let failing = true
    const { counting, reads } = countingStore(() => failing)
    const poll = new ControlPoll(counting, systemClock)
    const serving = new AbortController().signal
    const answers = ['a', 'b'].map((net) => poll.next(net, serving, 1_000).catch((e: Error) => e.message))
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS)
    expect(await Promise.all(answers)).toEqual(['the store did not answer', 'the store did not answer'])
    failing = false
    const again = poll.next('a', serving, 1_000)
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS)
    expect(await again).toEqual({ net: 'a' })
    expect(reads).toEqual([2, 1])
  })

  it('reads more nets than one read holds in reads of a thousand', async () => {
    const { counting, reads } = countingStore()
    const poll = new ControlPoll(counting, systemClock)
    const serving = new AbortController().signal
    const answers = nets(2_500).map((net) => poll.next(net, serving, 1_000))
    await vi.advanceTimersByTimeAsync(CONTROL_POLL_MS)
    expect((await Promise.all(answers)).length).toBe(2_500)
    expect(reads).toEqual([1_000, 1_000, 500])
  })

  it('reads the pause checks asked within its window in one call, each its own, and answers a term’s end at once', async () => {
    const { store, counting, reads, gets } = countingStore()
    await store.pause('net-1', { by: 'ann' }, new Date())
    const poll = new ControlPoll(counting, systemClock)
    const serving = new AbortController().signal
    const first = poll.read('net-0', 1_000, serving)
    await vi.advanceTimersByTimeAsync(TICK_READ_WINDOW_MS - 1)
    const second = poll.read('net-1', 1_000, serving)
    const ending = new AbortController()
    const gone = poll.read('net-2', 1_000, ending.signal)
    ending.abort(new Error('the term ended'))
    await expect(gone, 'a check outlived its term').rejects.toThrow('the term ended')
    expect(reads, 'a check was read before its window closed').toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect((await first).paused, 'a net not paused read as paused').toBeUndefined()
    expect((await second).paused, 'the paused net’s check missed its pause').toBeDefined()
    expect(reads, 'the checks asked together were read apart').toEqual([3])
    expect(gets(), 'a check read its net on its own').toBe(0)
  })
})
