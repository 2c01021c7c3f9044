/**
 * The conformance cases of release news, `onRelease` (store-conformance.ts registers them for every store):
 * skipped, saying so, for a store without it, whose standbys try at the expiry they read. The news may
 * come after the release resolves (MongoStore reads it back from a tail), so each case waits for it, up
 * to NEWS_MS, and checks what was told before it.
 */
import { describe, expect, it } from 'vitest'
import type { LeaseStore } from '../lease/store.js'
import { at, granted, storeWith, t0 } from './conformance-terms.js'

/** Longer than any store's news should take (MongoStore's is tens of ms); only a failing case waits it out. */
const NEWS_MS = 10_000

/** Resolves once `heard` holds `count` names, or rejects naming what was not heard. */
async function heardAtLeast(heard: string[], count: number, what: string): Promise<void> {
  const until = Date.now() + NEWS_MS
  while (heard.length < count) {
    if (Date.now() > until) throw new Error(`${what} was not heard within ${NEWS_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function releasing(makeStore: () => LeaseStore | Promise<LeaseStore>, skip: (note: string) => void) {
  const store = await storeWith(makeStore, ['onRelease'], 'its standbys try at the expiry they read', skip)
  const heard: string[] = []
  const stop = store.onRelease((name) => heard.push(name))
  return { store, heard, stop }
}

/** Registers the release-news cases of `makeStore`. */
export function releaseNewsCases(makeStore: () => LeaseStore | Promise<LeaseStore>): void {
  describe('release news', () => {
    it('tells a listener of each clean release of a standing term, by the lease’s name', async (ctx) => {
      const { store, heard, stop } = await releasing(makeStore, (note) => ctx.skip(note))
      try {
        const a = await granted(store.acquire('news-a', 'alpha', t0, 3000))
        await store.release(a)
        await heardAtLeast(heard, 1, 'the release of news-a')
        expect(heard, 'a clean release was told under another name, or more than once').toEqual(['news-a'])
      } finally {
        stop()
      }
    })

    it('tells nothing of a release that gave nothing up, nor of a term taken over at its expiry', async (ctx) => {
      const { store, heard, stop } = await releasing(makeStore, (note) => ctx.skip(note))
      try {
        const old = await granted(store.acquire('news-b', 'alpha', t0, 500))
        await granted(store.acquire('news-b', 'beta', at(600), 3000))
        await store.release({ ...old, owner: 'beta', token: 'not-the-token' }).catch(() => undefined)
        await store.release(old).catch(() => undefined)
        const c = await granted(store.acquire('news-c', 'alpha', t0, 3000))
        await store.release(c)
        await heardAtLeast(heard, 1, 'the release of news-c')
        expect(heard, 'a release that gave no term up, or an expiry, was told as a release').toEqual([
          'news-c',
        ])
      } finally {
        stop()
      }
    })

    it('stops reaching a listener once it unsubscribes, and still reaches the others', async (ctx) => {
      const { store, heard, stop } = await releasing(makeStore, (note) => ctx.skip(note))
      const others: string[] = []
      const stopOthers = store.onRelease!((name) => others.push(name))
      try {
        stop()
        const d = await granted(store.acquire('news-d', 'alpha', t0, 3000))
        await store.release(d)
        await heardAtLeast(others, 1, 'the release of news-d by the listener still subscribed')
        expect(heard, 'an unsubscribed listener was still told').toEqual([])
      } finally {
        stopOthers()
      }
    })
  })
}
