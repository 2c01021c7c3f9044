/**
 * openRuntime: the one place a command turns its configuration into the parts it works with — the Mongo
 * connection (or none: single-process mode), the lease store, the run ledger, the net controls, the forge (the GitHub App's,
 * or the local sandbox started in this process) and the nets' set-up. `run` (worker.ts), `once`
 * (cli/once.ts), `status` and `history` (cli/with-database.ts, cli/store-status-snapshot.ts) all open through it.
 *
 * Each part registers its close as it opens; `close` runs them in reverse, and a failure while opening
 * closes what was already opened before it rethrows. The driver (mongo-connection.ts) and the sandbox
 * (local-sandbox.ts) load on demand, so a command that needs neither never pays for them
 * (test/library/bundle-graph.test.ts).
 *
 * Two sets of parts: `pass` (everything a pass needs; says which store and forge it chose) and `read`
 * (the store and the ledger only, for the read-only commands: quiet, and no index created on their
 * short-lived connection). Not the worker: HTTP, campaigns and status stay in worker.ts.
 */
import type { MongoClient } from 'mongodb'
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { MemoryNetControlStore } from '../control/memory-net-control-store.js'
import { MongoNetControlStore } from '../control/mongo-net-control-store.js'
import type { NetControlStore } from '../control/net-control-store.js'
import type { ForgeAppConfig } from '../forge/forge-config.js'
import type { Forge } from '../forge/client/github-app.js'
import {
  discoverInstallations,
  InstallationDiscoveryError,
} from '../forge/installations/installation-discovery.js'
import { type InstallationSet, listedInstallations } from '../forge/installations/installation-set.js'
import type { ForgeMeter } from '../forge/meter/meter.js'
import type { OnBadDocument } from '../store-call/bad-document.js'
import { type Clock, systemClock } from '../lease/clock.js'
import { MemoryStore } from '../lease/memory-store.js'
import { MongoStore } from '../lease/mongo-store.js'
import { batchRenewals } from '../lease/renewal-batch.js'
import type { LeaseStore } from '../lease/store.js'
import { settledOrAborted } from '../lease/wait.js'
import { MemoryRunLedger } from '../runs/memory-run-ledger.js'
import { batchLedgerCalls } from '../runs/ledger-batch.js'
import { MongoRunLedger } from '../runs/mongo-run-ledger.js'
import type { RunLedger } from '../runs/run-ledger.js'
import type { SandboxForge, SandboxForgeOptions } from '../sandbox/sandbox-forge.js'
import { badDocumentSink } from './bad-documents.js'
import { forgeCacheSettings } from './forge-cache-settings.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import type { MongoConnection } from './mongo-connection.js'

export interface RuntimeOptions {
  config: WorkerConfig
  /** `pass` (default): store, ledger, forge and the nets' set-up. `read`: the store and the ledger only. */
  parts?: 'pass' | 'read'
  /** Where the parts log (a `read` runtime logs nothing of its own). */
  log: Logger
  /** The worker's metrics: the store-up gauge, the bad-document counter, the forge's registry. */
  metrics?: WorkerMetrics
  /** Where the Mongo twins report a malformed document; a warning line (and the counter) by default. */
  onBadDocument?: OnBadDocument
  clock?: Clock
  /** The local sandbox's options, when it is the forge (npm start's demo data). */
  sandbox?: SandboxForgeOptions
  /** The process stopping: ends the background connecting and the forge's queued requests before `close`. */
  signal?: AbortSignal
  /** Hears each Mongo client once built, before it connects (its monitoring sees every connection). */
  onMongoClient?: (client: MongoClient) => void
  /**
   * Opens the lease lane (mongo-connection.ts): the worker does, as it renews leases for as long as it
   * runs. A one-shot pass (`once`, backfill, a serverless invocation) does not: it would pay a second
   * client's connections for a call or two.
   */
  leaseLane?: boolean
}

