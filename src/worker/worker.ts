/**
 * createWorker: the process around the nets — configuration, lease store, forge, HTTP, campaigns — with a
 * start and a stop that leaves nothing held.
 *
 * With MONGO_URI it elects one replica per net across every worker sharing the database; without it, it
 * runs one process on an in-memory store (and says so: a second replica would elect itself too). With no
 * GitHub App configured it starts the local sandbox forge, so a fresh checkout does real work.
 */

import { type Clock, systemClock } from '../lease/clock.js'
import type { LeaseStore, LeaseTerm } from '../lease/store.js'
import { settledOrAborted, settledWithin, waitFor } from '../lease/wait.js'
import { badDocumentSink } from './bad-documents.js'
import { type CampaignHeartbeats, createCampaignHeartbeats } from '../term/campaign-heartbeats.js'
import { redactedConfig } from '../config/redacted-config.js'
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { type HealthServer, type HealthServerOptions, startHealthServer } from './http.js'
import type { Logger } from '../observe/logger.js'
import { registerLedgerMetrics } from './ledger-metrics.js'
import { asPromRegistry } from '../forge/meter/prom-registry.js'
import { createWorkerMetrics, type WorkerMetrics } from '../observe/metrics.js'
import { openRuntime, type PassRuntime, type RuntimeOptions } from './runtime.js'
import { netPinger } from '../observe/ping.js'
import { type CampaignGate, runNetCampaign } from '../term/net-runner.js'
import { CONTROL_POLL_MS, ControlPoll, NOTICED_CONTROL_POLL_MS } from '../term/control-poll.js'
import type { NetControlStore } from '../control/net-control-store.js'
import { installationNets, type NetInstance, shownNets } from './installation-nets.js'
import { createWorkerStatus, type WorkerStatus } from './status/worker-status.js'
import { type ClockWatch, createClockWatch } from '../share/clock-watch.js'
import { netCampaignGate } from '../share/campaign-gate.js'
import { ShareKeeper } from '../share/share-keeper.js'
import { VacancyWatch } from '../share/vacancy-watch.js'
import { MongoReplicaStore } from '../lease/mongo-replica-store.js'
import { MemoryReplicaStore } from '../lease/memory-replica-store.js'
import { AcquireTurns } from '../lease/acquire-turns.js'

import type { Worker, WorkerOptions } from './worker-options.js'
import { setUpWorker, type WorkerSetup } from './worker-setup.js'
import { type NoticeTarget, noticingControls } from './noticing-controls.js'

export type { Worker, WorkerOptions } from './worker-options.js'

/**
 * Builds a worker from the environment. Throws ConfigError (exitCode 78) listing every invalid variable
 * before anything starts.
 */
export function createWorker(options: WorkerOptions): Worker {
  return assembleWorker(options, setUpWorker(options))
}

/** How the worker opens its store, ledger, controls and forge: runtime.ts's openRuntime by default. */
export type OpenWorkerRuntime = (options: RuntimeOptions & { parts?: 'pass' }) => Promise<PassRuntime>

/**
 * The worker around a setup already read (worker-setup.ts): the composition root, each step below a
 * named function. The public createWorker (deferred-worker.ts) calls it once `start()` has loaded this module.
 * `open` stands in for openRuntime when a caller brings parts of its own: the replicas bench's unelected
 * replicas (bench/unelected-worker.mjs) each keep a lease store, a ledger and controls to themselves.
 */
