/**
 * The backfill request's part of the net control store conformance: every twin (memory, Mongo) runs these
 * same cases — one pending request per net, its cursor moved only from where it stands, cancel, and the
 * refusals of a slot list the holder could not run in order.
 */
import { describe, expect, it } from 'vitest'
import type { NetControlStore } from '../../src/control/net-control-store.js'

const T0 = new Date('2026-10-01T12:00:00.000Z')
const later = (ms: number) => new Date(T0.getTime() + ms)
const HOUR = 3_600_000
const slotsOf = (n: number) => Array.from({ length: n }, (_, i) => later(-(n - i) * HOUR))
const range = (n: number) => ({ from: later(-n * HOUR), to: T0, slots: slotsOf(n) })

export function backfillStoreConformance(name: string, open: () => Promise<NetControlStore>): void {
  describe(`${name} (backfill requests)`, () => {
    it('keeps a request with its range, author and an untouched cursor, and reads its slots apart', async () => {
      const store = await open()
      const { created, backfill } = await store.requestBackfill(
        'board',
        { ...range(3), by: 'ann', reason: 'outage' },
        T0,
      )
      expect(created).toBe(true)
      const expected = {
        id: backfill.id,
        at: T0,
        by: 'ann',
        reason: 'outage',
        from: later(-3 * HOUR),
        to: T0,
        total: 3,
        done: 0,
        counts: { ok: 0, failed: 0, taken: 0, aborted: 0 },
      }
      expect(backfill).toEqual(expected)
      expect((await store.get('board', later(1000))).backfill).toEqual(expected)
      expect((await store.getMany(['board'], later(1000)))[0]?.backfill).toEqual(expected)
      expect((await store.list(later(1000)))[0]?.backfill).toEqual(expected)
      expect(await store.backfillSlots('board', backfill.id)).toEqual(slotsOf(3))
      expect(await store.backfillSlots('board', 'another-id')).toBe(undefined)
      expect(await store.backfillSlots('other', backfill.id)).toBe(undefined)
    })

    it('answers the pending request to a second one, naming it, and changes nothing', async () => {
      const store = await open()
      const first = await store.requestBackfill('board', { ...range(2), by: 'ann' }, T0)
      const second = await store.requestBackfill('board', { ...range(5), by: 'bob' }, later(1000))
      expect(second).toEqual({ created: false, backfill: first.backfill })
      expect(await store.backfillSlots('board', first.backfill.id)).toEqual(slotsOf(2))
      const elsewhere = await store.requestBackfill('sweeper', range(1), T0)
      expect(elsewhere.created, 'one net’s request blocked another net’s').toBe(true)
    })

    it('moves the cursor only from where it stands, counting each end once', async () => {
      const store = await open()
      const { backfill } = await store.requestBackfill('board', range(3), T0)
      const word = { id: backfill.id, owner: 'host-a' }
      const first = await store.advanceBackfill('board', { ...word, index: 0, end: 'ok' }, later(1000))
      expect(first).toMatchObject({ done: 1, owner: 'host-a', updatedAt: later(1000) })
      const again = await store.advanceBackfill('board', { ...word, index: 0, end: 'ok' }, later(2000))
      expect(again, 'a repeated word moved the cursor').toMatchObject({ done: 1, updatedAt: later(1000) })
      await store.advanceBackfill('board', { ...word, index: 1, end: 'failed' }, later(3000))
      const last = await store.advanceBackfill('board', { ...word, index: 2, end: 'taken' }, later(4000))
      expect(last).toMatchObject({ done: 3, counts: { ok: 1, failed: 1, taken: 1, aborted: 0 } })
      const past = await store.advanceBackfill('board', { ...word, index: 3, end: 'ok' }, later(5000))
      expect(past?.done, 'the cursor went past the last slot').toBe(3)
      expect(await store.advanceBackfill('board', { ...word, id: 'gone-id', index: 3, end: 'ok' }, T0)).toBe(
        undefined,
      )
    })

    it('lets a new request replace one that finished or was cancelled', async () => {
      const store = await open()
      const { backfill } = await store.requestBackfill('board', range(1), T0)
      await store.advanceBackfill('board', { id: backfill.id, owner: 'h', index: 0, end: 'ok' }, T0)
      const next = await store.requestBackfill('board', range(2), later(1000))
      expect(next.created, 'a finished request blocked the next').toBe(true)
      await store.cancelBackfill('board', { by: 'ann' }, later(2000))
      const third = await store.requestBackfill('board', range(1), later(3000))
      expect(third.created, 'a cancelled request blocked the next').toBe(true)
      expect(await store.backfillSlots('board', next.backfill.id)).toBe(undefined)
    })

    it('cancels the pending request once, and still counts the slot that was in flight', async () => {
      const store = await open()
      const { backfill } = await store.requestBackfill('board', range(3), T0)
      const cancelled = await store.cancelBackfill('board', { by: 'ann', reason: 'wrong range' }, later(1000))
      expect(cancelled).toMatchObject({
        id: backfill.id,
        done: 0,
        cancelled: { at: later(1000), by: 'ann', reason: 'wrong range' },
      })
      expect((await store.get('board', later(2000))).backfill?.cancelled?.by).toBe('ann')
      expect(await store.cancelBackfill('board', {}, later(2000)), 'cancelled twice').toBe(undefined)
      expect(await store.cancelBackfill('other', {}, later(2000))).toBe(undefined)
      const moved = await store.advanceBackfill(
        'board',
        { id: backfill.id, owner: 'h', index: 0, end: 'aborted' },
        later(3000),
      )
      expect(moved).toMatchObject({ done: 1, counts: { aborted: 1 }, cancelled: { by: 'ann' } })
    })

    it('cancels by id only the request named', async () => {
      const store = await open()
      await store.requestBackfill('board', range(2), T0)
      expect(await store.cancelBackfill('board', { id: 'another-id' }, later(1000))).toBe(undefined)
      expect((await store.get('board', later(1000))).backfill?.cancelled).toBe(undefined)
    })

    it('refuses a slot list the holder could not run in order, naming what was expected', async () => {
      const store = await open()
      const refused = { name: 'NetControlError', code: 'NET_CONTROL_INVALID', operation: 'requestBackfill' }
      const cases: Array<[Parameters<NetControlStore['requestBackfill']>[1], RegExp]> = [
        [{ ...range(2), slots: [] }, /expected slots to list 1 to 10000 instants; got 0/],
        [{ ...range(2), slots: [...slotsOf(2)].reverse() }, /oldest first, each once; slots\[1\]/],
        [{ ...range(2), slots: [later(-HOUR), later(-HOUR)] }, /oldest first, each once; slots\[1\]/],
        [{ ...range(2), slots: [later(HOUR)] }, /within from…to; slots\[0\] is 2026-10-01T13:00:00.000Z/],
        [{ ...range(2), from: later(HOUR) }, /expected from at or before to/],
        [{ ...range(2), slots: [new Date(Number.NaN)] }, /expected slots\[0\] to be a valid Date/],
        [{ ...range(2), slots: Array.from({ length: 10_001 }, () => T0) }, /got 10001/],
      ]
      for (const [input, message] of cases) {
        const call = store.requestBackfill('board', input, T0)
        await expect(call).rejects.toMatchObject(refused)
        await expect(store.requestBackfill('board', input, T0)).rejects.toThrow(message)
      }
      expect((await store.get('board', T0)).backfill, 'a refused request was stored').toBe(undefined)
    })

    it('refuses a progress word with a bad index, end or owner', async () => {
      const store = await open()
      const { backfill } = await store.requestBackfill('board', range(1), T0)
      const word = { id: backfill.id, owner: 'h', index: 0, end: 'ok' as const }
      const bad = [
        [{ ...word, index: -1 }, /expected index to be a whole number from 0; got -1/],
        [{ ...word, index: 0.5 }, /got 0.5/],
        [
          { ...word, end: 'done' as 'ok' },
          /expected end to be one of ok, failed, taken, aborted; got "done"/,
        ],
        [{ ...word, owner: '' }, /expected owner/],
      ] as const
      for (const [advance, message] of bad)
        await expect(store.advanceBackfill('board', advance, T0)).rejects.toThrow(message)
      expect((await store.get('board', T0)).backfill?.done).toBe(0)
    })
  })
}
