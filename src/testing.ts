/**
 * `leasecron/testing`: what net authors and authors of their own lease store need in their tests.
 *
 * - `runOnePass` runs one pass of a net for one slot the way the worker runs it (a term on a lease store,
 *   the slot claimed in a run ledger, the pass in the net's lane, its outcome recorded), against the forge
 *   it is given — the sandbox from `leasecron/sandbox` in tests. A net's first test is three lines:
 * - `storeConformance` is the conformance suite both built-in lease stores run. It imports vitest, so only
 *   test files should import this entry (vitest is an optional peer dependency of leasecron).
 *
 * ```ts
 * // my-net.test.ts
 * import { startSandboxForge } from 'leasecron/sandbox'
 * import { runOnePass } from 'leasecron/testing'
 * import { myNet } from './my-net.js'
 *
 * test('my net passes against the sandbox', async () => {
 *   const sandbox = await startSandboxForge()
 *   const run = await runOnePass(myNet, { forge: sandbox, slot: new Date('2026-09-30T15:05:00Z') })
 *   expect(run.record).toMatchObject({ outcome: 'ok' })
 *   await sandbox.close()
 * })
 *
 * // memory-store.test.ts
 * import { MemoryStore } from 'leasecron'
 * import { storeConformance } from 'leasecron/testing'
 *
 * storeConformance('MemoryStore', () => new MemoryStore())
 * ```
 */
export { type ConformanceOptions, storeConformance } from './testing/store-conformance.js'
export { type OnePass, type OnePassOptions, type PassLogLine, runOnePass } from './testing/run-one-pass.js'