/** What every command opens: the store and the ledger, over one connection when there is a Mongo. */
export interface StoreRuntime {
  /** The Mongo connection; undefined in single-process mode (no MONGO_URI). */
  readonly mongo: MongoConnection | undefined
  readonly store: LeaseStore
  /** One pass per slot: net_runs with Mongo, in memory otherwise. */
  readonly ledger: RunLedger
  /** The nets' pauses and run requests: net_controls with Mongo, in memory otherwise. */
  readonly controls: NetControlStore
  /** Closes what was opened, in reverse; never rejects; idempotent. */
  close(): Promise<void>
}

/** What `run` and `once` open: the store and the ledger, the forge, and the nets' set-up over them. */
export interface PassRuntime extends StoreRuntime {
  /** The first installation's forge (the status page reads the meter every installation's forge shares). */
  readonly forge: Forge
  /** The installations the process acts as (the sandbox's one when it is the forge). */
  readonly installations: InstallationSet
  /**
   * The forge acting as `installation`: built on first ask, with its own token and budget, counted by the
   * meter every installation shares. Throws once the runtime is closing.
   */
  forgeFor(installation: number): Forge
  /**
   * The installations acted as now: the listed ones, or under `all` the last discovered (active, ascending).
   */
  installationIds(): readonly number[]
  /**
   * Under `all`, lists the App's installations again (GET /app/installations) and resolves the new list;
   * rejects (InstallationDiscoveryError) when GitHub did not answer, keeping the last list. Otherwise the list.
   */
  refreshInstallations(signal?: AbortSignal): Promise<readonly number[]>
  /** The sandbox forge started in this process, when no GitHub App is configured. */
  readonly sandbox: SandboxForge | undefined
  /**
   * The net's process-wide set-up, once the connection is up; rejects with `signal`'s reason when it
   * aborts first, or with the set-up's own error.
   */
  setUpNet(net: NetConfig, log: Logger, signal?: AbortSignal): Promise<unknown>
}

/** One close list: each part's close, run in reverse order of opening. */
function closeList() {
  const closes: (() => Promise<unknown> | unknown)[] = []
  return {
    add(close: () => Promise<unknown> | unknown) {
      closes.push(close)
    },
    async closeAll() {
      // Each part closes even when one before it failed: a stuck forge must not keep Mongo open.
      for (const close of closes.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined)
    },
  }
}

/**
 * Opens the parts `options.parts` names (see the module doc). Rejects when a part cannot open (a sandbox
 * that cannot bind, an unchecked forge configuration), after closing the parts already open.
 */
export async function openRuntime(options: RuntimeOptions & { parts: 'read' }): Promise<StoreRuntime>
export async function openRuntime(options: RuntimeOptions & { parts?: 'pass' }): Promise<PassRuntime>
export async function openRuntime(options: RuntimeOptions): Promise<StoreRuntime | PassRuntime> {
  const stopping = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, stopping.signal]) : stopping.signal
  const closes = closeList()
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      stopping.abort(new Error('runtime closing'))
      await closes.closeAll()
    })()
    return closing
  }
  try {
    const stores = await openStores(options, signal, closes)
    if (options.parts === 'read') return { ...stores, close }
    const forge = await openForge(options, stores.mongo, signal, closes)
    return { ...stores, ...forge, setUpNet: netSetUp(options, stores.mongo), close }
  } catch (error) {
    await close()
    throw error
  }
}

