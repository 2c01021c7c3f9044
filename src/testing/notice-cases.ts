/**
 * The conformance cases of notices, `notify` and `onNotice` (store-conformance.ts registers them for every
 * store): skipped, saying so, for a store without them, whose worker polls its nets' controls instead.
 */
import { describe, expect, it } from 'vitest'
import type { LeaseStore } from '../lease/store.js'
import { at, granted, storeWith, t0 } from './conformance-terms.js'

/** A store from `makeStore` with notices, and what its listener heard; skips the case without them. */
async function noticing(makeStore: () => LeaseStore | Promise<LeaseStore>, skip: (note: string) => void) {
  const store = await storeWith(
    makeStore,
    ['notify', 'onNotice'],
    'a worker on it polls its nets’ controls',
    skip,
  )
  const heard: string[] = []
  const stop = store.onNotice((name) => heard.push(name))
  return { store, heard, stop }
}

/** Registers the notice cases of `makeStore`. */
export function noticeCases(makeStore: () => LeaseStore | Promise<LeaseStore>): void {
  describe('notices', () => {
    it('are heard at the holder’s next renewal, once each, and with the grant of a lease', async (ctx) => {
      const { store, heard } = await noticing(makeStore, (note) => ctx.skip(note))
      await store.acquire('net-a', 'beta', t0, 500)
      await store.notify('net-a')
      const a = await granted(store.acquire('net-a', 'alpha', at(600), 3000))
      expect(heard, 'a grant did not tell its holder of the notice left before it').toEqual([
        'net-a',
        'net-a',
      ])
      heard.length = 0
      expect(await store.renew(a, at(1000), 3000)).toBe(true)
      expect(heard, 'a renewal with no new notice told the holder to read').toEqual([])
      await store.notify('net-a')
      await store.notify('net-a')
      expect(heard, 'a notice was heard before a renewal read it').toEqual([])
      expect(await store.renew(a, at(1200), 3000)).toBe(true)
      await store.renew(a, at(1300), 3000)
      expect(heard, 'two notices left between renewals were not heard exactly once').toEqual(['net-a'])
      expect((await store.get('net-a'))?.expiresAt, 'the renewal that heard a notice did not extend').toEqual(
        at(4300),
      )
    })

    it('are heard by renewMany for the noticed lease only, every held term still renewed', async (ctx) => {
      const { store, heard } = await noticing(makeStore, (note) => ctx.skip(note))
      const a = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      const b = await granted(store.acquire('net-b', 'alpha', t0, 3000))
      const c = await granted(store.acquire('net-c', 'alpha', t0, 3000))
      heard.length = 0
      await store.notify('net-b')
      await store.acquire('net-c', 'beta', at(3600), 3000)
      const answers = await store.renewMany!([a, b, c], at(1000), 3000)
      expect(answers, 'a notice cost a held term its renewal, or a lost term read held').toEqual([
        true,
        true,
        false,
      ])
      expect(heard, 'the noticed lease was not heard, or a lease without a notice was').toEqual(['net-b'])
      const expiries = (await store.list()).map((lease) => lease.expiresAt)
      expect(expiries, 'a held term was not extended').toEqual([at(4000), at(4000), at(6600)])
      expect(await store.renewMany!([a, b], at(1500), 3000)).toEqual([true, true])
      expect(heard, 'a notice was heard twice').toEqual(['net-b'])
    })

    it('change nothing of the term, and are nothing for a lease the store never had', async (ctx) => {
      const { store, heard } = await noticing(makeStore, (note) => ctx.skip(note))
      const a = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      heard.length = 0
      const before = await store.get('net-a')
      await store.notify('net-a')
      expect(await store.get('net-a'), 'a notice changed the lease’s term').toEqual(before)
      expect(await store.acquire('net-a', 'beta', at(100), 3000), 'a notice freed a held lease').toBe(false)
      await store.notify('net-never')
      expect(await store.get('net-never'), 'a notice created a lease').toBeUndefined()
      expect(await store.renew({ ...a, owner: 'beta' }, at(200), 3000)).toBe(false)
      expect(heard, 'a refused renewal told someone else’s notice').toEqual([])
    })

    it('stop reaching a listener once it unsubscribes', async (ctx) => {
      const { store, heard, stop } = await noticing(makeStore, (note) => ctx.skip(note))
      const a = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      stop()
      await store.notify('net-a')
      await store.renew(a, at(1000), 3000)
      expect(heard, 'an unsubscribed listener was still told').toEqual(['net-a'])
    })
  })
}
