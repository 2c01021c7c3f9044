/**
 * createWorker: the process around the nets — configuration, lease store, forge, HTTP, campaigns — with a
 * start and a stop that leaves nothing held.
 *
 * With MONGO_URI it elects one replica per net across every worker sharing the database; without it, it
 * runs one process on an in-memory store (and says so: a second replica would elect itself too). With no
 * GitHub App configured it starts the local sandbox forge, so a fresh checkout does real work.
 */
import { LEASES, type LeaseDefinition } from '../leases.js'
import { type Clock, systemClock } from '../lease/clock.js'
import { MemoryStore } from '../lease/memory-store.js'
import { MongoStore } from '../lease/mongo-store.js'
import type { LeaseStore, LeaseTerm } from '../lease/store.js'
import { createForge, type Forge } from '../forge/github-app.js'
import type { NetDefinition, NetLogger } from '../nets/net.js'
import {
  type SandboxForge,
  type SandboxForgeOptions,
  sandboxForgeConfig,
  startSandboxForge,
} from '../sandbox/sandbox-forge.js'
import { DEMO_SANDBOX_DATA } from './demo.js'
import { ConfigError, loadConfig, redactedConfig, type WorkerConfig } from './config.js'
import { type HealthServer, startHealthServer } from './http.js'
import { createLogger, type Logger } from './logger.js'
import { createWorkerMetrics, type WorkerMetrics } from './metrics.js'
import { connectMongo, type MongoConnection } from './mongo-connection.js'
import { openRunLedger } from './open-run-ledger.js'
import { ownerId } from './owner-id.js'
import { runNetCampaign } from './scheduler.js'
import { MemoryRunLedger } from '../runs/memory-run-ledger.js'
import type { RunLedger } from '../runs/run-ledger.js'
import { createWorkerStatus } from './status/worker-status.js'

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
  /**
   * Bench only: every pass runs on every replica, with no lease — the cost ADR-117 removes. Programmatic,
   * never an environment switch, so nobody turns the election off by mistake.
   */
  unelected?: boolean
}

export interface Worker {
  readonly config: WorkerConfig
  /** This process's owner id (host + random suffix). */
  readonly owner: string
  /** The bound HTTP port, once started. */
  readonly port: number | undefined
  readonly logger: Logger
  readonly metrics: WorkerMetrics
  /** Starts HTTP, the store and the campaigns; resolves once campaigning has begun. */
  start(): Promise<void>
  /**
   * Stops campaigning, aborts terms, waits for passes up to the shutdown timeout, releases leases, flushes
   * the forge meter's partial hour and closes connections. Idempotent.
   */
  stop(): Promise<void>
}

/**
 * Builds a worker from the environment. Throws ConfigError (exitCode 78) listing every invalid variable
 * before anything starts.
 */
