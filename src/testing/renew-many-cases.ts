/**
 * The conformance cases of `renewMany` (store-conformance.ts registers them for every store): skipped,
 * saying so, for a store without it, whose worker renews each lease in a call of its own.
 */
import { describe, expect, it } from 'vitest'
import type { LeaseStore } from '../lease/store.js'
import { at, granted, storeWith, t0 } from './conformance-terms.js'

/** Registers the `renewMany` cases of `makeStore`. */
export function renewManyCases(makeStore: () => LeaseStore | Promise<LeaseStore>): void {
  const withRenewMany = (skip: (note: string) => void) =>
    storeWith(makeStore, ['renewMany'], 'a worker on it renews each lease alone', skip)
  describe('renewMany', () => {
    it('answers each grant as renew would, in the order given, and extends only the held terms', async (ctx) => {
      const store = await withRenewMany((note) => ctx.skip(note))
      const a = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      const b = await granted(store.acquire('net-b', 'alpha', t0, 3000))
      const released = await granted(store.acquire('net-c', 'alpha', t0, 3000))
      await store.release(released)
      const stranger = { ...b, owner: 'beta' }
      const answers = await store.renewMany([a, stranger, released, b, a], at(1000), 3000)
      expect(answers, 'an answer was not the one renew gives, or not in the grants’ order').toEqual([
        true,
        false,
        false,
        true,
        true,
      ])
      expect(await store.list()).toEqual([
        { name: 'net-a', owner: 'alpha', fence: 1, expiresAt: at(4000), renewedAt: at(1000) },
        { name: 'net-b', owner: 'alpha', fence: 1, expiresAt: at(4000), renewedAt: at(1000) },
        { name: 'net-c', owner: undefined, fence: 1, expiresAt: undefined, renewedAt: t0 },
      ])
    })

    it('never moves an expiry backward, and answers an empty list with none', async (ctx) => {
      const store = await withRenewMany((note) => ctx.skip(note))
      const a = await granted(store.acquire('net-a', 'alpha', t0, 30_000))
      expect(await store.renewMany([a], at(1000), 3000)).toEqual([true])
      expect((await store.get('net-a'))?.expiresAt, 'a short renewal cut a longer hold').toEqual(at(30_000))
      expect(await store.renewMany([], at(1000), 3000)).toEqual([])
    })

    it('refuses a later term’s lease to an earlier term of the same owner', async (ctx) => {
      const store = await withRenewMany((note) => ctx.skip(note))
      const old = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      const other = await granted(store.acquire('net-b', 'alpha', t0, 3000))
      await store.acquire('net-a', 'alpha', at(100), 1000)
      expect(
        await store.renewMany([old, other], at(500), 30_000),
        'an earlier term’s renewal extended the newer term',
      ).toEqual([false, true])
      expect((await store.get('net-a'))?.expiresAt).toEqual(at(3000))
    })
  })
}
