import { MemoryForgeHourStore } from '../../../src/forge/meter/memory-forge-hour-store.js'
import { forgeHourStoreConformance } from './forge-hour-store-conformance.js'

forgeHourStoreConformance('MemoryForgeHourStore', async (options) => new MemoryForgeHourStore(options))