export function assembleWorker(
  options: WorkerOptions,
  { config, logger, owner }: WorkerSetup,
  open: OpenWorkerRuntime = openRuntime,
): Worker {
  const w = newWorkerState(options, { config, logger, owner })
  w.clockWatch = createClockWatch({ enforce: config.replicas.clockGuard, ...w })
  w.status = createWorkerStatus({
    owner,
    config,
    // Each installation's nets: the listed ones, or under `all` the latest discovered (installation-nets.ts).
    nets: () => shownNets(config, w.runtime?.installationIds()),
    registry: asPromRegistry(w.metrics.registry),
    clock: w.clock,
    log: w.log,
    store: () => w.runtime?.store,
    mongo: () => w.runtime?.mongo,
    meter: () => w.runtime?.forge.meter,
    ledger: () => w.runtime?.ledger,
    controls: () => w.runtime?.controls,
    onBadDocument: badDocumentSink(w.log, w.metrics),
  })
  const status = w.status
  registerLedgerMetrics(asPromRegistry(w.metrics.registry), () => status.snapshot())
  let started: Promise<void> | undefined
  let stopped: Promise<void> | undefined
  const start = async () => {
    w.log.info({ pid: process.pid, config: redactedConfig(config) }, 'leasecron starting')
    w.http = await serveHttp(w)
    // The store, the ledger and the forge: the driver and the sandbox load only now, when configured.
    w.runtime = await open({
      config,
      log: w.log,
      metrics: w.metrics,
      clock: w.clock,
      signal: w.stopping.signal,
      leaseLane: true,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    })
    w.status?.start()
    w.clockProbe = w.clockWatch?.start(w.runtime.mongo, w.stopping.signal)
    startFairShare(w)
    const resources = new Map<string, unknown>()
    const setups = setUpNets(w, resources)
    w.campaigns = startCampaigns(w, setups, resources)
    seedSandbox(w, setups, resources)
  }
  return {
    config,
    owner,
    logger,
    metrics: w.metrics,
    get port() {
      return w.http?.port
    },
    start() {
      started ??= start()
      return started
    },
    stop() {
      stopped ??= (async () => {
        w.stopping.abort(new Error('worker stopping'))
        await started?.catch(() => undefined)
        await stopWorker(w)
      })()
      return stopped
    },
  }
}

/** The longest the campaigns wait for the first clock offset before campaigning anyway. */
const CLOCK_FIRST_MEASURE_MS = 5_000

/**
 * How many of a replica's acquires are with the store at once (acquire-turns.ts): one fewer than its lease
 * lane's two connections (LEASE_LANE_POOL, mongo-connection.ts, not imported here: it loads the driver),
 * so a renewal never waits behind the replica's own elections.
 */
export const ACQUIRES_AT_ONCE = 1

/** The shortest interval between a replica's announcements (a net retrying faster does not need more). */
const MIN_SHARE_INTERVAL_MS = 500

/** A worker's state before anything is opened. */
function newWorkerState(options: WorkerOptions, { config, logger, owner }: WorkerSetup): WorkerState {
  return {
    config,
    options,
    owner,
    log: logger.child({ owner }),
    clock: options.clock ?? systemClock,
    metrics: createWorkerMetrics(),
    stopping: new AbortController(),
    campaigns: [],
    held: new Map(),
    heartbeats: createCampaignHeartbeats(options.clock ?? systemClock),
    acquireTurns: new AcquireTurns(ACQUIRES_AT_ONCE),
  }
}

/** What the steps share: the configuration and the parts opened so far. */
interface WorkerState {
  readonly config: WorkerConfig
  readonly options: WorkerOptions
  readonly owner: string
  readonly log: Logger
  readonly clock: Clock
  readonly metrics: WorkerMetrics
  readonly stopping: AbortController
  http?: HealthServer
  /** The store, the run ledger (one pass per slot) and the forge, once opened (runtime.ts). */
  runtime?: PassRuntime
  campaigns: Promise<void>[]
  /** The status page's and /status's data: holders, runs, forge hours (kept in Mongo when configured). */
  status?: WorkerStatus
  /** The terms being served, by lease: what a forced shutdown releases. */
  readonly held: Map<string, LeaseTerm>
  /** When each campaign last attempted: /healthz fails naming one that stopped. */
  readonly heartbeats: CampaignHeartbeats
  /** The turns of this replica's acquires: one at a time, so its lease lane keeps a connection for renewals. */
  readonly acquireTurns: AcquireTurns
  /** The clock guard: campaigns are held back while the offset to the server exceeds their ttl/6. */
  clockWatch?: ClockWatch
  /** The clock probe's loop, awaited at stop. */
  clockProbe?: Promise<void>
  /** The fair share: announcements, the live replicas, the step-downs above the share. */
  share?: ShareKeeper
  /** The share keeper's loop (it withdraws the announcement when it ends), awaited at stop. */
  shareLoop?: Promise<void>
  /** One vacancy read per interval: campaigns acquire only leases it found free. */
  vacancy?: VacancyWatch
  vacancyLoop?: Promise<void>
}

