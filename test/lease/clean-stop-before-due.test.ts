/**
 * A clean stop seen before the work falls due, on both stores, in real time (issue #39): a holder releases
 * its lease soon after a standby read its expiry, 8 s away. Told the work's next due instant (`nextDue`),
 * the standby looks shortly before it and takes the lease in time; without it, it would wait for that
 * expiry, past the due instant.
 */
import { describe, expect, it } from 'vitest'
import { type LeaseStore, MemoryStore, MongoStore, run } from '../../src/index.js'
import { DUE_LOOK_AHEAD_MS } from '../../src/lease/due-look.js'
import { useTestDatabase } from '../support/mongo.js'

const TTL = 8_000
const DUE_IN = 4_000

const mongo = await useTestDatabase('clean_stop_before_due')

const stores: Array<{ store: string; make: () => LeaseStore }> = [
  { store: 'MemoryStore', make: () => new MemoryStore() },
  {
    store: 'MongoStore on the test Mongo',
    make: () => new MongoStore(mongo.db, { collection: 'due_look_leases' }),
  },
]

describe.each(stores)('a standby on $store told its next due instant', ({ make }) => {
  it('takes a cleanly released lease before that instant, not at the expiry it read', async () => {
    const store = make()
    const startedAt = Date.now()
    const due = new Date(startedAt + DUE_IN)
    const grant = await store.acquire('due-net', 'stopping', new Date(startedAt), TTL)
    expect(grant, 'the first holder could not take a free lease').not.toBe(false)
    const stop = new AbortController()
    let electedAt: number | undefined
    const done = run(
      store,
      {
        ...{ name: 'due-net', owner: 'standby', ttlMs: TTL, retryMs: TTL, signal: stop.signal },
        nextDue: (after) => (after < due ? due : new Date(due.getTime() + 600_000)),
      },
      () => {
        electedAt ??= Date.now()
        stop.abort()
      },
    )
    // The standby has read the holder's expiry (its first attempt is at once); then the holder stops.
    await new Promise((resolve) => setTimeout(resolve, 500))
    if (grant) await store.release(grant)
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, TTL + 4_000))])
    stop.abort()
    await done
    expect(electedAt, 'the standby never took the released lease').toBeDefined()
    expect(
      electedAt! - startedAt,
      'the standby took the lease after its work fell due: a clean stop delayed the slot',
    ).toBeLessThan(DUE_IN)
    expect(electedAt! - startedAt, 'the standby did not wait for its look').toBeGreaterThanOrEqual(
      DUE_IN - DUE_LOOK_AHEAD_MS - 50,
    )
  }, 20_000)
})
