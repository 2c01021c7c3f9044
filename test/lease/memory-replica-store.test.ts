import { MemoryReplicaStore } from '../../src/lease/memory-replica-store.js'
import { replicaStoreConformance } from './replica-store-conformance.js'

replicaStoreConformance('MemoryReplicaStore', (options) => new MemoryReplicaStore(options))
