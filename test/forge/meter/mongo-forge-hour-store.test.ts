import type { Db } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { MongoForgeHourStore } from '../../../src/forge/meter/mongo-forge-hour-store.js'
import { useTestDatabase } from '../../support/mongo.js'
import { forgeHourStoreConformance } from './forge-hour-store-conformance.js'

const test = await useTestDatabase('forge_hours')
const dbs: Db[] = []
afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined)
})

// A database per case keeps the cases apart on one server.
forgeHourStoreConformance('MongoForgeHourStore', async (options) => {
  const db = test.client.db(`${test.db.databaseName.slice(0, 50)}_${dbs.length + 1}`)
  dbs.push(db)
  return new MongoForgeHourStore(db, options)
})

describe('MongoForgeHourStore reading what another program wrote', () => {
  it('skips and reports once a document whose figures are not whole numbers', async () => {
    const db = test.client.db(`${test.db.databaseName.slice(0, 50)}_bad`)
    dbs.push(db)
    const bad: Array<{ collection: string; id: string; problem: string }> = []
    const store = new MongoForgeHourStore(db, { onBadDocument: (b) => bad.push(b) })
    const hour = new Date('2026-09-30T15:00:00.000Z')
    await store.put('alpha', [
      { hour: hour.getTime(), lane: 'board', requests: 3, notModified: 1, points: 2 },
    ])
    await db.collection<Record<string, unknown> & { _id: string }>('forge_hours').insertOne({
      _id: 'beta|crafted',
      owner: 'beta',
      hour,
      lane: 'board',
      requests: '<script>alert(1)</script>',
      notModified: 0,
      points: 0,
    })
    for (let read = 0; read < 2; read++) {
      const window = { since: hour, until: hour }
      expect(await store.read(window), 'a malformed figure reached the page').toEqual([
        { hour: hour.getTime(), lane: 'board', requests: 3, notModified: 1, points: 2 },
      ])
    }
    expect(bad).toEqual([
      {
        collection: 'forge_hours',
        id: 'beta|crafted',
        problem: 'requests: expected number, received string',
      },
    ])
  })
})
