/**
 * `leasecron/testing`: what authors of their own lease store need to prove it keeps the contract — the
 * conformance suite both built-in stores run. Imports vitest, so only test files should import it (vitest
 * is an optional peer dependency of leasecron).
 *
 * ```ts
 * // memory-store.test.ts
 * import { MemoryStore } from 'leasecron'
 * import { storeConformance } from 'leasecron/testing'
 *
 * storeConformance('MemoryStore', () => new MemoryStore())
 * ```
 */
export { type ConformanceOptions, storeConformance } from './testing/store-conformance.js'
