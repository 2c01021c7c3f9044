import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import { backfillStoreConformance } from './backfill-store-conformance.js'
import { netControlStoreConformance } from './net-control-store-conformance.js'

netControlStoreConformance('MemoryNetControlStore', async () => new MemoryNetControlStore())
backfillStoreConformance('MemoryNetControlStore', async () => new MemoryNetControlStore())
