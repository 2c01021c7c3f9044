/**
 * `leasecron/nets`: the nets that ship with leasecron, for a configuration module that lists them
 * (`export default { nets: [mergeGateSweeper, boardIssueSync] }`) or a service that runs them with its own
 * stores — each net's definition and factory, its options, its lease, and the store contract it keeps its
 * state in (with memory and Mongo twins).
 *
 * Not here: what a net is made of (`defineNet`, options, `createWorker`: `leasecron`), and the nets'
 * internals (the merge gate's sweeper and reconciler, the demo seed), which stay internal.
 */
export { BOARD_ISSUE_SYNC_LEASE, LEASES, MERGE_GATE_SWEEPER_LEASE } from './leases.js'
export {
  type BoardIssueSyncOverrides,
  boardIssueSync,
  boardIssueSyncOptions,
  createBoardIssueSync,
} from './nets/board-sync/board-issue-sync.js'
export type { BoardStore } from './nets/board-sync/board-store.js'
export { BoardStoreError } from './nets/board-sync/board-store-error.js'
export { type BoardColumn, type Card, cardId } from './nets/board-sync/card.js'
export { MemoryBoardStore } from './nets/board-sync/memory-board-store.js'
export { MongoBoardStore } from './nets/board-sync/mongo-board-store.js'
export type { GateRunState, GatingRun, GatingRunPatch } from './nets/merge-gate/gate-run.js'
export { GateRunError } from './nets/merge-gate/gate-run-error.js'
export type {
  GateRunCursor,
  GateRunPage,
  GateRunPageQuery,
  GateRunStore,
} from './nets/merge-gate/gate-run-store.js'
export { MemoryGateRunStore } from './nets/merge-gate/memory-gate-run-store.js'
export {
  createMergeGateSweeper,
  DEFAULT_GATE_CONTEXT,
  type MergeGateSweeperOverrides,
  // Named in mergeGateSweeper's type: a TypeScript project emitting declarations (tsc --init's default)
  // must be able to name it, or a worker.config.ts listing the net fails with TS2742.
  type MergeGateSweeperResources,
  mergeGateSweeper,
  mergeGateSweeperOptions,
} from './nets/merge-gate/merge-gate-sweeper.js'
export { MongoGateRunStore, type MongoGateRunStoreOptions } from './nets/merge-gate/mongo-gate-run-store.js'
export { recordGatingRun, updateGatingRun } from './nets/merge-gate/record-gating-run.js'
