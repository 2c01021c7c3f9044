/**
 * The six systems of the peers scenario, each as its documented set-up: which store it needs, the script
 * one of its processes runs (bench/peers/*.mjs, or the leasecron worker with bench/nets/peers-minute.mjs),
 * its version, the docs page its set-up follows, and its settings. Data only — the scenario spawns them.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot, WORKER_MAIN } from './support.js'

export type StoreKind = 'redis' | 'postgres' | 'ferret'

/** Where a system's processes find their store, filled in once the stores are up. */
export interface StoreAddresses {
  redisPort?: number
  postgresUrl?: (db: string) => string
  mongoUrl?: (label: string) => string
  /** The sandbox forge's variables (the leasecron worker reads them at start; the net sends no request). */
  forgeEnv: Record<string, string>
}

export interface PeerSystem {
  name: string
  store: StoreKind
  version: string
  docs: string
  settings: string
  script: string
  args: string[]
  env(addresses: StoreAddresses): Record<string, string>
  /**
   * Its first process is started, and ready, before the others: a system whose set-up races itself on a
   * fresh store (pg-boss's schema install deadlocked in PostgreSQL twice with three processes at once).
   */
  firstAlone?: boolean
}

const peerScript = (file: string) => join(repoRoot, 'bench', 'peers', file)
const versionOf = (pkg: string) =>
  String(JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')).version)
const ownVersion = () => String(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version)
const mongoDb = (addresses: StoreAddresses, label: string) => {
  const url = new URL(addresses.mongoUrl!(label))
  url.pathname = `/bench_peers_${label.replace(/\W/g, '_')}`
  return url.href
}

/** leasecron's worker with the peers net; `extra` sets the variant's variables. */
function leasecronSystem(name: string, catchUp: string, extra: Record<string, string>): PeerSystem {
  const label = name.replace(/\W+/g, '_')
  return {
    name,
    store: 'ferret',
    version: `leasecron ${ownVersion()}`,
    docs: 'docs/configuration.md (one net, schedule `* * * * *`)',
    settings: `TTL 30 s, retry 30 s (the shipped pacing of a one-minute schedule, docs/decisions/0005), ${catchUp}`,
    script: WORKER_MAIN,
    args: ['run', '--config', join(repoRoot, 'bench', 'nets', 'peers-minute.mjs')],
    env: (a) => ({
      PORT: '0',
      LOG_LEVEL: 'info',
      ...a.forgeEnv,
      ...extra,
      BENCH_PEERS_SYSTEM: name,
      MONGO_URI: a.mongoUrl!(name),
      MONGO_DB: `bench_peers_${label}`,
    }),
  }
}

/** Each system's set-up, in the docs' order; versions are read from node_modules when the module loads. */
export const PEER_SYSTEMS: readonly PeerSystem[] = [
  leasecronSystem('leasecron', 'CATCH_UP latest (the default)', {}),
  leasecronSystem(
    'leasecron CATCH_UP=all',
    'CATCH_UP all (set: runs every slot that fell due while no replica held the lease, up to 10)',
    {
      LEASECRON_NET_BENCH_TICK_CATCH_UP: 'all',
    },
  ),
  {
    name: 'node-cron',
    store: 'ferret',
    version: `node-cron ${versionOf('node-cron')} + leaseCoordinator`,
    docs: 'docs/library.md "One fire per process with node-cron"',
    settings: 'distributed: true, distributedLease 90 s (≥ the gap between fires), lease store + run ledger',
    script: peerScript('node-cron-worker.mjs'),
    args: [],
    env: (a) => ({ BENCH_MONGO_URL: a.mongoUrl!('node-cron'), BENCH_MONGO_DB: 'bench_peers_node_cron' }),
  },
  {
    name: 'agenda',
    store: 'ferret',
    version: `agenda ${versionOf('agenda')} + @agendajs/mongo-backend ${versionOf('@agendajs/mongo-backend')}`,
    docs: 'github.com/agenda/agenda README ("Example Usage", every)',
    settings: 'every("* * * * *") from each process, processEvery 5 s and lock lifetime 10 min (defaults)',
    script: peerScript('agenda-worker.mjs'),
    args: [],
    env: (a) => ({ BENCH_MONGO_URL: mongoDb(a, 'agenda') }),
  },
  {
    name: 'bullmq',
    store: 'redis',
    version: `bullmq ${versionOf('bullmq')} + ioredis ${versionOf('ioredis')}`,
    docs: 'docs.bullmq.io/guide/job-schedulers, /guide/going-to-production',
    settings:
      'upsertJobScheduler("bench-tick", { pattern: "* * * * *" }) from each process, one Worker each (concurrency 1), maxRetriesPerRequest null',
    script: peerScript('bullmq-worker.mjs'),
    args: [],
    env: (a) => ({ BENCH_REDIS_PORT: String(a.redisPort) }),
  },
  {
    name: 'pg-boss',
    store: 'postgres',
    version: `pg-boss ${versionOf('pg-boss')}`,
    docs: 'github.com/timgit/pg-boss docs (README, "schedule")',
    settings:
      'createQueue + schedule("* * * * *") + work() from each process, the first started alone (three at once deadlock its schema install); cron monitor 30 s, polling 2 s (defaults)',
    script: peerScript('pg-boss-worker.mjs'),
    firstAlone: true,
    args: [],
    env: (a) => ({ BENCH_PG_URL: a.postgresUrl!('pgboss') }),
  },
  {
    name: 'graphile-worker',
    store: 'postgres',
    version: `graphile-worker ${versionOf('graphile-worker')}`,
    docs: 'worker.graphile.org/docs/library/run, /docs/cron',
    settings:
      'run({ taskList, crontab: "* * * * * bench_tick" }) in each process; no backfill, concurrency 1, poll 2 s (defaults)',
    script: peerScript('graphile-worker.mjs'),
    args: [],
    env: (a) => ({ BENCH_PG_URL: a.postgresUrl!('graphile') }),
  },
]
