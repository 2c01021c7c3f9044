import { describe, expect, it } from 'vitest'
import { MongoNetControlStore } from '../../src/control/mongo-net-control-store.js'
import { useTestDatabase } from '../support/mongo.js'
import { netControlStoreConformance } from './net-control-store-conformance.js'
import { backfillStoreConformance } from './backfill-store-conformance.js'

const mongo = await useTestDatabase('net_controls')
let collections = 0

netControlStoreConformance(
  'MongoNetControlStore',
  async () => new MongoNetControlStore(mongo.db, { collection: `net_controls_${++collections}` }),
)

backfillStoreConformance(
  'MongoNetControlStore',
  async () => new MongoNetControlStore(mongo.db, { collection: `net_controls_${++collections}` }),
)

describe('MongoNetControlStore on the run’s real server', () => {
  it('stores the documented shape in net_controls, one document per net', async () => {
    const store = new MongoNetControlStore(mongo.db)
    const at = new Date('2026-10-01T12:00:00.000Z')
    const until = new Date('2026-10-01T14:00:00.000Z')
    await store.pause('board', { until, reason: 'maintenance', by: 'ann' }, at)
    const { request } = await store.request('board', 'run', {}, at)
    expect(await mongo.db.collection('net_controls').find({}).toArray()).toEqual([
      {
        _id: 'board',
        paused: { at, until, reason: 'maintenance', by: 'ann', abort: false },
        run: { id: request.id, at, reason: null, by: null },
      },
    ])
  })

  it('reads a malformed document as no controls and reports it once, never throwing', async () => {
    const collection = `net_controls_${++collections}`
    const bad: Array<{ collection: string; id: string; problem: string }> = []
    const store = new MongoNetControlStore(mongo.db, { collection, onBadDocument: (b) => bad.push(b) })
    await mongo.db
      .collection<Record<string, unknown> & { _id: string }>(collection)
      .insertOne({ _id: 'board', paused: { at: 'yesterday', abort: false } })
    const now = new Date('2026-10-01T12:00:00.000Z')
    for (let read = 0; read < 2; read++) {
      expect(await store.get('board', now), 'a malformed pause stopped the net').toEqual({ net: 'board' })
      expect(await store.list(now)).toEqual([{ net: 'board' }])
    }
    expect(bad).toEqual([{ collection, id: 'board', problem: 'paused.at: expected date, received string' }])
  })
  it('stores a backfill request as documented: its slot list in a field of its own, which reads leave out', async () => {
    const collection = `net_controls_${++collections}`
    const store = new MongoNetControlStore(mongo.db, { collection })
    const at = new Date('2026-10-01T12:00:00.000Z')
    const slots = [new Date('2026-10-01T10:00:00.000Z'), new Date('2026-10-01T11:00:00.000Z')]
    const { backfill } = await store.requestBackfill(
      'board',
      { from: slots[0]!, to: at, slots, by: 'ann' },
      at,
    )
    await store.advanceBackfill('board', { id: backfill.id, index: 0, end: 'ok', owner: 'host-a' }, at)
    const counts = { ok: 1, failed: 0, taken: 0, aborted: 0 }
    expect(await mongo.db.collection(collection).find({}).toArray()).toEqual([
      {
        _id: 'board',
        backfill: {
          ...{ id: backfill.id, at, reason: null, by: 'ann', from: slots[0], to: at },
          ...{ total: 2, done: 1, left: 1, counts, owner: 'host-a', updatedAt: at, cancelled: null },
        },
        backfillSlots: { id: backfill.id, slots },
      },
    ])
    expect(await store.backfillSlots('board', backfill.id)).toEqual(slots)
  })

  // A backfill request written by hand that no reader serves is dropped alone (the pause stays), reported,
  // and replaced by the next request: a bad one would otherwise block every backfill of the net.
  it('drops just a hand-written backfill request it cannot read, and lets a new one replace it', async () => {
    const collection = `net_controls_${++collections}`
    const bad: Array<{ collection: string; id: string; problem: string }> = []
    const store = new MongoNetControlStore(mongo.db, { collection, onBadDocument: (b) => bad.push(b) })
    const at = new Date('2026-10-01T12:00:00.000Z')
    const paused = { at, until: null, reason: 'why', by: null, abort: false }
    const counts = { ok: 0, failed: 0, taken: 0, aborted: 0 }
    const backfill = { id: 'b#1', at, from: at, to: at, total: 3, done: 'one', left: 3, counts }
    await mongo.db
      .collection<Record<string, unknown> & { _id: string }>(collection)
      .insertOne({ _id: 'board', paused, backfill })
    expect(await store.get('board', at)).toEqual({
      net: 'board',
      paused: { at, reason: 'why', abort: false },
    })
    expect(bad).toEqual([
      { collection, id: 'board', problem: 'backfill: done: expected number, received string' },
    ])
    const next = await store.requestBackfill('board', { from: at, to: at, slots: [at] }, at)
    expect(next.created, 'a request no reader serves blocked a new one').toBe(true)
    await mongo.db
      .collection(collection)
      .updateOne({ _id: 'board' as never }, { $set: { 'backfill.left': 'x' } })
    const third = await store.requestBackfill('board', { from: at, to: at, slots: [at] }, at)
    expect(third.created, 'a request with no numeric left blocked a new one').toBe(true)
  })

  // The holder logs a request's id whole and `take` matches it whole: a hand-written one it could not
  // serve is dropped alone (the pause and the other request kept), named without echoing it.
  it('drops just a hand-written request whose id is too long or not a string, and reports it once', async () => {
    const collection = `net_controls_${++collections}`
    const bad: Array<{ collection: string; id: string; problem: string }> = []
    const store = new MongoNetControlStore(mongo.db, { collection, onBadDocument: (b) => bad.push(b) })
    const at = new Date('2026-10-01T12:00:00.000Z')
    const catchUp = { id: 'c'.repeat(64), at, reason: null, by: null }
    await mongo.db.collection<Record<string, unknown> & { _id: string }>(collection).insertMany([
      {
        _id: 'board',
        paused: { at, until: null, reason: 'why', by: null, abort: false },
        run: { id: 'r'.repeat(100_000), at, reason: null, by: null },
        catchUp,
      },
      { _id: 'other', run: { id: 42, at, reason: null, by: null } },
    ])
    for (let read = 0; read < 2; read++) {
      expect(await store.get('board', at), 'a bad run id dropped the pause').toEqual({
        net: 'board',
        paused: { at, reason: 'why', abort: false },
        catchUp: { id: catchUp.id, at },
      })
      expect(await store.list(at)).toEqual([
        { net: 'board', paused: { at, reason: 'why', abort: false }, catchUp: { id: catchUp.id, at } },
        { net: 'other' },
      ])
    }
    const expected = 'expected 1 to 64 printable ASCII characters without spaces'
    expect(bad).toEqual([
      { collection, id: 'board', problem: `run.id: ${expected}; got a string of 100000 characters` },
      { collection, id: 'other', problem: `run.id: ${expected}; got number` },
    ])
    // A dropped request is never taken: a new one replaces it, or it would block every run request.
    for (const net of ['board', 'other']) {
      const next = await store.request(net, 'run', {}, at)
      expect(next.created, `a dropped request on ${net} blocked a new one`).toBe(true)
      expect((await store.get(net, at)).run).toEqual(next.request)
    }
    expect((await store.request('board', 'run', {}, at)).created, 'a pending request was replaced').toBe(
      false,
    )
  })

  // What the holder logs and records each paused tick, and `status` prints: a hand-written document
  // bypasses the store's checks, so its texts are bounded and made plain as they are read.
  it('reads a hand-written reason and author as one plain line of at most 500 characters', async () => {
    const collection = `net_controls_${++collections}`
    const store = new MongoNetControlStore(mongo.db, { collection })
    const at = new Date('2026-10-01T12:00:00.000Z')
    const reason = `\u001b]52;c;ZWNobyBwd25lZA==\u0007${'r'.repeat(100_000)}\nsecond line`
    await mongo.db
      .collection<Record<string, unknown> & { _id: string }>(collection)
      .insertOne({ _id: 'board', paused: { at, reason, by: `\u001b[2J${'b'.repeat(1_000)}`, abort: false } })
    const paused = (await store.get('board', at)).paused
    expect(paused?.reason).toBe(`]52;c;ZWNobyBwd25lZA==${'r'.repeat(462)}…(99538 more)`)
    expect(paused?.by).toBe(`[2J${'b'.repeat(484)}…(516 more)`)
    expect(paused?.reason?.length).toBeLessThanOrEqual(500)
  })
})
