import type { Db } from 'mongodb'
import { afterAll } from 'vitest'
import { MongoForgeHourStore } from '../../src/worker/status/mongo-forge-hour-store.js'
import { useTestDatabase } from '../support/mongo.js'
import { forgeHourStoreConformance } from './forge-hour-store-conformance.js'

const test = await useTestDatabase('forge_hours')
const dbs: Db[] = []
afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined)
})

// A database per case keeps the cases apart on one server.
forgeHourStoreConformance('MongoForgeHourStore', async () => {
  const db = test.client.db(`${test.db.databaseName.slice(0, 50)}_${dbs.length + 1}`)
  dbs.push(db)
  return new MongoForgeHourStore(db)
})