/** /healthz, /readyz (the store answers) and /metrics. */
async function serveHttp(w: WorkerState): Promise<HealthServer> {
  const ready = async () => {
    if (!w.config.mongo) return { ready: !w.stopping.signal.aborted, detail: { store: 'memory' } }
    // Not ready while the driver is still loading (openRuntime), before there is a connection to ask.
    const up = (await w.runtime?.mongo?.ping()) ?? false
    w.metrics.storeUp.set(up ? 1 : 0)
    // A replica whose clock is too far off campaigns for nothing it is held back from: not ready, and why.
    const clockGuard = w.clockWatch?.readiness()
    return {
      ready: up && !w.stopping.signal.aborted && clockGuard === undefined,
      detail: { store: 'mongo', storeAnswering: up, ...(clockGuard ? { clockGuard } : {}) },
    }
  }
  const page = w.config.statusPage
  const http = await startHealthServer({
    port: w.config.port,
    host: w.config.bindAddress,
    registry: w.metrics.registry,
    ready,
    staleCampaigns: () => w.heartbeats.stale(),
    ...(w.status ? { status: { snapshot: w.status.snapshot, page } } : {}),
    admin: adminRoutes(w),
  })
  const admin = w.config.adminToken !== undefined
  const address = w.config.bindAddress
  const at = address.includes(':') ? `[${address}]:${http.port}` : `${address}:${http.port}`
  w.log.info(
    { address, port: http.port, statusPage: page, adminApi: admin },
    `serving on ${at} /healthz /readyz /metrics /status${page ? ', the status page at /' : ''}${admin ? ', the admin API at POST /nets/<net>/pause|resume|run|backfill|cancel-backfill' : ''}`,
  )
  return http
}

/** The admin API's view of the worker: its token, its nets, the control store once the runtime is open. */
function adminRoutes(w: WorkerState): NonNullable<HealthServerOptions['admin']> {
  return {
    token: w.config.adminToken,
    // The nets the page lists, asked per request (under `all` the installations change while it runs).
    get nets() {
      return shownNets(w.config, w.runtime?.installationIds()).map((n) => ({
        name: n.definition.name,
        enabled: n.enabled,
        config: n,
      }))
    },
    runHistory: w.config.runHistory,
    controls: () => w.runtime && noticingControls(w.runtime.controls, workerNotice(w, w.runtime.store)),
    clock: w.clock,
    log: w.log,
    onAccepted: () => w.status?.invalidate(),
  }
}

/** Where the admin API's control writes leave their notice: the lease of the net, as the page lists it. */
function workerNotice(w: WorkerState, store: LeaseStore): NoticeTarget {
  return {
    store,
    leaseOf: (net) =>
      shownNets(w.config, w.runtime?.installationIds()).find((n) => n.definition.name === net)?.definition
        .lease,
    onUnnoticed: (net, error) =>
      w.log.warn(
        { net, err: error },
        `the control was written, but its notice to the holder did not land: the holder sees a pause at its next tick, a request within ${NOTICED_CONTROL_POLL_MS / 1000} s`,
      ),
  }
}

/**
 * Each enabled net's process-wide setup, once the store is connected, retried with capped backoff until
 * it succeeds or the worker stops. Resolves per net to whether it is set up.
 */
