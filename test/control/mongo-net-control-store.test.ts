import { describe, expect, it } from 'vitest'
import { MongoNetControlStore } from '../../src/control/mongo-net-control-store.js'
import { useTestDatabase } from '../support/mongo.js'
import { netControlStoreConformance } from './net-control-store-conformance.js'

const mongo = await useTestDatabase('net_controls')
let collections = 0

netControlStoreConformance(
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
})
