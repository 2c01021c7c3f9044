/**
 * The status of one running worker: its status sources (store, leases, ledger, meter, registry) and, with
 * Mongo, the sampler that copies the meter's last 24 hours of this replica's forge spend into
 * `forge_hours` every 15 s (and at each hour's end), so every replica's page draws the whole
 * installation's spend. Without Mongo the meter's own memory is the record.
 *
 * Not the HTTP route (http.ts serves what `snapshot()` returns) and not a writer of anything but its own
 * forge-hour rows, and those only on the sampler's clock: reading the status writes nothing. The
 * snapshot is shared for a second (shared-snapshot.ts), and the server's version is read once.
 */
import type { Registry } from 'prom-client'
import type { ForgeMeter } from '../../forge/meter/meter.js'
import type { OnBadDocument } from '../../store-call/bad-document.js'
import type { Clock, TimerHandle } from '../../lease/clock.js'
import type { LeaseStore } from '../../lease/store.js'
import type { RunLedger } from '../../runs/run-ledger.js'
import type { NetConfig, WorkerConfig } from '../../config/worker-config.js'
import type { Logger } from '../../observe/logger.js'
import type { MongoConnection } from '../mongo-connection.js'
import { collectStatus } from '../../status/collect-status.js'
import { HOUR_MS, hourStart, hoursWindow, sumRows } from '../../forge/meter/forge-hour-store.js'
import { rowsFromMeter } from '../../forge/meter/meter-hours.js'
import { ForgeHourWriter } from '../../forge/meter/forge-hour-writer.js'
import { MongoForgeHourStore } from '../../forge/meter/mongo-forge-hour-store.js'
import { packageVersion } from '../../status/package-version.js'
import { rateLimitsFromRegistry, skippedTicksFromRegistry } from '../../status/registry-figures.js'
import { mongoServerVersion } from '../../status/server-version.js'
import { sharedSnapshot } from '../../status/shared-snapshot.js'
import type { StatusSnapshot } from '../../status/status-snapshot.js'
import type { StatusNetPlan, StatusSources } from '../../status/status-sources.js'
import type { NetControlStore } from '../../control/net-control-store.js'

/** What the worker hands over; getters, because the store, Mongo and forge exist only once it started. */
export interface WorkerStatusOptions {
  owner: string
  config: WorkerConfig
  /**
   * The nets the page lists, asked at every snapshot (under GITHUB_INSTALLATION_IDS=all the installations
   * change while the worker runs); `config.nets` when absent.
   */
  nets?: () => readonly NetConfig[]
  registry: Registry
  clock: Clock
  log: Logger
  store(): LeaseStore | undefined
  mongo(): MongoConnection | undefined
  meter(): ForgeMeter | undefined
  ledger?: () => RunLedger | undefined
  /** The nets' controls (paused, run requests), once the runtime is open. */
  controls?: () => NetControlStore | undefined
  /** Where a malformed `forge_hours` document read for the page is reported (once), then skipped. */
  onBadDocument?: OnBadDocument
}

export interface WorkerStatus {
  /**
   * The shared snapshot, at most about a second old (shared-snapshot.ts); never rejects (failed sources
   * become null and a note). Reads the store, never writes to it.
   */
  snapshot(): Promise<StatusSnapshot>
  /** The next snapshot is collected afresh (a net's controls just changed). */
  invalidate(): void
  /** Starts copying the meter's hours to Mongo every 15 s and at each hour's end. */
  start(): void
  /** Stops sampling and writes the last sample. */
  stop(): Promise<void>
}

/** How often the forge hours are copied to Mongo between hour ends. */
export const SAMPLE_EVERY_MS = 15_000

/** Builds the worker's status; nothing runs until `start()`. */
export function createWorkerStatus(options: WorkerStatusOptions): WorkerStatus {
  const { clock } = options
  const startedAt = clock.now()
  const writer = new ForgeHourWriter(options.owner)
  const sample = () => storeForgeHours(options, writer)
  let timer: TimerHandle | undefined
  let stopped = false
  const schedule = () => {
    if (stopped) return
    const now = clock.now().getTime()
    const toHourEnd = hourStart(now) + HOUR_MS - now
    timer = clock.setTimeout(
      () => {
        sample()
          .catch((error: unknown) => options.log.debug({ err: error }, 'status: forge hours not stored'))
          .finally(schedule)
      },
      Math.min(SAMPLE_EVERY_MS, toHourEnd + 1),
    )
  }
  const sources = workerSources(options, startedAt)
  const snapshot = sharedSnapshot(() => collectStatus(sources, clock.now()), clock)
  return {
    snapshot,
    invalidate: snapshot.invalidate,
    start: schedule,
    async stop() {
      stopped = true
      if (timer !== undefined) clock.clearTimeout(timer)
      await sample().catch(() => undefined)
    },
  }
}

/**
 * With Mongo, writes what changed in this replica's last 24 hours (the meter keeps them) to `forge_hours`
 * and, in the first 15 s of an hour, deletes hours older than a day. Without Mongo there is nothing to share.
 */
