/**
 * The public shapes of a worker: what `createWorker` takes and what it returns. Types only, so that the
 * public entry can name them without loading the worker (deferred-worker.ts).
 */
import type { WorkerConfig } from '../config/worker-config.js'
import type { Clock } from '../lease/clock.js'
import type { LeaseDefinition } from '../leases.js'
import type { NetDefinition } from '../nets/net.js'
import type { SandboxForge, SandboxForgeOptions } from '../sandbox/sandbox-forge.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'

export interface WorkerOptions {
  /** The nets this worker can run (worker.config.ts); each is enabled unless its ENABLED says false. */
  nets: readonly NetDefinition[]
  /** The lease registry; src/leases.ts by default. */
  leases?: readonly LeaseDefinition[]
  /** The environment to configure from; process.env by default. */
  env?: NodeJS.ProcessEnv
  logger?: Logger
  clock?: Clock
  /** Options for the in-process sandbox forge, when the sandbox is the forge. */
  sandbox?: SandboxForgeOptions
  /** Called once the sandbox forge is up and the nets are set up: seed demo data (npm start). */
  onSandbox?: (sandbox: SandboxForge, resources: ReadonlyMap<string, unknown>) => Promise<void> | void
}

export interface Worker {
  readonly config: WorkerConfig
  /** This process's owner id (host + random suffix). */
  readonly owner: string
  /** The bound HTTP port, once started. */
  readonly port: number | undefined
  readonly logger: Logger
  /**
   * The worker's Prometheus metrics (served at /metrics). From the public `createWorker`, available once
   * `start()` has been called and has loaded the worker (after `await worker.start()`, or in its
   * rejection's handler): before, reading it throws WorkerNotStartedError. The worker's metrics, HTTP
   * server and status page load on `start()`, so a configuration that imports leasecron does not pay for them.
   */
  readonly metrics: WorkerMetrics
  /** Starts HTTP, the store and the campaigns; resolves once campaigning has begun. */
  start(): Promise<void>
  /**
   * Stops campaigning, aborts terms, waits for passes up to the shutdown timeout, releases leases, flushes
   * the forge meter's partial hour and closes connections. Idempotent. On a worker never started it
   * resolves at once, loading nothing, and a later `start()` starts nothing (a stopped worker stays stopped).
   */
  stop(): Promise<void>
}