function setUpNets(w: WorkerState, resources: Map<string, unknown>): Promise<boolean>[] {
  for (const n of w.config.nets) if (!n.enabled) w.log.info({ net: n.definition.name }, 'net disabled')
  const { signal } = w.stopping
  // The nets wait for the connection together: one listener on the stopping signal, not one per net
  // (Node warns of a leak past ten, which every start of a worker of ten nets on Mongo printed).
  const mongo = w.runtime!.mongo
  const connected = mongo ? settledOrAborted(mongo.connected, signal) : Promise.resolve(true)
  return enabledNets(w).map(async (n) => {
    if (!(await connected)) return false
    const log = w.log.child({ net: n.definition.name })
    // Its retries wait on a signal of its own, derived from the worker's (which gains no listener by it):
    // nets whose set-up fails together wait apart, each with one listener.
    const retries = AbortSignal.any([signal])
    for (let delay = 500; ; delay = Math.min(delay * 2, 30_000)) {
      try {
        if (signal.aborted) return false
        // Connected already, so its own wait for the connection needs no stopping signal.
        resources.set(n.definition.name, await w.runtime!.setUpNet(n, log))
        return true
      } catch (error) {
        if (signal.aborted) return false
        log.warn({ err: error, retryInMs: delay }, 'net setup failed; retrying')
        if (!(await waitFor(delay, retries, w.clock))) return false
      }
    }
  })
}

/**
 * One lease campaign per enabled net — per installation for a per-installation net (installation-nets.ts) —
 * once its net's setup is done. Under GITHUB_INSTALLATION_IDS=all the installations are listed again every
 * LEASECRON_INSTALLATIONS_REFRESH: a new one gets its campaigns, one that disappeared (uninstalled,
 * suspended) has its campaigns stopped, releasing their leases; its slots are no longer scheduled here.
 */
function startCampaigns(
  w: WorkerState,
  setups: Promise<boolean>[],
  resources: Map<string, unknown>,
): Promise<void>[] {
  const runtime = w.runtime!
  const setUp = new Map(enabledNets(w).map((n, i) => [n.definition.name, setups[i]]))
  const running = new Map<string, { installation: number | undefined; abort: AbortController }>()
  const startFor = (ids: readonly number[]) =>
    installationNets(enabledNets(w), runtime.installations, ids)
      .filter(({ net }) => !running.has(net.definition.lease))
      .map((instance) => {
        const abort = new AbortController()
        running.set(instance.net.definition.lease, { installation: instance.net.installation, abort })
        const signal = AbortSignal.any([w.stopping.signal, abort.signal])
        return campaign(w, instance, setUp, resources, signal)
      })
  const campaigns = startFor(runtime.installationIds())
  if (runtime.installations.kind === 'all') campaigns.push(refreshInstallations(w, running, startFor))
  return campaigns
}

/** One instance's campaign until `signal` aborts (the worker stops, or its installation went away). */
async function campaign(
  w: WorkerState,
  { net: n, base }: NetInstance,
  setUp: Map<string, Promise<boolean> | undefined>,
  resources: Map<string, unknown>,
  signal: AbortSignal,
): Promise<void> {
  if (!(await setUp.get(base.definition.name))) return
  // The first offset is known before the first acquire (bounded: a server that never answers hello
  // still gets campaigned for, as before the guard).
  if (w.clockWatch)
    await Promise.race([w.clockWatch.measured, waitFor(CLOCK_FIRST_MEASURE_MS, signal, w.clock)])
  const runtime = w.runtime!
  const { ttlMs, retryMs } = n.pacing
  const installation = n.installation === undefined ? {} : { installation: n.installation }
  w.log.info(
    {
      net: n.definition.name,
      lease: n.definition.lease,
      ...installation,
      schedule: n.schedule,
      ttlMs,
      retryMs,
    },
    'campaigning',
  )
  const forge = n.installation === undefined ? runtime.forge : runtime.forgeFor(n.installation)
  const pinger = netPinger(n, w.log.child({ net: n.definition.name }), w.metrics)
  await runNetCampaign({
    store: runtime.store,
    ledger: runtime.ledger,
    // Pauses and run requests are read by the holder; one poll reads every net's this process holds.
    controls: runtime.controls,
    controlPoll: controlPollOf(runtime.controls, runtime.store, w.clock),
    runHistory: w.config.runHistory,
    owner: w.owner,
    net: n,
    resources: resources.get(base.definition.name),
    // Its client is built when a pass first asks for it (slot-pass.ts), not before the first acquire.
    forge,
    deferral: { reserve: w.config.forgeReserve, budget: () => forge.budget() },
    pinger,
    log: w.log,
    metrics: w.metrics,
    clock: w.clock,
    signal,
    held: w.held,
    heartbeats: w.heartbeats,
    acquireTurns: w.acquireTurns,
    gate: campaignGate(w, n),
    ...(w.clockWatch ? { tickOffsetMs: () => w.clockWatch?.guard.tickOffsetMs() ?? 0 } : {}),
  }).catch((error: unknown) => {
    w.log.error(
      { net: n.definition.name, lease: n.definition.lease, err: error },
      'the net’s campaign ended abnormally: nobody campaigns for it in this process; /healthz fails until a restart',
    )
  })
  // The last pass's end ping (bounded) gets its answer before the runtime closes.
  await pinger?.settle()
}

