/**
 * Scenario `store-load`: what the election costs Mongo. Ten built workers, each with the ten trivial
 * nets of bench/nets/idle-ten.mjs (ten leases, every second: TTL 3 s, retry 1 s), reach Mongo through
 * bench/mongo-op-counter.ts; over a fixed window it counts every OP_MSG the workers send, by command and
 * collection, and sets the lease operations (commands on `leases`) against the model
 * `holders × 3/TTL + candidates × (1/retry + 1/TTL)` per hour — nominal, and with the retry's mean jitter
 * (+10%). A holder renews three times a TTL; a candidate tries to acquire once a retry and reads the lease
 * at most once a TTL to name its holder (the `waiting` line).
 * Driver monitoring (hello heartbeats, handshakes, pings) is counted apart: it is not lease work.
 *
 * Not a latency benchmark (bench/store.ts is) and not a check.
 */
import { classify, kindOf, startMongoOpCounter } from '../mongo-op-counter.js'
import {
  type BenchContext,
  type Child,
  NETS,
  QUICK,
  sig,
  sleep,
  spawnNode,
  startSandboxProcess,
  table,
  WORKER_MAIN,
  workerEnv,
  writeResult,
} from '../support.js'

export const WORKERS = 10
export const NETS_PER_WORKER = 10
export const WINDOW_MS = QUICK ? 10_000 : 45_000
const TTL_MS = 3_000
const RETRY_MS = 1_000
const MEAN_JITTER = 0.1
/** The shipped default pace (a one-minute schedule): TTL 180 s, retry 60 s. */
const PRODUCTION_PACE_MS = 60_000

/** Lease operations per hour the model predicts: renewals, acquire attempts, and waiting reads. */
export function leaseModel(holders: number, candidates: number, ttlMs: number, retryMs: number, jitter = 0) {
  const perMs = holders * (3 / ttlMs) + candidates * (1 / (retryMs * (1 + jitter)) + 1 / ttlMs)
  return Math.round(perMs * 3_600_000)
}

const keep = (l: { msg?: unknown; level?: unknown }) =>
  l.msg === 'elected' || l.msg === 'campaigning' || l.level === 'error'

type OpCounter = Awaited<ReturnType<typeof startMongoOpCounter>>

/** Waits until every lease has a holder and every worker campaigns for every net. */
async function waitSettled(workers: readonly Child[]): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const campaigning = workers.reduce((n, w) => n + w.lines.filter((l) => l.msg === 'campaigning').length, 0)
    const held = new Set(
      workers.flatMap((w) => w.lines.filter((l) => l.msg === 'elected').map((l) => l.lease)),
    )
    if (campaigning === WORKERS * NETS_PER_WORKER && held.size === NETS_PER_WORKER) return
    if (Date.now() > deadline)
      throw new Error(`store-load: not settled (${campaigning} campaigns, ${held.size} held)`)
    await sleep(200)
  }
}

function leaseModelFigures(leaseOpsPerHour: number) {
  const holders = NETS_PER_WORKER
  const candidates = NETS_PER_WORKER * (WORKERS - 1)
  const nominalPerHour = leaseModel(holders, candidates, TTL_MS, RETRY_MS)
  const withMeanJitterPerHour = leaseModel(holders, candidates, TTL_MS, RETRY_MS, MEAN_JITTER)
  return {
    formula: 'holders × 3/TTL + candidates × (1/retry + 1/TTL) (per hour)',
    holders,
    candidates,
    nominalPerHour,
    withMeanJitterPerHour,
    leaseOverNominal: sig(leaseOpsPerHour / nominalPerHour, 3),
    leaseOverJitterModel: sig(leaseOpsPerHour / withMeanJitterPerHour, 3),
  }
}

