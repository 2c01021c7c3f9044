import { MemoryStore } from '../../src/index.js'
import { storeConformance } from '../../src/testing.js'

storeConformance('MemoryStore', () => new MemoryStore())
