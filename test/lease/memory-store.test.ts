import { MemoryStore } from '../../src/index.js'
import { storeConformance } from './store-conformance.js'

storeConformance('MemoryStore', () => new MemoryStore())
