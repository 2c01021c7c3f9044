/**
 * leasecron's public API. Everything exported is here, spelled out; internals are not exported.
 *
 * Not here: the sandbox forge (`leasecron/sandbox`) and the store conformance suite
 * (`leasecron/testing`), each its own entry so that a process importing `leasecron` for `defineNet` or
 * `run()` does not load them.
 */
export type {
  AcquireOptions,
  LeaseCallOptions,
  LeaseGrant,
  LeaseOperation,
  LeaseRecord,
  LeaseStore,
  LeaseTerm,
} from './lease/store.js'
export { LeaseLostError, LeaseStoreError } from './lease/store.js'
export { StoreError, type StoreErrorContext } from './store-call/store-error.js'
export { MemoryStore } from './lease/memory-store.js'
export { MongoStore, type MongoStoreOptions } from './lease/mongo-store.js'
export { run, LeaseSpecError, type LeaseLog, type RunSpec, type TermInfo, type TermEnd } from './lease/run.js'
export type { TermEvent, TermEventType } from './lease/term-event.js'
export { termEventLog } from './lease/term-event-log.js'
export { type Clock, systemClock } from './lease/clock.js'
export {
  defineLease,
  LEASES,
  MERGE_GATE_SWEEPER_LEASE,
  BOARD_ISSUE_SYNC_LEASE,
  LeaseRegistryError,
  leasePacing,
  type LeaseDefinition,
  type LeasePacing,
} from './leases.js'
export {
  runId,
  type RunAccount,
  type RunClaim,
  type RunFinish,
  type RunLedger,
  type RunLedgerCallOptions,
  type RunHistoryOptions,
  type PassOutcome,
  type RunOutcome,
  type RunRecord,
  type UnrunOutcome,
} from './runs/run-ledger.js'
export { RunLedgerError, type RunLedgerErrorCode } from './runs/run-ledger-error.js'
export { MemoryRunLedger } from './runs/memory-run-ledger.js'
export { MongoRunLedger, type MongoRunLedgerOptions } from './runs/mongo-run-ledger.js'
// Pause, resume and run now from code: the same actions the CLI and the admin API call.
export {
  pauseNet,
  resumeNet,
  requestRun,
  type ControlAction,
  type ControlActionResult,
  type PauseNetInput,
  type ResumeNetInput,
} from './control/control-actions.js'
export { ControlActionError, type ControlActionErrorCode } from './control/control-action-error.js'
export type {
  ControlRequest,
  ControlRequestInput,
  NetControl,
  NetControlStore,
  NetPause,
} from './control/net-control-store.js'
export { NetControlError, type NetControlErrorCode } from './control/net-control-error.js'
export { MemoryNetControlStore } from './control/memory-net-control-store.js'
export {
  MongoNetControlStore,
  type MongoNetControlStoreOptions,
  NET_CONTROLS_COLLECTION,
} from './control/mongo-net-control-store.js'
export {
  defineNet,
  type NetDefinition,
  type NetScope,
  type CatchUpPolicy,
  type OverlapPolicy,
  type NetLogger,
  type NetSetupContext,
  type NetTermContext,
  type Pass,
  type PassContext,
} from './nets/net.js'
export {
  durationOption,
  integerOption,
  repositoryListOption,
  stringOption,
  type NetOption,
  type OptionSchema,
} from './nets/options.js'
export { OptionDefinitionError } from './nets/option-definition-error.js'
export { createWorker } from './worker/deferred-worker.js'
export type { Worker, WorkerOptions } from './worker/worker-options.js'
export { WorkerNotStartedError } from './worker/worker-not-started-error.js'
export type { Logger as WorkerLogger, LogMethod } from './observe/logger.js'
export { ConfigError, type ConfigIssue } from './config/config-error.js'
export { NetTermError } from './nets/net-term.js'
export { loadConfig } from './config/load-config.js'
export type { WorkerConfig } from './config/worker-config.js'
export { ConfigFileError, loadWorkerFile, type WorkerFileConfig } from './config/load-config-file.js'
export { ownerId } from './lease/owner-id.js'
export {
  createForge,
  type Forge,
  type ForgeOptions,
  type ForgeOctokit,
  type ForgeRequestParameters,
  type ForgeResponse,
  type ForgeRetryOptions,
} from './forge/github-app.js'
export type { MetricsRegistry } from './forge/metrics-registry.js'
export { withLane, currentLane, LaneNameError } from './forge/lane.js'
export {
  createForgeMeter,
  type ForgeMeter,
  type ForgeMeterOptions,
  type ForgeAttempt,
  type ForgeApi,
  type ForgeMeterEntry,
  type ForgeMeterTotal,
  type ForgeHourReport,
} from './forge/meter.js'
export {
  parseForgeEnv,
  hasGitHubAppEnv,
  GITHUB_APP_VARIABLES,
  DEFAULT_GITHUB_API_URL,
  type ForgeAppConfig,
  type ForgeConfig,
  type ForgeEnvResult,
} from './forge/forge-config.js'
export type { InstallationSet } from './forge/installation-set.js'
export type { ForgeReserve } from './forge/forge-reserve.js'
export { ForgeConfigError, type ForgeEnvIssue } from './forge/forge-config-error.js'
export type { ForgeLogger } from './forge/forge-logger.js'
export {
  mergeGateSweeper,
  createMergeGateSweeper,
  mergeGateSweeperOptions,
  DEFAULT_GATE_CONTEXT,
  type MergeGateSweeperOverrides,
} from './nets/merge-gate/merge-gate-sweeper.js'
export { recordGatingRun, updateGatingRun } from './nets/merge-gate/record-gating-run.js'
export { GateRunError } from './nets/merge-gate/gate-run-error.js'
export type { GatingRun, GatingRunPatch, GateRunState } from './nets/merge-gate/gate-run.js'
export type {
  GateRunStore,
  GateRunPage,
  GateRunPageQuery,
  GateRunCursor,
} from './nets/merge-gate/gate-run-store.js'
export { MemoryGateRunStore } from './nets/merge-gate/memory-gate-run-store.js'
export { MongoGateRunStore, type MongoGateRunStoreOptions } from './nets/merge-gate/mongo-gate-run-store.js'
export { Reconciler, type OfferOutcome } from './nets/merge-gate/reconciler.js'
export { Sweeper, type SweepReport, type SweepOptions } from './nets/merge-gate/sweeper.js'
export {
  boardIssueSync,
  createBoardIssueSync,
  boardIssueSyncOptions,
  type BoardIssueSyncOverrides,
} from './nets/board-sync/board-issue-sync.js'
export type { BoardStore } from './nets/board-sync/board-store.js'
export { BoardStoreError } from './nets/board-sync/board-store-error.js'
export { MemoryBoardStore } from './nets/board-sync/memory-board-store.js'
export { MongoBoardStore } from './nets/board-sync/mongo-board-store.js'
export { cardId, type Card, type BoardColumn } from './nets/board-sync/card.js'
export { planDemoGatingRuns, seedDemoGatingRuns } from './nets/demo-seed.js'
export {
  leaseCoordinator,
  parseFireKey,
  LeaseCoordinatorError,
  type LeaseCoordinator,
  type LeaseCoordinatorOptions,
} from './coordinator.js'