/** One poll per control store: every net of the process waits on it, so one read serves them all. */
const controlPolls = new WeakMap<NetControlStore, ControlPoll>()

/**
 * The process's poll of its nets' controls. On a lease store that hears notices (LeaseStore.onNotice),
 * a renewal that hears one wakes the poll, and the interval is only a fallback (NOTICED_CONTROL_POLL_MS):
 * the controls are read when an operator wrote them, not every few seconds (issue #39).
 */
function controlPollOf(controls: NetControlStore, store: LeaseStore, clock: Clock): ControlPoll {
  const known = controlPolls.get(controls)
  if (known) return known
  const noticed = store.onNotice !== undefined
  const poll = new ControlPoll(controls, clock, noticed ? NOTICED_CONTROL_POLL_MS : CONTROL_POLL_MS)
  store.onNotice?.(() => poll.wake())
  controlPolls.set(controls, poll)
  return poll
}

/** The clock guard, the vacancy read and the fair share, asked before each of `n`'s acquires. */
function campaignGate(w: WorkerState, n: NetConfig): CampaignGate {
  return netCampaignGate(n.definition.lease, n.pacing.ttlMs, {
    clock: w.clockWatch,
    share: () => w.share,
    vacancy: () => w.vacancy,
  })
}

/**
 * Under `all`: lists the installations every LEASECRON_INSTALLATIONS_REFRESH until the worker stops,
 * starting the campaigns of new ones and stopping those of the ones gone. A listing that fails, or lists
 * no installation (installation-discovery.ts), keeps the campaigns as they are (logged). Resolves once stopped and every campaign it started has ended.
 */
async function refreshInstallations(
  w: WorkerState,
  running: Map<string, { installation: number | undefined; abort: AbortController }>,
  startFor: (ids: readonly number[]) => Promise<void>[],
): Promise<void> {
  const started: Promise<void>[] = []
  const { signal } = w.stopping
  while (await waitFor(w.config.installationsRefreshMs, signal, w.clock)) {
    let ids: readonly number[]
    try {
      ids = await w.runtime!.refreshInstallations(signal)
    } catch (error) {
      if (signal.aborted) break
      w.log.warn({ err: error }, 'could not list the App’s installations; the campaigns stay as they are')
      continue
    }
    for (const [lease, entry] of running) {
      if (entry.installation === undefined || ids.includes(entry.installation)) continue
      w.log.info({ lease, installation: entry.installation }, 'installation gone: its campaign stops')
      entry.abort.abort(new Error(`installation ${entry.installation} is no longer active`))
      running.delete(lease)
    }
    followInstallations(w, ids)
    started.push(...startFor(ids))
  }
  await Promise.allSettled(started)
}

