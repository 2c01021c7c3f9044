import { MongoReplicaStore } from '../../src/lease/mongo-replica-store.js'
import { useTestDatabase } from '../support/mongo.js'
import { replicaStoreConformance } from './replica-store-conformance.js'

const mongo = await useTestDatabase('mongo_replica_store').catch((error: unknown) => error as Error)
let collections = 0

replicaStoreConformance('MongoReplicaStore', (options) => {
  if (mongo instanceof Error) throw mongo
  return new MongoReplicaStore(mongo.db, { collection: `replicas_${++collections}`, ...options })
})
