/**
 * What a standby told its work's next due instants reads while a holder lives, and when it still reads
 * at a holder's expiry, on both stores in real time (issue #39; due-look.ts, lease.run's `#pauseMs`).
 *
 * The slots are scaled down from a minute net at the default pace (slots 60 s apart, retry 30 s, a lease
 * renewed to a TTL of 30 s): here slots 4 s apart, a 2.5 s retry and a holder whose lease always ends
 * 1.4 s after its latest renewal. A standby looks before each slot, and then reads once at the expiry it
 * saw there; the read that expiry would have led to next is left to the next look, which comes within
 * the retry and before anything else falls due.
 */
import { describe, expect, it } from 'vitest'
import { type LeaseStore, MemoryStore, MongoStore, run } from '../../src/index.js'
import { useTestDatabase } from '../support/mongo.js'

const mongo = await useTestDatabase('standby_reads_per_slot')

const stores: Array<{ store: string; make: (collection: string) => LeaseStore }> = [
  { store: 'MemoryStore', make: () => new MemoryStore() },
  {
    store: 'MongoStore on the test Mongo',
    make: (collection) => new MongoStore(mongo.db, { collection }),
  },
]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Due instants `everyMs` apart from `firstMs` on. */
function slotsFrom(firstMs: number, everyMs: number): (after: Date) => Date {
  return (after) => {
    const since = after.getTime() - firstMs
    return new Date(since < 0 ? firstMs : firstMs + (Math.floor(since / everyMs) + 1) * everyMs)
  }
}

describe.each(stores)('a standby on $store told its next due instants', ({ make }) => {
  it('reads twice a slot while the holder renews: at its look, and once at the expiry it saw there', async () => {
    const SLOT = 4_000
    const HOLDER_TTL = 1_400
    const SLOTS = 4
    const store = make('reads_per_slot_leases')
    const first = Date.now() + 3_000
    const grant = await store.acquire('reads-net', 'holder', new Date(), HOLDER_TTL)
    expect(grant, 'the holder could not take a free lease').not.toBe(false)
    const renewing = setInterval(() => {
      if (grant) void store.renew(grant, new Date(), HOLDER_TTL).catch(() => undefined)
    }, 150)
    const stop = new AbortController()
    const calls: number[] = []
    const done = run(
      store,
      {
        ...{ name: 'reads-net', owner: 'standby', ttlMs: 2_500, retryMs: 2_500, signal: stop.signal },
        nextDue: slotsFrom(first, SLOT),
        onAttempt: (operation) => {
          if (operation === 'read' || operation === 'acquire') calls.push(Date.now())
        },
      },
      () => {
        throw new Error('the standby took the lease of a holder that renews it')
      },
    )
    try {
      await sleep(first + SLOTS * SLOT - Date.now() + 200)
    } finally {
      clearInterval(renewing)
      stop.abort()
      await done
    }
    const inWindow = calls.filter((at) => at >= first && at < first + SLOTS * SLOT)
    expect(
      inWindow.length,
      `the standby read ${inWindow.length} times in ${SLOTS} slots: it also read at each expiry after the slot's, where the next look decides as well`,
    ).toBeLessThanOrEqual(2 * SLOTS + 1)
    expect(inWindow.length, 'the standby stopped looking before each slot').toBeGreaterThanOrEqual(SLOTS)
  }, 30_000)

  it('still reads at the expiry it saw when a slot falls due before its next look', async () => {
    // A holder that died just before the look leaves a lease that ends 0.5 s after the slot; the next
    // look (5.8 s later) is within the longest retry pause (6 s) but comes after that slot.
    const SLOT = 5_800
    const store = make('reads_at_expiry_leases')
    const due = Date.now() + 3_000
    const dead = await store.acquire('expiry-net', 'dead', new Date(), due + 500 - Date.now())
    expect(dead, 'the dead holder could not take a free lease').not.toBe(false)
    const stop = new AbortController()
    let electedAt: number | undefined
    const done = run(
      store,
      {
        ...{ name: 'expiry-net', owner: 'standby', ttlMs: 5_000, retryMs: 5_000, signal: stop.signal },
        nextDue: slotsFrom(due, SLOT),
      },
      () => {
        electedAt ??= Date.now()
        stop.abort()
      },
    )
    await Promise.race([done, sleep(due + SLOT - Date.now() + 2_000)])
    stop.abort()
    await done
    expect(electedAt, 'the standby never took the dead holder’s lease').toBeDefined()
    expect(
      electedAt! - due,
      'the standby waited for its next look past the expiry: the slot it missed ran later than it could',
    ).toBeLessThan(2_800)
    expect(electedAt! - due, 'the standby took a lease whose term had not expired').toBeGreaterThanOrEqual(
      500,
    )
  }, 30_000)

  it('reads at the expiry it saw when its next look is further off than its longest retry pause', async () => {
    // A dead holder's lease ends in 1 s; the next slot is 30 s away. Left to the look, a run-now request or
    // a pass the holder was cut off in would wait out most of it.
    const store = make('reads_before_far_look_leases')
    const startedAt = Date.now()
    const dead = await store.acquire('far-net', 'dead', new Date(startedAt), 1_000)
    expect(dead, 'the dead holder could not take a free lease').not.toBe(false)
    const stop = new AbortController()
    let electedAt: number | undefined
    const done = run(
      store,
      {
        ...{ name: 'far-net', owner: 'standby', ttlMs: 2_000, retryMs: 2_000, signal: stop.signal },
        nextDue: slotsFrom(startedAt + 30_000, 60_000),
      },
      () => {
        electedAt ??= Date.now()
        stop.abort()
      },
    )
    await Promise.race([done, sleep(6_000)])
    stop.abort()
    await done
    expect(
      electedAt,
      'the standby left a dead holder’s lease to its look 28 s away, longer than any retry pause',
    ).toBeDefined()
    expect(electedAt! - startedAt).toBeLessThan(1_000 + 400 + 1_500)
  }, 30_000)
})
