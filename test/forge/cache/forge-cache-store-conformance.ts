/**
 * The one conformance suite every ForgeCacheStore runs: both twins must keep, replace, forget and evict
 * identically — least recently used first, within entries and bytes.
 */
import { describe, expect, it } from 'vitest'
import {
  type ForgeCacheBounds,
  type ForgeCacheEntry,
  type ForgeCacheStore,
  forgeCacheEntryBytes,
} from '../../../src/forge/cache/forge-cache-store.js'

const entry = (name: string, bodyBytes = 100, etag = `W/"${name}"`): ForgeCacheEntry => ({
  key: `GET https://api.github.com/${name} accept=application/vnd.github+json inst=inst:1`,
  etag,
  credential: '0123456789abcdef',
  headers: { 'content-type': 'application/json; charset=utf-8', etag, 'x-ratelimit-remaining': '4999' },
  body: Buffer.from(`{"name":"${name}","pad":"${'x'.repeat(Math.max(0, bodyBytes - 22 - name.length))}"}`),
})

export function forgeCacheStoreConformance(
  label: string,
  makeStore: (bounds?: ForgeCacheBounds) => Promise<ForgeCacheStore>,
): void {
  describe(`${label}: the ForgeCacheStore contract`, () => {
    it('gives back what was set, byte for byte, and replaces it on a second set', async () => {
      const store = await makeStore()
      const a = entry('a')
      await store.set(a)
      expect(await store.get(a.key)).toEqual(a)
      const a2 = { ...entry('a', 300, 'W/"a2"') }
      await store.set(a2)
      expect(await store.get(a.key)).toEqual(a2)
      expect(await store.size()).toEqual({ entries: 1, bytes: forgeCacheEntryBytes(a2) })
    })

    it('keeps an entry without an etag by its last-modified', async () => {
      const store = await makeStore()
      const { etag: _etag, ...plain } = entry('lm')
      const dated = { ...plain, lastModified: 'Tue, 29 Sep 2026 10:00:00 GMT' }
      await store.set(dated)
      expect(await store.get(dated.key)).toEqual(dated)
    })

    it('forgets a deleted key and answers undefined for one never set', async () => {
      const store = await makeStore()
      await store.set(entry('gone'))
      await store.delete(entry('gone').key)
      expect(await store.get(entry('gone').key)).toBeUndefined()
      expect(await store.get('GET nowhere')).toBeUndefined()
      expect(await store.size()).toEqual({ entries: 0, bytes: 0 })
    })

    it('evicts the least recently used entry when the byte bound is passed', async () => {
      const one = forgeCacheEntryBytes(entry('a', 1000))
      const store = await makeStore({ maxBytes: Math.floor(one * 2.5) })
      await store.set(entry('a', 1000))
      await store.set(entry('b', 1000))
      await store.get(entry('a').key) // a is now the most recently used
      await store.set(entry('c', 1000))
      expect(await store.get(entry('b').key), 'b was the least recently used').toBeUndefined()
      expect(await store.get(entry('a').key)).toBeDefined()
      expect(await store.get(entry('c').key)).toBeDefined()
      expect((await store.size()).bytes).toBeLessThanOrEqual(Math.floor(one * 2.5))
    })

    it('evicts the least recently used entry when the entry bound is passed', async () => {
      const store = await makeStore({ maxEntries: 2 })
      await store.set(entry('a'))
      await store.set(entry('b'))
      await store.get(entry('a').key)
      await store.set(entry('c'))
      expect(await store.get(entry('b').key)).toBeUndefined()
      expect((await store.size()).entries).toBe(2)
    })

    it('never keeps an entry larger than the whole byte bound, and drops the older one of that key', async () => {
      const store = await makeStore({ maxBytes: 2000 })
      await store.set(entry('big', 500))
      await store.set(entry('big', 5000))
      expect(await store.get(entry('big').key)).toBeUndefined()
      expect(await store.size()).toEqual({ entries: 0, bytes: 0 })
    })
  })
}
