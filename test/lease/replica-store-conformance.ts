/**
 * The conformance suite both ReplicaStore twins run (memory-replica-store.test.ts, mongo-replica-store.test.ts):
 * the same calls, the same answers.
 */
import { describe, expect, it } from 'vitest'
import { LIVE_HORIZON_MIN_MS, LIVE_HORIZON_TTLS, type ReplicaStore } from '../../src/lease/replica-store.js'
import { LeaseStoreError } from '../../src/lease/store.js'

const T0 = new Date('2026-12-01T21:00:00.000Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const DAY = 24 * 3_600_000

export function replicaStoreConformance(
  label: string,
  makeStore: (options?: { liveRead?: number }) => ReplicaStore | Promise<ReplicaStore>,
): void {
  describe(`${label} conformance`, () => {
    // A collection flooded with announcements costs one bounded read (MAX_LIVE_REPLICAS, 3 here).
    it('answers at most its live-read cap of owners, the first in order', async () => {
      const store = await makeStore({ liveRead: 3 })
      for (const owner of ['e', 'c', 'a', 'd', 'b']) await store.announce(owner, T0, 5000)
      expect(await store.live(T0), 'a live read went past its cap').toEqual(['a', 'b', 'c'])
      await store.withdraw('a')
      expect(await store.live(T0)).toEqual(['b', 'c', 'd'])
    })

    it('lists an announced replica as live until its expiry, and not at the expiry instant itself', async () => {
      const store = await makeStore()
      await store.announce('b', T0, 3000)
      await store.announce('a', T0, 5000)
      expect(await store.live(T0)).toEqual(['a', 'b'])
      expect(await store.live(at(2999))).toEqual(['a', 'b'])
      expect(await store.live(at(3000)), 'a replica was live at its expiry instant').toEqual(['a'])
      expect(await store.live(at(5000))).toEqual([])
    })

    it('sets the expiry from the latest announcement, later or earlier (a clock set right replaces what it wrote ahead)', async () => {
      const store = await makeStore()
      await store.announce('a', T0, 10_000)
      await store.announce('a', at(9000), 5000)
      expect(await store.live(at(13_000))).toEqual(['a'])
      await store.announce('b', at(DAY), 3000)
      await store.announce('b', at(10_000), 3000)
      expect(
        await store.live(at(13_000)),
        'an announcement stamped a day ahead outlived the announcer’s next one',
      ).toEqual(['a'])
    })

    it('with the announce ttl, counts no announcement expiring beyond now + LIVE_HORIZON_TTLS × ttl', async () => {
      const store = await makeStore()
      const TTL = 40_000
      expect(LIVE_HORIZON_TTLS * TTL, 'the horizon here is not two ttls').toBeGreaterThan(LIVE_HORIZON_MIN_MS)
      await store.announce('honest', T0, TTL)
      await store.announce('edge', at(TTL), TTL)
      await store.announce('ahead', at(TTL + 1), TTL)
      await store.announce('tomorrow', at(DAY), TTL)
      expect(await store.live(T0, { ttlMs: TTL }), 'a clock ahead by more than a ttl was counted').toEqual([
        'edge',
        'honest',
      ])
      expect(await store.live(T0), 'without a ttl every unexpired announcement counts').toEqual([
        'ahead',
        'edge',
        'honest',
        'tomorrow',
      ])
      expect(await store.live(at(DAY - 1000), { ttlMs: TTL }), 'the horizon moves with now').toEqual([
        'tomorrow',
      ])
      const refused = await store.live(T0, { ttlMs: 0 }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect((refused as LeaseStoreError).code).toBe('LEASE_INVALID_ARGUMENT')
      expect(String(refused)).toContain('ttlMs must be a finite number of milliseconds ≥ 1')
    })

    it('counts an announcement of a longer ttl than the reader’s up to LIVE_HORIZON_MIN_MS ahead', async () => {
      const store = await makeStore()
      await store.announce('slower', T0, LIVE_HORIZON_MIN_MS)
      await store.announce('ahead', at(1), LIVE_HORIZON_MIN_MS)
      expect(await store.live(T0, { ttlMs: 1500 }), 'a replica of a slower net was not counted').toEqual([
        'slower',
      ])
    })

    it('truncates a fractional-millisecond ttl', async () => {
      const store = await makeStore()
      await store.announce('a', T0, 1000.9)
      expect(await store.live(at(999))).toEqual(['a'])
      expect(await store.live(at(1000))).toEqual([])
    })

    it('forgets a withdrawn replica at once, and withdraws an absent one as a no-op', async () => {
      const store = await makeStore()
      await store.announce('a', T0, 5000)
      await store.announce('b', T0, 5000)
      await store.withdraw('a')
      await store.withdraw('never-announced')
      expect(await store.live(T0)).toEqual(['b'])
    })

    it('sweeps the announcements expired at or before the instant, and only those', async () => {
      const store = await makeStore()
      await store.announce('a', T0, 1000)
      await store.announce('b', T0, 2000)
      await store.announce('c', T0, 3000)
      expect(await store.sweep(at(2000))).toBe(2)
      expect(await store.sweep(at(2000))).toBe(0)
      expect(await store.live(T0)).toEqual(['c'])
    })

    it('trims owner ids, and refuses blank ones, bad instants and ttls naming what was expected', async () => {
      const store = await makeStore()
      await store.announce('  a  ', T0, 1000)
      expect(await store.live(T0)).toEqual(['a'])
      const refusal = (p: Promise<unknown>) =>
        p.then(
          () => undefined,
          (e: unknown) => e,
        )
      const blank = await refusal(store.announce(' ', T0, 1000))
      expect(blank).toBeInstanceOf(LeaseStoreError)
      expect((blank as LeaseStoreError).code).toBe('LEASE_INVALID_ARGUMENT')
      expect((blank as Error).message).toContain('owner id must be a non-blank string')
      expect(String(await refusal(store.announce('a', new Date(Number.NaN), 1000)))).toContain(
        'now must be a valid Date',
      )
      expect(String(await refusal(store.announce('a', T0, 0)))).toContain('ttlMs must be a finite number')
      expect(String(await refusal(store.live(new Date(Number.NaN))))).toContain('now must be a valid Date')
      expect(String(await refusal(store.sweep(new Date(Number.NaN))))).toContain(
        'before must be a valid Date',
      )
    })

    it('rejects a call whose signal is already aborted and changes nothing', async () => {
      const store = await makeStore()
      const aborted = AbortSignal.abort(new Error('stop'))
      const refused = await store.announce('a', T0, 1000, { signal: aborted }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect((refused as LeaseStoreError).code).toBe('LEASE_CALL_ABORTED')
      expect(await store.live(T0), 'an aborted announcement landed').toEqual([])
    })
  })
}
