/**
 * leasecron's public API. Everything exported is here, spelled out; internals are not exported.
 */
export type { LeaseCallOptions, LeaseOperation, LeaseRecord, LeaseStore } from './lease/store.js'
export { LeaseLostError, LeaseStoreError } from './lease/store.js'
export { MemoryStore } from './lease/memory-store.js'
export { MongoStore, type MongoStoreOptions } from './lease/mongo-store.js'
export { run, LeaseSpecError, type LeaseLog, type RunSpec, type TermInfo, type TermEnd } from './lease/run.js'
export { type Clock, systemClock } from './lease/clock.js'