/** Counts every OP_MSG over one quiet window and sets the lease operations against the model. */
async function measureWindow(workers: readonly Child[], counter: OpCounter) {
  await sleep(3_000)
  counter.reset()
  const start = Date.now()
  await sleep(WINDOW_MS)
  const ops = counter.ops().slice()
  const windowMs = Date.now() - start
  const perHour = (n: number) => Math.round((n / windowMs) * 3_600_000)
  const { byKind, byCommand } = classify(ops)
  const isLeaseCommand = (key: string) =>
    kindOf({ command: key.split(' ')[0]!, collection: key.split(' ')[1] }) === 'lease'
  const leaseOpsPerHour = perHour(byKind.lease)
  const model = leaseModelFigures(leaseOpsPerHour)
  const elected = (w: Child) => w.lines.filter((l) => l.msg === 'elected')
  return {
    windowMs,
    opsInWindow: ops.length,
    perHour: {
      all: perHour(ops.length),
      lease: leaseOpsPerHour,
      monitoring: perHour(byKind.monitoring),
      session: perHour(byKind.session),
      data: perHour(byKind.data),
    },
    leaseByCommandPerHour: Object.fromEntries(
      Object.entries(byCommand)
        .filter(([key]) => isLeaseCommand(key))
        .map(([key, n]) => [key, perHour(n)]),
    ),
    byCommandInWindow: byCommand,
    model,
    atProductionPace: {
      note: 'lease operations scale with 1/pace; monitoring does not. The default one-minute schedule has TTL 180 s, retry 60 s.',
      modelNominalPerHour: leaseModel(
        model.holders,
        model.candidates,
        3 * PRODUCTION_PACE_MS,
        PRODUCTION_PACE_MS,
      ),
      measuredLeaseScaledPerHour: Math.round(leaseOpsPerHour * (RETRY_MS / PRODUCTION_PACE_MS)),
      monitoringPerHour: perHour(byKind.monitoring),
    },
    electionsDuringWindow: workers.flatMap((w) =>
      elected(w).filter((l) => Date.parse(String(l.time)) >= start),
    ).length,
    leasesHeldPerWorker: workers.map((w) => new Set(elected(w).map((l) => l.lease)).size),
    droppedOps: counter.dropped(),
  }
}

type StoreLoadResult = Awaited<ReturnType<typeof measureWindow>>

const INPUTS = {
  workers: WORKERS,
  netsPerWorker: NETS_PER_WORKER,
  nets: 'bench/nets/idle-ten.mjs: ten passes that do nothing, ten leases',
  schedule: '* * * * * * (every second)',
  ttlMs: TTL_MS,
  retryMs: RETRY_MS,
  retryJitter: 'uniform 0–20% (mean +10%)',
  windowMs: WINDOW_MS,
  counting:
    'bench/mongo-op-counter.ts: a TCP proxy between the workers and Mongo counting client→server OP_MSG by the first key of section 0 (the command) and its string value (the collection); lease = any command on `leases`; monitoring = hello/isMaster/ping/buildInfo/auth and legacy OP_QUERY handshakes',
  forge: 'the sandbox process is configured as the GitHub App; the nets never call it',
}

function printStoreLoad(r: StoreLoadResult, path: string): void {
  const rows = [
    ['what', 'ops/hour'],
    ['lease operations (measured)', String(r.perHour.lease)],
    ...Object.entries(r.leaseByCommandPerHour).map(([k, v]) => [`  ${k}`, String(v)]),
    ['model, nominal retry', String(r.model.nominalPerHour)],
    ['model, mean jitter (+10%)', String(r.model.withMeanJitterPerHour)],
    ['driver monitoring (hello, ping…)', String(r.perHour.monitoring)],
    ['session housekeeping', String(r.perHour.session)],
    ['other data commands', String(r.perHour.data)],
    ['all OP_MSG', String(r.perHour.all)],
  ]
  console.log(`\n${table(rows)}\n`)
  console.log(
    `bench store-load: lease ops ${r.model.leaseOverNominal}× the nominal model, ${r.model.leaseOverJitterModel}× with mean jitter; wrote ${path}`,
  )
}

export async function runStoreLoad(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const counter = await startMongoOpCounter(context.mongo.url)
  const dbName = context.database('store_load')
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  const env = workerEnv({ ...sandbox.env, MONGO_URI: counter.url, MONGO_DB: dbName })
  const args = ['run', '--config', NETS.idleTen]
  const workers = Array.from({ length: WORKERS }, (_, i) =>
    spawnNode(`worker-${i + 1}`, WORKER_MAIN, args, env, keep),
  )
  let result: StoreLoadResult
  try {
    await waitSettled(workers)
    result = await measureWindow(workers, counter)
  } finally {
    await Promise.all(workers.map((w) => w.stop('SIGTERM', 10_000)))
    await counter.close()
    await sandbox.child.stop()
  }
  const path = await writeResult('store-load', context, startedAt, { inputs: INPUTS, ...result })
  printStoreLoad(result, path)
  return path
}
