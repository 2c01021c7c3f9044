/**
 * The net control store conformance suite: every twin (memory, Mongo) runs these same cases.
 */
import { describe, expect, it } from 'vitest'
import { NetControlError } from '../../src/control/net-control-error.js'
import type { NetControlStore } from '../../src/control/net-control-store.js'

const T0 = new Date('2026-10-01T12:00:00.000Z')
const later = (ms: number) => new Date(T0.getTime() + ms)
const HOUR = 3_600_000

export function netControlStoreConformance(name: string, open: () => Promise<NetControlStore>): void {
  describe(`${name} (net control store conformance)`, () => {
    it('reads a net nobody touched as not paused with nothing pending', async () => {
      const store = await open()
      expect(await store.get('board', T0)).toEqual({ net: 'board' })
      expect(await store.list(T0)).toEqual([])
    })

    it('keeps a pause with its reason, author and expiry, and every replica reads it until it expires', async () => {
      const store = await open()
      const stored = await store.pause(
        'board',
        { until: later(2 * HOUR), reason: 'forge maintenance', by: 'ann' },
        T0,
      )
      const pause = { at: T0, until: later(2 * HOUR), reason: 'forge maintenance', by: 'ann', abort: false }
      expect(stored).toEqual(pause)
      expect(await store.get('board', later(HOUR))).toEqual({ net: 'board', paused: pause })
      expect(await store.list(later(HOUR))).toEqual([{ net: 'board', paused: pause }])
      expect(await store.get('board', later(2 * HOUR)), 'a pause outlived its until').toEqual({
        net: 'board',
      })
      expect(await store.get('other', later(HOUR)), 'a pause reached another net').toEqual({ net: 'other' })
    })

    it('reads many nets in one call, in the order asked, each as get answers it', async () => {
      const store = await open()
      await store.pause('board', { reason: 'maintenance' }, T0)
      const { request } = await store.request('sweeper', 'run', { by: 'ann' }, T0)
      const nets = ['sweeper', 'untouched', 'board']
      const many = await store.getMany(nets, later(1000))
      expect(many, 'a net read together differs from its own read').toEqual(
        await Promise.all(nets.map((net) => store.get(net, later(1000)))),
      )
      expect(many.map((control) => control.net)).toEqual(nets)
      expect(many[0]?.run?.id).toBe(request.id)
      expect(await store.getMany([], T0)).toEqual([])
    })

    it('refuses a blank net name or more nets than one read holds, naming getMany', async () => {
      const store = await open()
      await expect(store.getMany(['board', ' '], T0)).rejects.toMatchObject({
        name: 'NetControlError',
        code: 'NET_CONTROL_INVALID',
        operation: 'getMany',
      })
      const tooMany = Array.from({ length: 1_001 }, (_, i) => `net-${i}`)
      await expect(store.getMany(tooMany, T0)).rejects.toThrow(/at most 1000 net names; got 1001 names/)
    })

    it('keeps a pause without expiry until resumed, and resume answers the pause it lifted', async () => {
      const store = await open()
      await store.pause('board', { abort: true }, T0)
      expect((await store.get('board', later(1000 * HOUR))).paused).toEqual({ at: T0, abort: true })
      expect(await store.resume('board', {}, later(HOUR))).toEqual({ at: T0, abort: true })
      expect(await store.get('board', later(HOUR)), 'the net stayed paused after resume').toEqual({
        net: 'board',
      })
      expect(await store.resume('board', {}, later(HOUR)), 'a second resume lifted something').toBe(undefined)
    })

    it('lets the newest pause replace the one in force', async () => {
      const store = await open()
      await store.pause('board', { reason: 'first', by: 'ann' }, T0)
      await store.pause('board', { reason: 'second', until: later(HOUR) }, later(1000))
      expect((await store.get('board', later(2000))).paused).toEqual({
        at: later(1000),
        until: later(HOUR),
        reason: 'second',
        abort: false,
      })
    })

    it('answers resume of an expired pause as not paused, and leaves no catch-up request', async () => {
      const store = await open()
      await store.pause('board', { until: later(HOUR) }, T0)
      expect(await store.resume('board', { catchUp: true }, later(HOUR))).toBe(undefined)
      expect(await store.get('board', later(HOUR))).toEqual({ net: 'board' })
    })

    it('leaves a catch-up request when resume --catch-up lifts a pause', async () => {
      const store = await open()
      await store.pause('board', {}, T0)
      await store.resume('board', { catchUp: true, by: 'bob' }, later(HOUR))
      const { catchUp } = await store.get('board', later(HOUR))
      expect(catchUp, 'resume --catch-up left no request for the holder').toMatchObject({
        at: later(HOUR),
        by: 'bob',
      })
      expect(catchUp?.id).toEqual(expect.any(String))
    })

    it('keeps one pending run request: a second is answered with the first, not created', async () => {
      const store = await open()
      const first = await store.request('board', 'run', { reason: 'hotfix', by: 'ann' }, T0)
      expect(first).toMatchObject({ created: true, request: { at: T0, reason: 'hotfix', by: 'ann' } })
      const second = await store.request('board', 'run', { by: 'bob' }, later(1000))
      expect(second, 'a second request replaced the pending one').toEqual({
        created: false,
        request: first.request,
      })
      expect((await store.get('board', later(2000))).run).toEqual(first.request)
    })

    it('takes a request only by its id, once', async () => {
      const store = await open()
      const { request } = await store.request('board', 'run', {}, T0)
      expect(await store.take('board', 'run', 'not-its-id')).toBe(false)
      expect(await store.take('board', 'catch-up', request.id), 'the wrong kind was taken').toBe(false)
      expect(await store.take('board', 'run', request.id)).toBe(true)
      expect(await store.take('board', 'run', request.id), 'one request was taken twice').toBe(false)
      expect(await store.get('board', T0)).toEqual({ net: 'board' })
      const next = await store.request('board', 'run', {}, later(1000))
      expect(next.created, 'a new request after a taken one was refused').toBe(true)
      expect(next.request.id).not.toBe(request.id)
    })

    it('keeps a run request and a pause side by side: taking one leaves the other', async () => {
      const store = await open()
      await store.pause('board', { reason: 'why' }, T0)
      const { request } = await store.request('board', 'run', {}, later(1))
      await store.take('board', 'run', request.id)
      expect((await store.get('board', later(2))).paused?.reason).toBe('why')
    })

    it('keeps reasons and authors to one line of at most 500 characters, a cut one marked', async () => {
      const store = await open()
      const pause = await store.pause('board', { reason: `${'x'.repeat(600)}\nsecond line`, by: ' ann ' }, T0)
      expect(pause.reason).toBe(`${'x'.repeat(489)}…(111 more)`)
      expect(pause.reason).toHaveLength(500)
      expect(pause.by).toBe('ann')
      expect((await store.get('board', T0)).paused?.reason, 'a stored reason read back changed').toBe(
        pause.reason,
      )
    })

    // A screen clear and an OSC 52 clipboard write, in a reason `leasecron status` prints.
    it('keeps no terminal control characters in reasons and authors', async () => {
      const store = await open()
      const reason = 'db\t\u001b[2J\u001b[Hmove\u001b]52;c;ZWNobyBwd25lZA==\u0007 done\u009b1m'
      const pause = await store.pause('board', { reason, by: 'ann\u0007\u001b[31m' }, T0)
      expect(pause.reason).toBe('db [2J[Hmove]52;c;ZWNobyBwd25lZA== done1m')
      expect(pause.by).toBe('ann[31m')
      const read = (await store.get('board', T0)).paused
      expect(read?.reason).toBe(pause.reason)
      const request = await store.request('board', 'run', { reason: 'now\u001bc', by: 'bob' }, T0)
      expect(request.request.reason).toBe('nowc')
    })

    it('refuses bad calls naming what was expected, storing nothing', async () => {
      const store = await open()
      await expect(store.pause('board', { until: T0 }, T0)).rejects.toThrow(/expected until to lie after now/)
      await expect(store.pause('', {}, T0)).rejects.toThrow(/expected a net name/)
      await expect(store.get('board', new Date(Number.NaN))).rejects.toThrow(
        /expected now to be a valid Date/,
      )
      // @ts-expect-error a kind the contract does not know
      await expect(store.request('board', 'restart', {}, T0)).rejects.toThrow(/expected a request kind/)
      await expect(store.take('board', 'run', '')).rejects.toThrow(
        /request id: expected 1 to 64 printable ASCII characters/,
      )
      // An id no store writes (the store's are 33 characters): refused, and never echoed in the refusal.
      const long = await store.take('board', 'run', `${'i'.repeat(65)}`).catch((error: unknown) => error)
      expect(long).toMatchObject({ code: 'NET_CONTROL_INVALID' })
      expect(String(long)).toMatch(/got a string of 65 characters/)
      expect(String(long)).not.toContain('i'.repeat(65))
      await expect(store.take('board', 'run', 'id\u001b[2J')).rejects.toThrow(/got one with other characters/)
      const refused = await store.pause('board', { until: T0 }, T0).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(NetControlError)
      expect(refused).toMatchObject({ code: 'NET_CONTROL_INVALID', net: 'board' })
      expect(await store.list(T0), 'a refused call stored something').toEqual([])
    })

    it('rejects a call whose signal already aborted', async () => {
      const store = await open()
      const signal = AbortSignal.abort(new Error('stop'))
      await expect(store.pause('board', {}, T0, { signal })).rejects.toMatchObject({
        code: 'NET_CONTROL_ABORTED',
      })
    })
  })
}
