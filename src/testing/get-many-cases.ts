/**
 * The conformance cases of `getMany` (store-conformance.ts registers them for every store): skipped,
 * saying so, for a store without it, whose worker reads each lease in a call of its own.
 */
import { describe, expect, it } from 'vitest'
import type { LeaseStore } from '../lease/store.js'
import { at, granted, storeWith, t0 } from './conformance-terms.js'

/** Registers the `getMany` cases of `makeStore`. */
export function getManyCases(makeStore: () => LeaseStore | Promise<LeaseStore>): void {
  const withGetMany = (skip: (note: string) => void) =>
    storeWith(makeStore, ['getMany'], 'a worker on it reads each lease alone', skip)
  describe('getMany', () => {
    it('answers each name as get would, in the order given, a name given twice twice', async (ctx) => {
      const store = await withGetMany((note) => ctx.skip(note))
      await granted(store.acquire('net-a', 'alpha', t0, 3000))
      const released = await granted(store.acquire('net-b', 'beta', at(500), 3000))
      await store.release(released)
      const names = ['net-b', 'never-held', 'net-a', 'net-b']
      const one = await Promise.all(names.map((name) => store.get(name)))
      expect(one[2]?.owner, 'the held lease read without its holder').toBe('alpha')
      expect(
        await store.getMany(names),
        'an answer differs from get’s, or is out of the names’ order',
      ).toEqual(one)
    })

    it('answers an empty list with none, and refuses a blank name before it reads', async (ctx) => {
      const store = await withGetMany((note) => ctx.skip(note))
      expect(await store.getMany([])).toEqual([])
      await expect(store.getMany(['net-a', ' ']), 'a blank name was read').rejects.toMatchObject({
        code: 'LEASE_INVALID_ARGUMENT',
      })
    })
  })
}
