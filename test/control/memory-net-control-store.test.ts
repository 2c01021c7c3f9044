import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import { netControlStoreConformance } from './net-control-store-conformance.js'

netControlStoreConformance('MemoryNetControlStore', async () => new MemoryNetControlStore())
