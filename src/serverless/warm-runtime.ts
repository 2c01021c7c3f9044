/**
 * A function instance's runtime, opened on its first invocation and kept while the instance is warm: the
 * configuration (read once), the Mongo client (its pool's connections reused by every later invocation),
 * the forge (its installation token cached until it nears expiry) and each net's set-up (indexes made
 * once). Platforms freeze a warm instance between invocations and thaw it for the next; nothing here
 * closes on its own, so a thawed instance finds its connections as it left them (the driver re-dials one
 * the network dropped meanwhile).
 *
 * One per handler factory (serverless-handlers.ts), cached at module level by whoever calls the factory
 * at module level. An open that fails (a bad configuration, a sandbox that could not bind) is forgotten,
 * so the next invocation tries again; `close` ends it for good.
 *
 * Not a pool of runtimes and not a worker: no campaign, no HTTP server, no status, no timers of its own.
 */
import type { MongoClient } from 'mongodb'
import { ConfigError } from '../config/config-error.js'
import { loadConfig } from '../config/load-config.js'
import { loadWorkerFile, type WorkerFileConfig } from '../config/load-config-file.js'
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { settledOrAborted } from '../lease/wait.js'
import { LEASES } from '../leases.js'
import { createLogger, type Logger } from '../observe/logger.js'
import { openRuntime, type PassRuntime } from '../worker/runtime.js'
import { ServerlessError } from './serverless-error.js'

export interface WarmRuntimeOptions {
  /** The worker configuration module's path, or its default export; the shipped nets when absent. */
  config?: string | WorkerFileConfig | undefined
  /** The environment the configuration is read from; process.env when absent. */
  env?: NodeJS.ProcessEnv | undefined
  /** Where the runtime and the passes log; pino on stdout at LOG_LEVEL when absent. */
  logger?: Logger | undefined
  /** Hears the Mongo client once built, before it connects: attach the driver's monitoring here. */
  onMongoClient?: ((client: MongoClient) => void) | undefined
}

/** The open parts an invocation runs on. */
export interface WarmParts {
  config: WorkerConfig
  runtime: PassRuntime
  log: Logger
  /** The net's set-up, made once per instance and shared by its invocations; bounded by `signal`. */
  setUp(net: NetConfig, log: Logger, signal?: AbortSignal): Promise<unknown>
}

export interface WarmRuntime {
  /** The parts, opened on the first call; rejects with ConfigError, ConfigFileError or the open's error. */
  parts(): Promise<WarmParts>
  /** Closes the runtime (Mongo, the forge, a local sandbox); later `parts()` reject SERVERLESS_CLOSED. */
  close(): Promise<void>
}

/** A runtime opened lazily and kept; see the module doc. */
export function warmRuntime(options: WarmRuntimeOptions): WarmRuntime {
  let opening: Promise<WarmParts> | undefined
  let closed = false
  return {
    parts() {
      if (closed) return Promise.reject(new ServerlessError('SERVERLESS_CLOSED', 'the handlers were closed'))
      if (!opening) {
        const attempt = openParts(options)
        opening = attempt
        attempt.catch(() => {
          if (opening === attempt) opening = undefined
        })
      }
      return opening
    },
    async close() {
      closed = true
      const open = opening
      opening = undefined
      const parts = await open?.catch(() => undefined)
      await parts?.runtime.close()
    },
  }
}

async function openParts(options: WarmRuntimeOptions): Promise<WarmParts> {
  const file = typeof options.config === 'object' ? options.config : await loadWorkerFile(options.config)
  const loaded = loadConfig(options.env ?? process.env, file.nets, file.leases ?? LEASES)
  if (!loaded.ok) throw new ConfigError(loaded.issues)
  const config = loaded.config
  const log = options.logger ?? createLogger({ level: config.logLevel })
  const runtime = await openRuntime({
    config,
    log,
    ...(options.onMongoClient ? { onMongoClient: options.onMongoClient } : {}),
  })
  return { config, runtime, log, setUp: cachedSetUp(runtime) }
}

/**
 * Each net's set-up once per instance: made without an invocation's signal (a set-up one invocation's
 * abort cut short would fail the next one's too), each caller waiting on it up to its own signal. A set-up
 * that failed is forgotten, so the next invocation's claimed slot sets up again.
 */
function cachedSetUp(runtime: PassRuntime): WarmParts['setUp'] {
  const made = new Map<string, Promise<unknown>>()
  return async (net, log, signal = new AbortController().signal) => {
    const name = net.definition.name
    let setting = made.get(name)
    if (!setting) {
      const attempt = runtime.setUpNet(net, log)
      setting = attempt
      made.set(name, attempt)
      attempt.catch(() => {
        if (made.get(name) === attempt) made.delete(name)
      })
    }
    if (!(await settledOrAborted(setting, signal)))
      throw signal.reason ?? new Error('the invocation ended before the net was set up')
    return setting
  }
}