/** The connection (driver loaded only now), the store and the ledger. */
async function openStores(
  options: RuntimeOptions,
  signal: AbortSignal,
  closes: ReturnType<typeof closeList>,
): Promise<Omit<StoreRuntime, 'close'>> {
  const { config, log, metrics } = options
  const quiet = options.parts === 'read'
  const onBadDocument = options.onBadDocument ?? badDocumentSink(log, metrics)
  if (!config.mongo) {
    metrics?.storeUp.set(1)
    if (!quiet)
      log.warn(
        {},
        'single-process mode: no MONGO_URI, leases live in this process (in-memory store): it elects itself, and a second replica would elect itself too',
      )
    return {
      mongo: undefined,
      store: new MemoryStore(),
      ledger: new MemoryRunLedger(),
      controls: new MemoryNetControlStore(),
    }
  }
  const { connectForCommand, connectMongo } = await import('./mongo-connection.js')
  let mongo: MongoConnection
  if (quiet) {
    const command = connectForCommand(config.mongo)
    closes.add(() => command.end())
    mongo = command
  } else {
    mongo = connectMongo(config.mongo.uri, config.mongo.db, log, signal, {
      ...(metrics ? { onStoreUp: (up: boolean) => metrics.storeUp.set(up ? 1 : 0) } : {}),
      ...(options.onMongoClient ? { onClient: options.onMongoClient } : {}),
      leaseLane: options.leaseLane === true,
    })
    closes.add(() => mongo.close())
  }
  const mongoStore = new MongoStore(mongo.leaseDb, { onBadDocument })
  // A campaigning worker's renewals of many leases go together (renewal-batch.ts); a one-shot command's
  // one or two lease calls gain nothing from waiting.
  const clock = options.clock ?? systemClock
  const store = options.leaseLane ? batchRenewals(mongoStore, clock) : mongoStore
  const ledger = new MongoRunLedger(mongo.db, { onBadDocument })
  // Its claims and finishes of slots due together go in one write each (ledger-batch.ts), for the same
  // reason. Not the in-memory ledger's: it has no round trip to save, so the wait would be all cost.
  const batched = options.leaseLane ? batchLedgerCalls(ledger, clock) : ledger
  // Its `history` index, in the background once connected: claims rely on the `_id` index alone, so a
  // missing index slows history, never a pass. A read-only command's connection is short-lived: it reads
  // the ledger without creating the index.
  if (!quiet)
    void mongo.connected
      .then(() => ledger.ensureIndexes({ signal: AbortSignal.timeout(30_000) }))
      .catch((error: unknown) => log.warn({ err: error }, 'could not create the run ledger’s history index'))
  if (!quiet) warnOfFerretDbPool(mongo, log)
  const controls = new MongoNetControlStore(mongo.db, { onBadDocument })
  return { mongo, store, ledger: batched, controls }
}

/** Once connected, warns (once) when the store is FerretDB and this replica's pool can stall it. */
function warnOfFerretDbPool(mongo: MongoConnection, log: Logger): void {
  void mongo.connected
    .then(() => import('./ferretdb-pool-warning.js'))
    .then(({ ferretDbPoolWarning }) => ferretDbPoolWarning(mongo.client, AbortSignal.timeout(10_000)))
    .then((warning) => {
      if (warning) log.warn({ maxPoolSize: mongo.client.options.maxPoolSize }, warning)
    })
    // A server that does not answer buildInfo tells nothing about its pool: the store's own calls say more.
    .catch(() => undefined)
}

/** The GitHub App's forge, or the sandbox forge started in this process (and said so) when none is configured. */
async function openForge(
  options: RuntimeOptions,
  mongo: MongoConnection | undefined,
  signal: AbortSignal,
  closes: ReturnType<typeof closeList>,
): Promise<
  Pick<
    PassRuntime,
    'forge' | 'sandbox' | 'installations' | 'forgeFor' | 'installationIds' | 'refreshInstallations'
  >
> {
  const { config, log } = options
  const choice = config.forge
  if (choice.kind === 'unchecked') throw new Error('runtime: the forge configuration was not checked')
  let sandbox: SandboxForge | undefined
  let app: ForgeAppConfig
  let installations: InstallationSet
  if (choice.kind === 'github') ({ app, installations } = choice)
  else {
    const { startLocalSandbox } = await import('./local-sandbox.js')
    const local = await startLocalSandbox(options.sandbox)
    sandbox = local.sandbox
    closes.add(() => local.sandbox.close())
    log.warn({ url: local.sandbox.url, reason: choice.reason }, 'using the local sandbox forge, not GitHub')
    const { installationId, ...rest } = local.config
    app = rest
    installations = { kind: 'one', id: installationId }
  }
  // Loaded here, after the connection has started (openStores): the forge's modules (Octokit's wrapper,
  // its meter, prom-client, lru-cache, the tracing API) compile and evaluate while the driver waits on the
  // network, instead of before it starts connecting; none is needed before the first store call.
  const kit: ForgeKit = await import('./forge-kit.js')
  const { forgeFor, meter } = installationForges(kit, options, app, mongo, signal, closes)
  const listing = await installationListing(kit, options, app, installations, meter, signal, closes)
  const first = listing.installationIds()[0]
  if (first === undefined)
    throw new InstallationDiscoveryError(
      'forge: GITHUB_INSTALLATION_IDS=all, and the App has no installation that is not suspended (GET /app/installations): nothing to act as',
    )
  return { forge: forgeFor(first), sandbox, installations, forgeFor, ...listing }
}

