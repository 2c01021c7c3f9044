import { MemoryGateRunStore } from '../../../src/nets/merge-gate/memory-gate-run-store.js'
import { sweeperSuite } from './sweeper-suite.js'

sweeperSuite('MemoryGateRunStore', async () => {
  const store = new MemoryGateRunStore()
  return {
    store,
    insertDocuments: async (docs) => {
      for (const doc of docs) store.insertDocument(doc)
    },
  }
})