async function storeForgeHours(options: WorkerStatusOptions, writer: ForgeHourWriter): Promise<void> {
  const mongo = options.mongo()
  const meter = options.meter()
  if (!mongo || !meter) return
  const store = new MongoForgeHourStore(mongo.db)
  await writer.write(store, rowsFromMeter(meter.hourly()))
  const now = options.clock.now().getTime()
  // Rows dated ahead go too: another program's, or a replica's whose clock ran far ahead.
  if (now - hourStart(now) < SAMPLE_EVERY_MS) await store.prune(hoursWindow(now))
}

function workerSources(options: WorkerStatusOptions, startedAt: Date): StatusSources {
  const { config, registry } = options
  const bound = () => ({ signal: AbortSignal.timeout(SOURCE_BOUND_MS) })
  const ledger = options.ledger
  const serverVersion = onceAnswered(async () => {
    if (!config.mongo) return null
    const mongo = options.mongo()
    // Not yet connected (the HTTP port opens first): no answer to keep; the next snapshot asks again.
    if (!mongo) throw new Error('the Mongo connection is not open yet')
    return mongoServerVersion(mongo.db, bound().signal)
  })
  return {
    replica: { owner: options.owner, version: packageVersion(), startedAt: startedAt.toISOString() },
    admin: { enabled: config.adminToken !== undefined },
    get nets() {
      return netPlans(options.nets?.() ?? config.nets)
    },
    storeKind: config.mongo ? 'mongo' : 'memory',
    forgeScope: config.mongo ? 'installation' : 'replica',
    ping: async () => {
      const mongo = options.mongo()
      if (!mongo) return options.store() !== undefined
      return mongo.ping(1_000)
    },
    serverVersion,
    leases: async () => (await options.store()?.list(bound())) ?? [],
    ...(ledger
      ? {
          history: async (net: string, limit: number, until: Date) =>
            (await ledger()?.history(net, limit, { ...bound(), until, reportLeftOut: true })) ?? [],
        }
      : {}),
    ...(options.controls
      ? { controls: async (now: Date) => (await options.controls?.()?.list(now, bound())) ?? [] }
      : {}),
    forgeHours: async (window) => {
      const mongo = options.mongo()
      const own = rowsFromMeter(options.meter()?.hourly() ?? []).filter(
        (r) => r.hour >= window.since.getTime() && r.hour <= window.until.getTime(),
      )
      if (!mongo) return own
      // The other replicas' stored rows plus this replica's own from its meter: current to the second
      // without writing (its stored rows are up to one sample old).
      const others = await forgeHourReader(mongo, options.onBadDocument).read(window, {
        ...bound(),
        except: options.owner,
      })
      return sumRows([...others, ...own])
    },
    rateLimits: () => rateLimitsFromRegistry(registry),
    skippedTicks: () => skippedTicksFromRegistry(registry),
  }
}

/** How long one status source may take before its part becomes a note (collect-status.ts). */
export const SOURCE_BOUND_MS = 2_000

/**
 * `read` answered once, then that answer forever: the server's version does not change under a running
 * process (a failed read is retried at the next call). Hand-written: a memo of one promise.
 */
function onceAnswered<T>(read: () => Promise<T>): () => Promise<T> {
  let answered: Promise<T> | undefined
  return () => {
    answered ??= read().catch((error: unknown) => {
      answered = undefined
      throw error
    })
    return answered
  }
}

const readers = new WeakMap<MongoConnection, MongoForgeHourStore>()

/** One reader per connection, so a malformed document is reported once, not on every page view. */
function forgeHourReader(mongo: MongoConnection, onBadDocument: OnBadDocument | undefined) {
  let reader = readers.get(mongo)
  if (!reader) {
    reader = new MongoForgeHourStore(mongo.db, onBadDocument ? { onBadDocument } : {})
    readers.set(mongo, reader)
  }
  return reader
}

/** The nets as the page lists them, each with the zone its schedule is read in. */
export function netPlans(nets: readonly NetConfig[]): StatusNetPlan[] {
  return nets.map((n) => ({
    name: n.definition.name,
    leaseName: n.definition.lease,
    ...(n.installation === undefined ? {} : { installation: n.installation }),
    enabled: n.enabled,
    schedule: n.schedule,
    ...(n.dayMatch === undefined ? {} : { dayMatch: n.dayMatch }),
    timeZone: n.timeZone,
    ...(n.minDurationMs === undefined ? {} : { minDurationMs: n.minDurationMs }),
    ...(n.maxDurationMs === undefined ? {} : { maxDurationMs: n.maxDurationMs }),
    ...(n.startAt === undefined ? {} : { startAt: n.startAt }),
    ...(n.endAt === undefined ? {} : { endAt: n.endAt }),
    ...(n.maxRuns === undefined ? {} : { maxRuns: n.maxRuns }),
  }))
}
