/**
 * leasecron's public API: what a user writes code against — defining nets and leases, running a worker or
 * the lease alone, the stores, the ledger and the controls with their twins, the configuration, the errors
 * to catch. Spelled out, at most 100 names (test/library/public-api.test.ts); internals are not exported.
 *
 * Not here: the built-in nets (`leasecron/nets`), the sandbox forge (`leasecron/sandbox`), the store
 * conformance suite and `runOnePass` (`leasecron/testing`) and the function handlers
 * (`leasecron/serverless`), each its own entry so that a process importing `leasecron` for `defineNet` or
 * `run()` does not load them.
 */

export { ConfigError, type ConfigIssue } from './config/config-error.js'
export { loadConfig } from './config/load-config.js'
export { ConfigFileError, loadWorkerFile, type WorkerFileConfig } from './config/load-config-file.js'
export type { WorkerConfig } from './config/worker-config.js'
export { ControlActionError } from './control/control-action-error.js'
// Pause, resume and run now from code: the same actions the CLI and the admin API call.
export {
  type ControlAction,
  type ControlActionResult,
  type PauseNetInput,
  pauseNet,
  type ResumeNetInput,
  requestRun,
  resumeNet,
} from './control/control-actions.js'
export { MemoryNetControlStore } from './control/memory-net-control-store.js'
export {
  MongoNetControlStore,
  type MongoNetControlStoreOptions,
} from './control/mongo-net-control-store.js'
export { NetControlError } from './control/net-control-error.js'
export type {
  ControlRequest,
  ControlRequestInput,
  NetControl,
  NetControlStore,
  NetPause,
} from './control/net-control-store.js'
export {
  type LeaseCoordinator,
  LeaseCoordinatorError,
  type LeaseCoordinatorOptions,
  leaseCoordinator,
} from './coordinator.js'
export type { Forge, ForgeOctokit, ForgeRequestParameters, ForgeResponse } from './forge/client/github-app.js'
export { currentLane, LaneNameError, withLane } from './forge/lane.js'
export type { MetricsRegistry } from './forge/meter/metrics-registry.js'
export { type Clock, systemClock } from './lease/clock.js'
export { MemoryStore } from './lease/memory-store.js'
export { MongoStore, type MongoStoreOptions } from './lease/mongo-store.js'
export { ownerId } from './lease/owner-id.js'
export { LeaseSpecError, type RunSpec, run, type TermEnd, type TermInfo } from './lease/run.js'
export type {
  AcquireOptions,
  LeaseCallOptions,
  LeaseGrant,
  LeaseRecord,
  LeaseStore,
  LeaseTerm,
} from './lease/store.js'
export { LeaseLostError, LeaseStoreError } from './lease/store.js'
export type { TermEvent } from './lease/term-event.js'
export { termEventLog } from './lease/term-event-log.js'
export {
  defineLease,
  type LeaseDefinition,
  type LeasePacing,
  LeaseRegistryError,
} from './leases.js'
export {
  type CatchUpPolicy,
  defineNet,
  type NetDefinition,
  type NetScope,
  type NetSetupContext,
  type NetTermContext,
  type OverlapPolicy,
  type Pass,
  type PassContext,
} from './nets/net.js'
export { NetTermError } from './nets/net-term.js'
export { OptionDefinitionError } from './nets/option-definition-error.js'
export {
  durationOption,
  integerOption,
  type NetOption,
  type OptionSchema,
  repositoryListOption,
  stringOption,
} from './nets/options.js'
export type { Logger, LogMethod } from './logger.js'
export { MemoryRunLedger } from './runs/memory-run-ledger.js'
export { MongoRunLedger, type MongoRunLedgerOptions } from './runs/mongo-run-ledger.js'
export type {
  PassOutcome,
  RunAccount,
  RunClaim,
  RunFinish,
  RunHistoryOptions,
  RunLedger,
  RunLedgerCallOptions,
  RunOutcome,
  RunRecord,
} from './runs/run-ledger.js'
export { RunLedgerError } from './runs/run-ledger-error.js'
export { StoreError } from './store-call/store-error.js'
export { createWorker } from './worker/lazy-worker.js'
export { WorkerNotStartedError } from './worker/worker-not-started-error.js'
export type { Worker, WorkerOptions } from './worker/worker-options.js'
// Control writes of your own (pauseNet, requestRun) that the holder hears at its next renewal.
export { type NoticeTarget, noticingControls } from './worker/noticing-controls.js'
