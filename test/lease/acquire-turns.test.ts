/**
 * A replica's acquire turns (src/lease/acquire-turns.ts): the queue itself, and campaigns sharing one
 * through `run`'s `acquireTurns` — at most one acquire of the replica with the store at once, the release of
 * an unanswered acquire inside the same turn, and every campaign still elected.
 */
import { describe, expect, it } from 'vitest'
import { AcquireTurns } from '../../src/lease/acquire-turns.js'
import {
  type AcquireOptions,
  type LeaseCallOptions,
  type LeaseGrant,
  type LeaseTerm,
  MemoryStore,
  run,
} from '../../src/index.js'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A MemoryStore whose acquires take `delayMs` (the first of each name in `deaf` never answers), counted in flight. */
class SlowAcquireStore extends MemoryStore {
  inFlight = 0
  mostInFlight = 0
  readonly events: string[] = []
  constructor(
    readonly delayMs: number,
    readonly deaf = new Set<string>(),
  ) {
    super()
  }

  override async acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: AcquireOptions,
  ): Promise<LeaseGrant | false> {
    this.inFlight++
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight)
    this.events.push(`acquire ${name}`)
    try {
      if (this.deaf.delete(name))
        await new Promise((_, reject) => options?.signal?.addEventListener('abort', reject, { once: true }))
      await sleep(this.delayMs)
      return await super.acquire(name, owner, now, ttlMs, options)
    } finally {
      this.inFlight--
    }
  }

  override async release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void> {
    this.events.push(`release ${grant.name}`)
    await super.release(grant, options)
  }
}

/** Campaigns for `names` on `store` until each is elected once; resolves with the names in election order. */
async function electAll(store: MemoryStore, names: string[], turns?: AcquireTurns): Promise<string[]> {
  const stop = new AbortController()
  const elected: string[] = []
  const campaigns = names.map((name) =>
    run(
      store,
      {
        ...{ name, owner: 'replica-a', ttlMs: 3_000, retryMs: 500, signal: stop.signal },
        ...(turns ? { acquireTurns: turns } : {}),
      },
      async (term) => {
        elected.push(name)
        if (elected.length === names.length) stop.abort()
        if (!term.aborted)
          await new Promise((resolve) => term.addEventListener('abort', resolve, { once: true }))
      },
    ),
  )
  const bound = setTimeout(() => stop.abort(), 15_000)
  await Promise.all(campaigns)
  clearTimeout(bound)
  return elected
}

describe('AcquireTurns', () => {
  it('gives turns up to its limit at once and the next in the order they were asked', async () => {
    const turns = new AcquireTurns(2)
    const order: string[] = []
    const first = await turns.take()
    const second = await turns.take()
    const third = turns.take().then((end) => {
      order.push('third')
      return end
    })
    const fourth = turns.take().then((end) => {
      order.push('fourth')
      return end
    })
    await sleep(5)
    expect(order, 'a turn was given past the limit').toEqual([])
    expect(turns.waiting).toBe(2)
    second()
    second() // a second end of the same turn frees nothing more
    await sleep(5)
    expect(order, 'the waiting were not served one by one, in order').toEqual(['third'])
    first()
    await sleep(5)
    expect(order).toEqual(['third', 'fourth'])
    ;(await third)()
    ;(await fourth)()
    const again = [await turns.take(), await turns.take()]
    expect(turns.waiting, 'ended turns were not all given back').toBe(0)
    for (const end of again) end()
  })

  it('drops a waiter whose signal aborts, rejecting with its reason, and serves the next', async () => {
    const turns = new AcquireTurns(1)
    const held = await turns.take()
    const stop = new AbortController()
    const aborted = turns.take(stop.signal)
    const next = turns.take()
    stop.abort(new Error('campaign stopped'))
    await expect(aborted).rejects.toThrow('campaign stopped')
    expect(turns.waiting, 'the aborted waiter kept its place').toBe(1)
    held()
    ;(await next)()
    await expect(turns.take(AbortSignal.abort(new Error('already stopped')))).rejects.toThrow(
      'already stopped',
    )
  })

  it('refuses a limit that is not a whole number of one or more', () => {
    for (const limit of [0, -1, 1.5, Number.NaN])
      expect(() => new AcquireTurns(limit), String(limit)).toThrow(/limit must be an integer ≥ 1/)
  })
})

describe('campaigns sharing one replica’s acquire turns', () => {
  const names = Array.from({ length: 12 }, (_, i) => `turns-net-${i}`)

  it('send one acquire at a time and are all elected', async () => {
    const store = new SlowAcquireStore(20)
    const elected = await electAll(store, names, new AcquireTurns(1))
    expect(new Set(elected), 'a campaign was never elected').toEqual(new Set(names))
    expect(store.mostInFlight, 'acquires of one replica reached the store together').toBe(1)
  })

  it('send every acquire at once without turns (what the turns prevent)', async () => {
    const store = new SlowAcquireStore(20)
    await electAll(store, names)
    expect(store.mostInFlight).toBe(names.length)
  })

  it('release an unanswered acquire inside its turn, before the next acquire is sent', async () => {
    const store = new SlowAcquireStore(5, new Set(['turns-net-0']))
    const elected = await electAll(store, names.slice(0, 3), new AcquireTurns(1))
    expect(new Set(elected)).toEqual(new Set(names.slice(0, 3)))
    const first = store.events.indexOf('acquire turns-net-0')
    expect(
      store.events.slice(first, first + 3),
      'another acquire went out while the unanswered one was being released',
    ).toEqual(['acquire turns-net-0', 'release turns-net-0', store.events[first + 2]])
    expect(store.events[first + 2]).toMatch(/^acquire turns-net-[12]$/)
  }, 20_000)
})