export function createWorker(options: WorkerOptions): Worker {
  const env = options.env ?? process.env
  const leases = options.leases ?? LEASES
  const loaded = loadConfig(env, options.nets, leases)
  if (!loaded.ok) throw new ConfigError(loaded.issues)
  const config = loaded.config
  const logger = options.logger ?? createLogger({ level: config.logLevel })
  const owner = ownerId(config.workerId)
  const clock = options.clock ?? systemClock
  const metrics = createWorkerMetrics()
  const stopping = new AbortController()
  let http: HealthServer | undefined
  let mongo: MongoConnection | undefined
  let sandbox: SandboxForge | undefined
  let forge: Forge | undefined
  let campaigns: Promise<void>[] = []
  let store: LeaseStore | undefined
  let runLedger: RunLedger | undefined
  /** The terms being served, by lease: what a forced shutdown releases. */
  const held = new Map<string, LeaseTerm>()
  let started: Promise<void> | undefined
  let stopped: Promise<void> | undefined

  const log = logger.child({ owner })
  const status = createWorkerStatus({
    owner,
    config,
    registry: metrics.registry,
    clock,
    log,
    store: () => store,
    mongo: () => mongo,
    meter: () => forge?.meter,
    ledger: () => runLedger,
  })

  const ready = async () => {
    if (!mongo) return { ready: !stopping.signal.aborted, detail: { store: 'memory' } }
    const up = await mongo.ping()
    metrics.storeUp.set(up ? 1 : 0)
    return { ready: up && !stopping.signal.aborted, detail: { store: 'mongo', storeAnswering: up } }
  }

  const start = async () => {
    log.info({ config: redactedConfig(config) }, 'leasecron starting')
    http = await startHealthServer({
      port: config.port,
      registry: metrics.registry,
      ready,
      status: { snapshot: status.snapshot, page: config.statusPage },
    })
    log.info(
      { port: http.port, statusPage: config.statusPage },
      `serving /healthz /readyz /metrics /status${config.statusPage ? ' and the status page at /' : ''}`,
    )

    if (config.mongo) {
      mongo = connectMongo(config.mongo.uri, config.mongo.db, log, stopping.signal)
      store = new MongoStore(mongo.db)
    } else {
      store = new MemoryStore()
      metrics.storeUp.set(1)
      log.warn(
        {},
        'single-process mode: no MONGO_URI, leases live in this process; a second replica would elect itself too',
      )
    }

    if (config.forge.kind === 'sandbox') {
      sandbox = await startSandboxForge(options.sandbox ?? { generate: { ...DEMO_SANDBOX_DATA } })
      log.warn({ url: sandbox.url, reason: config.forge.reason }, 'using the local sandbox forge, not GitHub')
    }
    forge = createForge({
      config: config.forge.kind === 'github' ? config.forge.config : sandboxForgeConfig(sandbox!),
      logger: log.child({ component: 'forge' }),
      registry: metrics.registry,
    })
    status.start()

    const ledger = openRunLedger(mongo?.db, mongo?.connected, log)
    runLedger = ledger
    const resources = new Map<string, unknown>()
    const enabled = config.nets.filter((n) => n.enabled)
    for (const n of config.nets) if (!n.enabled) log.info({ net: n.net.name }, 'net disabled')
    const setups = enabled.map(async (n) => {
      const netLog = log.child({ net: n.net.name })
      let delay = 500
      for (;;) {
        try {
          if (mongo) await waitOrAbort(mongo.connected, stopping.signal)
          if (stopping.signal.aborted) return false
          resources.set(
            n.net.name,
            await n.net.setup({
              options: n.options as never,
              db: mongo?.db,
              log: netLog as unknown as NetLogger,
              publicUrl: config.publicUrl,
              now: () => clock.now(),
            }),
          )
          return true
        } catch (error) {
          netLog.warn({ err: error, retryInMs: delay }, 'net setup failed; retrying')
          await sleep(delay, stopping.signal)
          delay = Math.min(delay * 2, 30_000)
        }
      }
    })
    campaigns = enabled.map(async (n, i) => {
      if (!(await setups[i])) return
      log.info(
        {
          net: n.net.name,
          lease: n.net.lease,
          schedule: n.schedule,
          ttlMs: n.pacing.ttlMs,
          retryMs: n.pacing.retryMs,
        },
        options.unelected ? 'net running UNELECTED (bench mode)' : 'campaigning',
      )
      await runNetCampaign({
        store: store!,
        // Unelected (bench) replicas each keep their own ledger: they model the world before ADR-117.
        ledger: options.unelected ? new MemoryRunLedger() : ledger,
        runHistory: config.runHistory,
        meter: forge!.meter,
        owner,
        net: n,
        resources: resources.get(n.net.name),
        forge: forge!.octokit,
        log,
        metrics,
        clock,
        signal: stopping.signal,
        unelected: options.unelected ?? false,
        held,
      })
    })
    if (sandbox && options.onSandbox) {
      const sb = sandbox
      void Promise.all(setups).then(async () => {
        try {
          await options.onSandbox?.(sb, resources)
        } catch (error) {
          log.warn({ err: error }, 'sandbox demo seed failed')
        }
      })
    }
  }

  const stop = async () => {
    stopping.abort(new Error('worker stopping'))
    await started?.catch(() => undefined)
    const all = Promise.allSettled(campaigns).then(() => true)
    const timedOut = await Promise.race([all, sleepResolve(config.shutdownTimeoutMs, false)])
    if (!timedOut) {
      log.warn(
        { timeoutMs: config.shutdownTimeoutMs },
        'passes still running at the shutdown timeout; releasing their leases and stopping anyway',
      )
      // The process is about to exit, so its passes end with it; releasing now spares a successor the TTL.
      await Promise.allSettled(
        [...held.values()].map((term) => store?.release(term, { signal: AbortSignal.timeout(5_000) })),
      )
    }
    await status.stop()
    await forge?.close()
    await sandbox?.close()
    await http?.close()
    await mongo?.close().catch(() => undefined)
    log.info({}, 'leasecron stopped')
  }

  return {
    config,
    owner,
    logger,
    metrics,
    get port() {
      return http?.port
    },
    start() {
      started ??= start()
      return started
    },
    stop() {
      stopped ??= stop()
      return stopped
    },
  }
}

function waitOrAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    signal.addEventListener('abort', () => resolve(), { once: true })
    promise.then(resolve)
  })
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })
}

function sleepResolve<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref())
}
