import { MemoryBoardStore } from '../../../src/nets/board-sync/memory-board-store.js'
import { boardStoreConformance } from './board-store-conformance.js'

boardStoreConformance('MemoryBoardStore', async (options) => new MemoryBoardStore(options))
