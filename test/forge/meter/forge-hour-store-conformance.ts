/**
 * The forge-hour store conformance suite: every twin (memory, Mongo) runs these same cases.
 */
import { describe, expect, it } from 'vitest'
import { type ForgeHourRow, type ForgeHourStore, HOUR_MS } from '../../../src/forge/meter/forge-hour-store.js'

const H0 = Date.UTC(2026, 11, 1, 10)
const row = (hour: number, lane: string, requests: number, notModified = 0, points = 0): ForgeHourRow => ({
  hour,
  lane,
  requests,
  notModified,
  points,
})

/** The hours from `ms` on, to far ahead. */
const from = (ms: number) => ({ since: new Date(ms), until: new Date(Date.UTC(2100, 0)) })

/** `open`: a new, empty store; `rowsRead` bounds what one read takes (the store's default without it). */
export function forgeHourStoreConformance(
  name: string,
  open: (options?: { rowsRead?: number }) => Promise<ForgeHourStore>,
): void {
  describe(`${name} (forge-hour store conformance)`, () => {
    it('sums every owner’s figures per hour and lane, ordered by hour then lane', async () => {
      const store = await open()
      await store.put('a', [row(H0, 'sweeper', 10, 4, 2), row(H0 + HOUR_MS, 'board', 3)])
      await store.put('b', [row(H0, 'sweeper', 5, 1, 1), row(H0, 'auth', 1)])
      expect(await store.read(from(H0))).toEqual([
        row(H0, 'auth', 1),
        row(H0, 'sweeper', 15, 5, 3),
        row(H0 + HOUR_MS, 'board', 3),
      ])
    })

    it('leaves out the rows of the owner named in `except`, summing everyone else’s', async () => {
      const store = await open()
      await store.put('a', [row(H0, 'sweeper', 10, 4, 2)])
      await store.put('b', [row(H0, 'sweeper', 5, 1, 1), row(H0, 'auth', 1)])
      await store.put('c', [row(H0, 'sweeper', 2)])
      expect(await store.read(from(H0), { except: 'a' }), 'the excepted owner was counted').toEqual([
        row(H0, 'auth', 1),
        row(H0, 'sweeper', 7, 1, 1),
      ])
    })

    it('replaces what an owner wrote for an hour and lane instead of adding to it', async () => {
      const store = await open()
      await store.put('a', [row(H0, 'sweeper', 10)])
      await store.put('a', [row(H0, 'sweeper', 12, 2, 0)])
      expect(await store.read(from(H0)), 'a repeated write was counted twice').toEqual([
        row(H0, 'sweeper', 12, 2, 0),
      ])
    })

    it('reads only the hours of its window, both ends included, and prunes the hours outside it', async () => {
      const store = await open()
      const hours = [0, 1, 2, 3, 4].map((h) => row(H0 + h * HOUR_MS, 'x', h + 1))
      await store.put('a', hours)
      const window = { since: new Date(H0 + HOUR_MS), until: new Date(H0 + 3 * HOUR_MS) }
      expect(
        (await store.read(window)).map((r) => r.requests),
        'an hour outside the window was read',
      ).toEqual([2, 3, 4])
      expect(await store.prune(window), 'the hours before and after the window').toBe(2)
      expect((await store.read(from(0))).map((r) => r.requests)).toEqual([2, 3, 4])
    })

    it('reads at most its bound of stored rows, the newest hours first, whatever was stored', async () => {
      const store = await open({ rowsRead: 4 })
      await store.put('a', [row(H0, 'x', 1), row(H0 + HOUR_MS, 'x', 2), row(H0 + 2 * HOUR_MS, 'x', 3)])
      await store.put('b', [row(H0, 'x', 10), row(H0 + HOUR_MS, 'x', 20), row(H0 + 2 * HOUR_MS, 'y', 30)])
      // Six rows, four read: both owners' two newest hours; the oldest hour is left out, never a newer one.
      expect(await store.read(from(0)), 'a read took more rows than its bound, or older ones').toEqual([
        row(H0 + HOUR_MS, 'x', 22),
        row(H0 + 2 * HOUR_MS, 'x', 3),
        row(H0 + 2 * HOUR_MS, 'y', 30),
      ])
    })

    it('refuses a row whose hour is not the start of an hour, naming the field', async () => {
      const store = await open()
      await expect(store.put('a', [row(H0 + 5, 'x', 1)])).rejects.toThrow(
        /hour must be the start of a UTC hour/,
      )
      await expect(store.put('a', [row(H0, 'x', -1)])).rejects.toThrow(/requests must be a whole number/)
      expect(await store.read(from(0)), 'a refused write stored something').toEqual([])
    })
  })
}
