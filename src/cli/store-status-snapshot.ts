/**
 * `leasecron status --json`: the same StatusSnapshot a worker answers at `GET /status`, built by a process
 * that is not a replica — from the store (MONGO_URI) alone. So `replica` is `null`, and the figures only a
 * running worker knows (its skipped ticks, the rate-limit headers it saw) are `null` too.
 */
import { shownNets } from '../worker/installation-nets.js'
import type { BadDocument } from '../store-call/bad-document.js'
import { describeBadDocument } from '../worker/bad-documents.js'
import type { WorkerConfig } from '../config/worker-config.js'
import { createLogger } from '../observe/logger.js'
import { openRuntime, type StoreRuntime } from '../worker/runtime.js'
import { collectStatus } from '../status/collect-status.js'
import { MemoryForgeHourStore } from '../forge/meter/memory-forge-hour-store.js'
import { MongoForgeHourStore } from '../forge/meter/mongo-forge-hour-store.js'
import { mongoServerVersion } from '../status/server-version.js'
import type { StatusSnapshot } from '../status/status-snapshot.js'
import type { StatusSources } from '../status/status-sources.js'
import { netPlans } from '../worker/status/worker-status.js'

/**
 * Builds the snapshot from the configured store (opened read-only by worker/runtime.ts); without
 * MONGO_URI there is nothing shared to read.
 */
export async function storeStatusSnapshot(config: WorkerConfig, now: Date): Promise<StatusSnapshot> {
  // Each malformed document read is skipped or shown corrupt, and said once in the snapshot's notes.
  const bad: string[] = []
  const onBadDocument = (document: BadDocument) => bad.push(describeBadDocument(document))
  const log = createLogger({ level: 'silent' })
  const runtime = await openRuntime({ config, parts: 'read', log, onBadDocument })
  try {
    return await snapshotOf(config, runtime, bad, now)
  } finally {
    await runtime.close()
  }
}

async function snapshotOf(
  config: WorkerConfig,
  runtime: StoreRuntime,
  bad: string[],
  now: Date,
): Promise<StatusSnapshot> {
  const bound = () => ({ signal: AbortSignal.timeout(10_000) })
  if (!runtime.mongo) {
    const snapshot = await collectStatus(
      cliSources(config, {
        ping: async () => true,
        serverVersion: async () => null,
        leases: () => runtime.store.list(),
        forgeHours: (window) => new MemoryForgeHourStore().read(window),
      }),
      now,
    )
    snapshot.notes.unshift(
      'no MONGO_URI: leases and forge hours live inside each worker process; ask a worker (GET /status)',
    )
    // The ping above asked this command's own empty memory store, which says nothing of any worker's.
    return { ...snapshot, store: { ...snapshot.store, answering: null } }
  }
  const connection = runtime.mongo
  const onBadDocument = (document: BadDocument) => bad.push(describeBadDocument(document))
  const snapshot = await collectStatus(
    cliSources(config, {
      ping: () => connection.ping(5_000),
      serverVersion: () => mongoServerVersion(connection.db, bound().signal),
      leases: () => runtime.store.list(bound()),
      forgeHours: (window) => new MongoForgeHourStore(connection.db, { onBadDocument }).read(window, bound()),
      history: (net, limit, until) =>
        runtime.ledger.history(net, limit, { ...bound(), until, reportLeftOut: true }),
      controls: (at) => runtime.controls.list(at, bound()),
    }),
    now,
  )
  snapshot.notes.push(...bad)
  return snapshot
}

function cliSources(
  config: WorkerConfig,
  store: Pick<StatusSources, 'ping' | 'serverVersion' | 'leases' | 'forgeHours' | 'history' | 'controls'>,
): StatusSources {
  return {
    replica: null,
    // Per installation when they are listed; under `all` (the command discovers nothing) as configured.
    nets: netPlans(shownNets(config, undefined)),
    storeKind: config.mongo ? 'mongo' : 'memory',
    forgeScope: config.mongo ? 'installation' : 'replica',
    ...store,
  }
}
