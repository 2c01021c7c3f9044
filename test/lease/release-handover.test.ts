/**
 * The clean hand-over on both stores, in real time: a holder that stops releases its lease, the store
 * tells the standbys (LeaseStore.onRelease), and one of them takes the lease within about a second — not
 * at the expiry it read (a TTL of 30 s here) nor at its next retry (10 s).
 */
import { describe, expect, it } from 'vitest'
import { type LeaseStore, MemoryStore, MongoStore, run, type TermEvent } from '../../src/index.js'
import { useTestDatabase } from '../support/mongo.js'

const TTL = 30_000
const RETRY = 10_000
/** The goal (issue #39): a clean stop hands over within 2 s. The jitter alone may take 1 s of it. */
const HANDOVER_GOAL_MS = 2_000

const mongo = await useTestDatabase('release_handover')

const stores: Array<{ store: string; make: () => LeaseStore }> = [
  { store: 'MemoryStore', make: () => new MemoryStore() },
  {
    store: 'MongoStore on the test Mongo',
    make: () => new MongoStore(mongo.db, { collection: 'handover_leases' }),
  },
]

/** Starts a campaign for `owner`; resolves `elected` with the instant it was, and `ended` when it ends. */
function campaign(store: LeaseStore, owner: string) {
  const stop = new AbortController()
  let onElected: (at: number) => void = () => {}
  const elected = new Promise<number>((resolve) => {
    onElected = resolve
  })
  let onWaiting: () => void = () => {}
  const waiting = new Promise<void>((resolve) => {
    onWaiting = resolve
  })
  const onEvent = (event: TermEvent) => {
    if (event.type === 'elected') onElected(Date.now())
    if (event.type === 'waiting') onWaiting()
  }
  const ended = run(
    store,
    { name: 'handover-net', owner, ttlMs: TTL, retryMs: RETRY, signal: stop.signal, onEvent },
    (signal) => new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
  )
  return { stop: () => stop.abort(), elected, waiting, ended }
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), ms))])

describe.each(stores)('a clean stop on $store', ({ make }) => {
  it('hands the lease to a standby within 2 s, not at the expiry the standby read', async () => {
    const store = make()
    const holder = campaign(store, 'holder')
    await within(holder.elected, 5_000, 'the first campaign was never elected')
    const standby = campaign(store, 'standby')
    await within(standby.waiting, 5_000, 'the standby never read the holder')
    try {
      holder.stop()
      await holder.ended
      const releasedAt = Date.now()
      const electedAt = await within(
        standby.elected,
        RETRY,
        'the standby did not take the released lease before its retry: the release was not heard',
      )
      expect(
        electedAt - releasedAt,
        'a clean stop left the net without a holder for longer than the hand-over goal',
      ).toBeLessThan(HANDOVER_GOAL_MS)
    } finally {
      standby.stop()
      await standby.ended
    }
  }, 30_000)
})

describe('a store whose onRelease breaks its contract', () => {
  it('leaves the standby on the expiry it read, campaigning as before', async () => {
    class Throwing extends MemoryStore {
      override onRelease(): () => void {
        throw new Error('no release news here')
      }
    }
    const store = new Throwing()
    const diedAt = Date.now()
    await store.acquire('handover-net', 'dead', new Date(diedAt), 1_000)
    const stop = new AbortController()
    let electedAt: number | undefined
    const ended = run(
      store,
      { name: 'handover-net', owner: 'standby', ttlMs: 1_000, retryMs: 500, signal: stop.signal },
      async () => {
        electedAt ??= Date.now()
        stop.abort()
      },
    )
    await within(ended, 10_000, 'the campaign neither took the dead holder’s lease nor ended')
    expect(
      electedAt,
      'a throwing onRelease ended the campaign before it took the expired lease',
    ).toBeDefined()
    expect(electedAt! - diedAt, 'the standby took a lease whose term had not expired').toBeGreaterThanOrEqual(
      1_000,
    )
  })
})