/**
 * The fair share among the replicas sharing the store, and the vacancy watch: announced, read and the
 * vacant leases found every retry interval of the quickest net (an announcement lives three of them).
 * The leases are the installations' listed now; under `all` each listing moves them (followInstallations).
 */
function startFairShare(w: WorkerState): void {
  const nets = sharedNets(w, w.runtime?.installationIds())
  if (nets.length === 0 || !w.config.replicas.fairShare) return
  const mongo = w.runtime?.mongo
  const intervalMs = Math.max(MIN_SHARE_INTERVAL_MS, Math.min(...nets.map((n) => n.pacing.retryMs)))
  w.share = new ShareKeeper({
    store: mongo ? new MongoReplicaStore(mongo.db) : new MemoryReplicaStore(),
    owner: w.owner,
    leases: nets.length,
    slack: w.config.replicas.shareSlack,
    intervalMs,
    clock: w.clock,
    log: w.log,
    metrics: w.metrics,
    ...(w.clockWatch ? { clockGuard: w.clockWatch.guard } : {}),
  })
  w.shareLoop = w.share.run(w.stopping.signal)
  const store = w.runtime?.store
  if (!store?.vacant) return
  w.vacancy = new VacancyWatch({
    store,
    leases: nets.map((n) => n.definition.lease),
    clock: w.clock,
    log: w.log,
  })
  w.vacancyLoop = w.vacancy.run(intervalMs, w.stopping.signal)
}

/**
 * The nets campaigned for when acting as `ids`: per installation for a per-installation net
 * (installation-nets.ts); the configured ones before the runtime is open.
 */
function sharedNets(w: WorkerState, ids: readonly number[] | undefined): NetConfig[] {
  const runtime = w.runtime
  if (!runtime || ids === undefined) return enabledNets(w)
  return installationNets(enabledNets(w), runtime.installations, ids).map((i) => i.net)
}

/**
 * The fair share follows a listing under `all`: the share divides the leases of the installations acted as
 * now, and the vacancy watch reads those (a lease it was never told of it would never let a campaign try;
 * a gone installation's would keep counting towards the share). Before the new campaigns start.
 */
function followInstallations(w: WorkerState, ids: readonly number[]): void {
  const nets = sharedNets(w, ids)
  w.share?.setLeases(nets.length)
  w.vacancy?.setLeases(nets.map((n) => n.definition.lease))
}

/** npm start's demo data, once the sandbox is up and the nets are set up. */
function seedSandbox(w: WorkerState, setups: Promise<boolean>[], resources: Map<string, unknown>): void {
  const sandbox = w.runtime?.sandbox
  const seed = w.options.onSandbox
  if (!sandbox || !seed) return
  void Promise.all(setups).then(async () => {
    try {
      await seed(sandbox, resources)
    } catch (error) {
      w.log.warn({ err: error }, 'sandbox demo seed failed')
    }
  })
}

/**
 * Waits for the campaigns up to the shutdown timeout (releasing the leases itself when passes overrun
 * it), then closes the status, HTTP and the runtime (the forge, flushing its meter; the sandbox; Mongo).
 */
async function stopWorker(w: WorkerState): Promise<void> {
  const { shutdownTimeoutMs } = w.config
  if (!(await settledWithin(Promise.allSettled(w.campaigns), shutdownTimeoutMs, w.clock))) {
    w.log.warn(
      { timeoutMs: shutdownTimeoutMs },
      'passes still running at the shutdown timeout; releasing their leases and stopping anyway',
    )
    // The process is about to exit, so its passes end with it; releasing now spares a successor the TTL.
    await Promise.allSettled(
      [...w.held.values()].map((term) =>
        w.runtime?.store.release(term, { signal: AbortSignal.timeout(5_000) }),
      ),
    )
  }
  await w.clockProbe
  await w.shareLoop
  await w.vacancyLoop
  await w.status?.stop()
  await w.http?.close()
  await w.runtime?.close()
  w.log.info({}, 'leasecron stopped')
}

function enabledNets(w: WorkerState): NetConfig[] {
  return w.config.nets.filter((n) => n.enabled)
}
