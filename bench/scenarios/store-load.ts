/**
 * Scenario `store-load`: what the election costs Mongo. Ten built workers, each with the ten trivial
 * nets of bench/nets/idle-ten.mjs (ten leases, every second: TTL 3 s, retry 1 s), reach Mongo through
 * bench/mongo-op-counter.ts; over a fixed window it counts every OP_MSG the workers send, by command and
 * collection, and sets the lease operations (commands on `leases`) against the model
 * `leases × 3/TTL + replicas × 1/retry` per hour (issue 25): a holder renews each lease three times a TTL,
 * and each replica reads the vacant leases once a retry interval instead of polling every lease it does
 * not hold (the model before, `holders × 3/TTL + candidates × (1/retry + 1/TTL)`, is printed beside it).
 * The fair share's announcements (`replicas`: one upsert and one find per replica per interval) are
 * counted apart.
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

/** Lease operations per hour the model predicts: renewals of every lease, one vacancy read per replica. */
export function leaseModel(leases: number, replicas: number, ttlMs: number, retryMs: number) {
  return Math.round((leases * (3 / ttlMs) + replicas / retryMs) * 3_600_000)
}

/** The model before issue 25: renewals, every candidate's acquire per retry, and waiting reads. */
export function pollingModel(
  holders: number,
  candidates: number,
  ttlMs: number,
  retryMs: number,
  jitter = 0,
) {
  const perMs = holders * (3 / ttlMs) + candidates * (1 / (retryMs * (1 + jitter)) + 1 / ttlMs)
  return Math.round(perMs * 3_600_000)
}

/** The fair share's operations per hour: each replica's announcement and read of the live replicas. */
export function replicaModel(replicas: number, retryMs: number) {
  return Math.round(((2 * replicas) / retryMs) * 3_600_000)
}

/** Why terms end during the window: the fair share's step-downs and replica count, the deadline, a loss. */
const ENDINGS = [
  'stepping down: this replica holds more than its fair share',
  'stepping down: no renewal it can prove',
  'lost to another owner',
  'fair share: live replicas changed',
]

/** Why nobody is elected: a store slower than ttl/3 (the acquire's bound), or the clock guard holding back. */
const UNELECTED = ['lease store not answering: this candidate', 'clock guard: not campaigning']

const keep = (l: { msg?: unknown; level?: unknown }) =>
  l.msg === 'elected' ||
  l.msg === 'campaigning' ||
  l.level === 'error' ||
  ENDINGS.includes(String(l.msg)) ||
  UNELECTED.some((p) => String(l.msg).startsWith(p))

/** How many lines of each UNELECTED kind the workers printed: the likely cause when nothing settles. */
function unelectedLines(workers: readonly Child[]): string {
  return UNELECTED.map(
    (p) =>
      `${workers.reduce((n, w) => n + w.lines.filter((l) => String(l.msg).startsWith(p)).length, 0)} × "${p}…"`,
  ).join(', ')
}

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
      throw new Error(
        `store-load: not settled (${campaigning} campaigns, ${held.size} held; ${unelectedLines(workers)})`,
      )
    await sleep(200)
  }
}

function leaseModelFigures(leaseOpsPerHour: number) {
  const holders = NETS_PER_WORKER
  const candidates = NETS_PER_WORKER * (WORKERS - 1)
  const nominalPerHour = leaseModel(NETS_PER_WORKER, WORKERS, TTL_MS, RETRY_MS)
  // The vacancy read is not jittered, and no acquire is sent while every lease is held: one model.
  const withMeanJitterPerHour = nominalPerHour
  return {
    formula: 'leases × 3/TTL + replicas × 1/retry (per hour)',
    holders,
    candidates,
    nominalPerHour,
    withMeanJitterPerHour,
    pollingModelPerHour: pollingModel(holders, candidates, TTL_MS, RETRY_MS, MEAN_JITTER),
    replicaModelPerHour: replicaModel(WORKERS, RETRY_MS),
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
    replicaOpsPerHour: perHour(
      Object.entries(byCommand)
        .filter(([key]) => key.split(' ')[1] === 'replicas')
        .reduce((n, [, count]) => n + count, 0),
    ),
    leaseByCommandPerHour: Object.fromEntries(
      Object.entries(byCommand)
        .filter(([key]) => isLeaseCommand(key))
        .map(([key, n]) => [key, perHour(n)]),
    ),
    byCommandInWindow: byCommand,
    model,
    atProductionPace: {
      note: 'lease operations scale with 1/pace; monitoring does not. The default one-minute schedule has TTL 180 s, retry 60 s.',
      modelNominalPerHour: leaseModel(NETS_PER_WORKER, WORKERS, 3 * PRODUCTION_PACE_MS, PRODUCTION_PACE_MS),
      measuredLeaseScaledPerHour: Math.round(leaseOpsPerHour * (RETRY_MS / PRODUCTION_PACE_MS)),
      monitoringPerHour: perHour(byKind.monitoring),
    },
    electionsDuringWindow: workers.flatMap((w) =>
      elected(w).filter((l) => Date.parse(String(l.time)) >= start),
    ).length,
    linesDuringWindow: Object.fromEntries(
      ENDINGS.map((msg) => [
        msg,
        workers.flatMap((w) => w.lines.filter((l) => l.msg === msg && Date.parse(String(l.time)) >= start))
          .length,
      ]),
    ),
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
    ['model: leases × 3/TTL + replicas × 1/retry', String(r.model.nominalPerHour)],
    ['model before #25 (every candidate polls every lease)', String(r.model.pollingModelPerHour)],
    [
      'fair-share announcements (replicas), measured / model',
      `${r.replicaOpsPerHour} / ${r.model.replicaModelPerHour}`,
    ],
    ['driver monitoring (hello, ping…)', String(r.perHour.monitoring)],
    ['session housekeeping', String(r.perHour.session)],
    ['other data commands', String(r.perHour.data)],
    ['all OP_MSG', String(r.perHour.all)],
  ]
  console.log(`\n${table(rows)}\n`)
  console.log(`bench store-load: lease ops ${r.model.leaseOverNominal}× the model; wrote ${path}`)
}

export async function runStoreLoad(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const counter = await startMongoOpCounter(context.mongo.url)
  const dbName = context.database('store_load')
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  // The fair share (and its vacancy read) is opt-in; this scenario measures the model it brings.
  const env = workerEnv({
    ...sandbox.env,
    MONGO_URI: counter.url,
    MONGO_DB: dbName,
    LEASECRON_FAIR_SHARE: 'on',
  })
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
