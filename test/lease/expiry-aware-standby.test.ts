/**
 * The expiry-aware standby on both stores, in real time: a holder that died at once leaves its lease to
 * expire at its TTL, and a standby that read that expiry tries then — not on its retry grid, whose
 * attempts fall at 0, 2.0–2.4 s and 4.0–4.8 s for a 2 s retry.
 */
import { describe, expect, it } from 'vitest'
import { type LeaseStore, MemoryStore, MongoStore, run } from '../../src/index.js'
import { useTestDatabase } from '../support/mongo.js'

const TTL = 3_000
const RETRY = 2_000
/** What the store's round trips and a loaded machine may add; the retry grid's next try is ≥ 4,000 ms. */
const SLACK = 500

const mongo = await useTestDatabase('expiry_aware_standby')

const stores: Array<{ store: string; make: () => LeaseStore }> = [
  { store: 'MemoryStore', make: () => new MemoryStore() },
  {
    store: 'MongoStore on the test Mongo',
    make: () => new MongoStore(mongo.db, { collection: 'standby_leases' }),
  },
]

describe.each(stores)('a standby on $store', ({ make }) => {
  it('takes a dead holder’s lease within its TTL and a fifth of a retry, not a retry later', async () => {
    const store = make()
    const diedAt = Date.now()
    await store.acquire('standby-net', 'dead', new Date(diedAt), TTL)
    const stop = new AbortController()
    let electedAt: number | undefined
    const done = run(
      store,
      { name: 'standby-net', owner: 'standby', ttlMs: TTL, retryMs: RETRY, signal: stop.signal },
      async (signal) => {
        electedAt ??= Date.now()
        stop.abort()
        if (!signal.aborted)
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      },
    )
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, TTL + 2 * RETRY + 2_000))])
    stop.abort()
    await done
    expect(electedAt, 'the standby never took the dead holder’s lease').toBeDefined()
    const after = electedAt! - diedAt
    expect(after, 'the standby took a lease whose term had not expired').toBeGreaterThanOrEqual(TTL)
    expect(after, 'the standby waited out its retry past the expiry it had read').toBeLessThan(
      TTL + RETRY * 0.2 + SLACK,
    )
  }, 20_000)
})
