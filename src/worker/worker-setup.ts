/**
 * What a worker knows before it loads anything heavy: its configuration (read and checked from the
 * environment), its logger and its owner id. Shared by the worker itself (worker.ts) and by the public
 * `createWorker` (deferred-worker.ts), which must throw ConfigError at once without loading the worker.
 *
 * Not the worker: nothing here opens a store, a server or a metric.
 */
import { ConfigError } from '../config/config-error.js'
import { loadConfig } from '../config/load-config.js'
import type { WorkerConfig } from '../config/worker-config.js'
import { ownerId } from '../lease/owner-id.js'
import { LEASES } from '../leases.js'
import { createLogger, type Logger } from '../observe/logger.js'
import type { WorkerOptions } from './worker-options.js'

/** A worker's configuration, logger and owner, settled before it starts. */
export interface WorkerSetup {
  readonly config: WorkerConfig
  readonly logger: Logger
  /** This process's owner id (host + random suffix): the same before and after the worker loads. */
  readonly owner: string
}

/** Reads the configuration; throws ConfigError (exitCode 78) listing every invalid variable. */
export function setUpWorker(options: WorkerOptions): WorkerSetup {
  const loaded = loadConfig(options.env ?? process.env, options.nets, options.leases ?? LEASES)
  if (!loaded.ok) throw new ConfigError(loaded.issues)
  const config = loaded.config
  const logger = options.logger ?? createLogger({ level: config.logLevel })
  return { config, logger, owner: ownerId(config.workerId) }
}
