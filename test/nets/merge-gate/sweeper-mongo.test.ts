import { MongoGateRunStore } from '../../../src/nets/merge-gate/mongo-gate-run-store.js'
import { useTestDatabase } from '../../support/mongo.js'
import { sweeperSuite } from './sweeper-suite.js'

const mongo = await useTestDatabase('sweeper')

sweeperSuite('MongoGateRunStore', async () => {
  const store = new MongoGateRunStore(mongo.db)
  await store.ensureIndexes()
  return {
    store,
    insertDocuments: async (docs) => {
      await mongo.db.collection('gate_runs').insertMany(docs as Array<{ _id: never }>)
    },
  }
})