/** The installations acted as: the listed ones, or under `all` those discovered now and on each refresh. */
async function installationListing(
  { createAppForge }: ForgeKit,
  options: RuntimeOptions,
  app: ForgeAppConfig,
  installations: InstallationSet,
  meter: ForgeMeter,
  signal: AbortSignal,
  closes: ReturnType<typeof closeList>,
): Promise<Pick<PassRuntime, 'installationIds' | 'refreshInstallations'>> {
  if (installations.kind !== 'all') {
    const ids = listedInstallations(installations)
    return { installationIds: () => ids, refreshInstallations: async () => ids }
  }
  const logger = options.log.child({ component: 'forge' })
  const appForge = createAppForge({ app, logger, meter, signal })
  closes.add(() => appForge.close())
  let ids = await discoverInstallations(appForge.octokit, signal, logger)
  options.log.info(
    { installations: ids },
    `GITHUB_INSTALLATION_IDS=all: acting as ${ids.length} installations`,
  )
  return {
    installationIds: () => ids,
    refreshInstallations: async (refreshSignal) => {
      // An empty listing rejects (installation-discovery.ts): the installations acted as stay as they are.
      ids = await discoverInstallations(appForge.octokit, refreshSignal ?? signal, logger)
      return ids
    },
  }
}

/**
 * One forge per installation, built on first ask and closed with the runtime; all count with one meter
 * (one hourly line, one status page: lanes tell installations apart), flushed when the runtime closes.
 */
function installationForges(
  { createForge, createForgeMeter }: ForgeKit,
  options: RuntimeOptions,
  app: ForgeAppConfig,
  mongo: MongoConnection | undefined,
  signal: AbortSignal,
  closes: ReturnType<typeof closeList>,
): { forgeFor: (installation: number) => Forge; meter: ForgeMeter } {
  const { config, log } = options
  const logger = log.child({ component: 'forge' })
  const registry = options.metrics ? { registry: options.metrics.registry } : {}
  const meter = createForgeMeter({ logger, ...registry })
  closes.add(() => meter.flush())
  // The shared forge_cache makes a cold `once` process revalidate instead of paying for every GET.
  const cache = forgeCacheSettings(config.forgeCacheMb, mongo, log, signal)
  const forges = new Map<number, Forge>()
  const forgeFor = (installation: number) => {
    let forge = forges.get(installation)
    if (forge) return forge
    signal.throwIfAborted()
    const installationLogger = logger.child({ installation })
    forge = createForge({
      config: { ...app, installationId: installation },
      logger: installationLogger,
      meter,
      ...registry,
      signal,
      cache,
    })
    forges.set(installation, forge)
    const built = forge
    closes.add(() => built.close())
    return forge
  }
  return { forgeFor, meter }
}

/** The forge's builders, imported once the connection has started (openForge). */
type ForgeKit = typeof import('./forge-kit.js')

/** The nets' set-up over the open parts: the database (once connected), the log, the public URL, the clock. */
function netSetUp(options: RuntimeOptions, mongo: MongoConnection | undefined): PassRuntime['setUpNet'] {
  const clock = options.clock ?? systemClock
  return async (net, log, signal = new AbortController().signal) => {
    if (mongo && !(await settledOrAborted(mongo.connected, signal)))
      throw signal.reason ?? new Error('stopped before MongoDB connected')
    signal.throwIfAborted()
    return net.definition.setup({
      options: net.options,
      db: mongo?.db,
      log,
      publicUrl: options.config.publicUrl,
      now: () => clock.now(),
    })
  }
}
