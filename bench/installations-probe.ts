/**
 * `node --import tsx/esm bench/installations-probe.ts`: a diagnostic, not a scenario. R built workers act
 * as N sandbox installations (the installations bench's net and pace) on the test Mongo through the op
 * counter, and every PROBE_EVERY_S the store commands of that window are printed by command and collection
 * with their latency (p50 / p95 / max, from the counter's reply matching) and the ledger's size. What it
 * answers: which command slows as the run goes on, and whether it is the burst at each slot or the ledger's
 * growth. It writes nothing and records no result.
 *
 * Environment: PROBE_N (100), PROBE_R (1), PROBE_S (run length, 180), PROBE_EVERY_S (15), PROBE_PRELOAD (old
 * run records per installation written before the workers start, 0: a ledger as it stands after weeks),
 * PROBE_WORKER (the worker bundle to run, dist/bundle/leasecron.js: another build, for a before/after).
 */
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startTestMongo } from '../test/support/mongo-server.js'
import { type MongoOp, startMongoOpCounter } from './mongo-op-counter.js'
import { paceFor } from './scenarios/installations.js'
import {
  percentile,
  repoRoot,
  sleep,
  spawnNode,
  startSandboxProcess,
  stopAll,
  table,
  WORKER_MAIN,
  workerEnv,
} from './support.js'

const N = Number(process.env.PROBE_N ?? 100)
const R = Number(process.env.PROBE_R ?? 1)
const RUN_S = Number(process.env.PROBE_S ?? 180)
const EVERY_S = Number(process.env.PROBE_EVERY_S ?? 15)
const PRELOAD = Number(process.env.PROBE_PRELOAD ?? 0)
const NETS_FILE = join(repoRoot, 'bench', 'nets', 'per-installation.mjs')

/** The window's data commands by `command collection`: count and latency quantiles (ms). */
function windowRows(ops: readonly MongoOp[]): string[][] {
  const by = new Map<string, number[]>()
  for (const op of ops) {
    if (!op.collection || op.command === 'hello' || op.command === 'isMaster') continue
    const key = `${op.command} ${op.collection}`
    const list = by.get(key) ?? []
    list.push(op.ms ?? Number.POSITIVE_INFINITY)
    by.set(key, list)
  }
  return [...by]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, ms]) => {
      const sorted = ms.sort((a, b) => a - b)
      const unanswered = sorted.filter((v) => !Number.isFinite(v)).length
      const q = (p: number) => String(percentile(sorted, p))
      return [key, String(sorted.length), q(50), q(95), q(100), String(unanswered)]
    })
}

/** Old finished runs, `perInstallation` for each installation's net, a minute apart before now. */
async function preload(client: MongoClient, db: string, perInstallation: number): Promise<void> {
  const runs = client.db(db).collection('net_runs')
  const start = Date.now() - perInstallation * 60_000
  for (let i = 0; i < N; i++) {
    const net = `inst-tick:${1001 + i}`
    const docs = Array.from({ length: perInstallation }, (_, k) => {
      const slot = new Date(start + k * 60_000)
      return {
        _id: `${net}@${slot.toISOString()}`,
        ...{ net, slot, owner: 'preload', fence: 1, startedAt: slot, finishedAt: slot, outcome: 'ok' },
        ...{ error: null, requests: null, attempts: 1, installation: 1001 + i },
      }
    })
    // biome-ignore lint/suspicious/noExplicitAny: string ids, as the ledger writes them
    await runs.insertMany(docs as any[])
  }
}

async function main(): Promise<void> {
  const mongo = await startTestMongo()
  const sandbox = await startSandboxProcess(undefined, N)
  const counter = await startMongoOpCounter(mongo.url)
  const client = await new MongoClient(mongo.url, { socketTimeoutMS: 60_000 }).connect()
  const db = `probe_${randomBytes(3).toString('hex')}`
  const pace = paceFor(N)
  const { GITHUB_INSTALLATION_ID: _one, ...app } = sandbox.env
  if (PRELOAD > 0) await preload(client, db, PRELOAD)
  const env = workerEnv({
    ...app,
    ...{ LEASECRON_FORGE: 'github', GITHUB_INSTALLATION_IDS: 'all', MONGO_URI: counter.url, MONGO_DB: db },
    LEASECRON_NET_INST_TICK_SCHEDULE: pace.schedule,
    LEASECRON_NET_INST_TICK_TTL_MS: String(pace.ttlMs),
    LEASECRON_NET_INST_TICK_RETRY_MS: String(pace.retryMs),
    ...(R > 1 ? { LEASECRON_FAIR_SHARE: 'on' } : {}),
  })
  console.log(`probe: ${mongo.description}, N=${N} R=${R} pace ${JSON.stringify(pace)} preload ${PRELOAD}`)
  const main = process.env.PROBE_WORKER ?? WORKER_MAIN
  for (let r = 1; r <= R; r++) spawnNode(`worker-${r}`, main, ['run', '--config', NETS_FILE], env)
  const started = Date.now()
  try {
    while (Date.now() - started < RUN_S * 1000) {
      counter.reset()
      await sleep(EVERY_S * 1000)
      // Replies still in flight are stamped later; a reply slower than a window shows as unanswered.
      await sleep(1_000)
      // A stalled store is a finding, not the probe's end: the count says it did not answer.
      const runs = await client
        .db(db)
        .collection('net_runs')
        .estimatedDocumentCount({ maxTimeMS: 20_000 })
        .catch(() => 'no answer')
      const at = Math.round((Date.now() - started) / 1000)
      console.log(`\nt=${at}s load ${loadavg()[0]!.toFixed(1)} net_runs ${runs}`)
      const head = ['command collection', 'count', 'p50 ms', 'p95 ms', 'max ms', 'unanswered']
      console.log(table([head, ...windowRows(counter.ops())]))
    }
  } finally {
    await stopAll()
    await client.db(db).dropDatabase()
    await client.close()
    await counter.close()
    await mongo.stop()
  }
}

await main()
