/**
 * Scenario `replicas`: the forge cost of the two shipped nets as the replica count grows, elected (the
 * built CLI, one lease per net in the shared Mongo) and unelected (bench/unelected-worker.mjs: the same
 * nets, each replica with a lease store and ledger of its own, so every replica runs every pass). For N ∈ {1, 2, 5, 10} and each mode: a fresh database with
 * the same seeded gating runs, N worker processes on the same sandbox forge (its own process, the same
 * generated repositories, pull requests and issues), one fixed window of whole sweep intervals, and the
 * sandbox's ground-truth request count by route, charged to the net that owns the route.
 *
 * Not a takeover or latency measurement, and not a check: it records, it does not assert.
 */
import { MongoClient } from 'mongodb'
import { MongoGateRunStore } from '../../src/nets/merge-gate/mongo-gate-run-store.js'
import { recordGatingRun } from '../../src/nets/merge-gate/record-gating-run.js'
import { generateSandboxFixture } from '../../src/sandbox/sandbox-generator.js'
import {
  alignTo,
  type BenchContext,
  type Child,
  NETS,
  QUICK,
  SANDBOX_DATA,
  type SandboxStats,
  sig,
  sleep,
  spawnNode,
  startSandboxProcess,
  table,
  UNELECTED_MAIN,
  WORKER_MAIN,
  workerEnv,
  writeResult,
} from '../support.js'

export const REPLICA_COUNTS = QUICK ? [1, 2] : [1, 2, 5, 10]
/** 60 sweep intervals of 1 s, 12 board-sync intervals of 5 s: whole intervals of both. */
export const WINDOW_MS = QUICK ? 10_000 : 60_000
/** Healthy gating runs seeded per database: each sweep pass reads every one (GET pull, GET status). */
export const GATING_RUNS = 8
const SWEEP_SCHEDULE = '* * * * * *'
const BOARD_SCHEDULE = '*/5 * * * * *'
const NET_NAMES = ['merge-gate-sweeper', 'board-issue-sync'] as const
type NetName = (typeof NET_NAMES)[number]

/** Which net a sandbox route's requests are charged to. */
export function netOfRoute(route: string): NetName | 'auth' | 'other' {
  if (/\/pulls\/:number$|\/commits\/:ref\/status$|\/statuses\/:sha$/.test(route)) return 'merge-gate-sweeper'
  if (/\/issues$|^GET \/installation\/repositories$/.test(route)) return 'board-issue-sync'
  if (route.includes('/app')) return 'auth'
  return 'other'
}

function countByNet(stats: SandboxStats): Record<NetName | 'auth' | 'other', number> {
  const out = { 'merge-gate-sweeper': 0, 'board-issue-sync': 0, auth: 0, other: 0 }
  for (const e of stats.entries) out[netOfRoute(e.route)] += e.count
  return out
}

/** Records GATING_RUNS healthy runs (running, updated 10 min ago, on open pull requests' heads). */
export async function seedGatingRuns(url: string, dbName: string, now: Date): Promise<number> {
  const fixture = generateSandboxFixture(SANDBOX_DATA)
  const open = fixture.repos.flatMap((repo) =>
    repo.pulls
      .filter((p) => p.state === 'open' && !p.merged && p.headSha !== undefined)
      .map((p) => ({ repo: `${repo.owner}/${repo.name}`, pull: p.number!, headSha: p.headSha! })),
  )
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 })
  try {
    await client.connect()
    const store = new MongoGateRunStore(client.db(dbName))
    await store.ensureIndexes()
    const runs = open.slice(0, GATING_RUNS)
    for (const [i, p] of runs.entries()) {
      await recordGatingRun(store, {
        id: `bench-run-${i + 1}`,
        repo: p.repo,
        pull: p.pull,
        headSha: p.headSha,
        state: 'running',
        updatedAt: new Date(now.getTime() - 10 * 60_000),
      })
    }
    return runs.length
  } finally {
    await client.close()
  }
}

interface Window {
  n: number
  mode: 'elected' | 'unelected'
  windowMs: number
  requests: Record<string, number>
  requestsPerHour: Record<string, number>
  passesStarted: Record<string, number>
  electedHolders: Record<string, number>
  statuses: Record<string, number>
}

const keep = (l: { event?: unknown; msg?: unknown; level?: unknown }) =>
  l.event === 'pass-start' ||
  l.msg === 'elected' ||
  l.msg === 'campaigning' ||
  l.level === 'error' ||
  l.level === 50

async function runWindow(
  context: BenchContext,
  sandbox: Awaited<ReturnType<typeof startSandboxProcess>>,
  n: number,
  mode: 'elected' | 'unelected',
): Promise<Window> {
  const dbName = context.database(`replicas_${mode}_${n}`)
  await seedGatingRuns(context.mongo.url, dbName, new Date())
  const env = workerEnv({
    ...sandbox.env,
    MONGO_URI: context.mongo.url,
    MONGO_DB: dbName,
    LEASECRON_NET_MERGE_GATE_SWEEPER_SCHEDULE: SWEEP_SCHEDULE,
    LEASECRON_NET_BOARD_ISSUE_SYNC_SCHEDULE: BOARD_SCHEDULE,
    // Compressed schedules: a pass keeps the time it has on the shipped minute schedule (TIMEOUT defaults
    // to the interval), so the figures measure the same passes.
    LEASECRON_NET_MERGE_GATE_SWEEPER_TIMEOUT: '60s',
    LEASECRON_NET_BOARD_ISSUE_SYNC_TIMEOUT: '60s',
  })
  const workers: Child[] = []
  for (let i = 0; i < n; i++) {
    workers.push(
      mode === 'elected'
        ? spawnNode(`worker-${i + 1}`, WORKER_MAIN, ['run', '--config', NETS.product], env, keep)
        : spawnNode(`worker-${i + 1}`, UNELECTED_MAIN, [NETS.product], env, keep),
    )
  }
  try {
    // Ready: every net has run at least one pass (the board's first, full sync included) on some worker,
    // and in unelected mode on every worker.
    const everyone = mode === 'unelected' ? workers : undefined
    const waitPass = (w: Child, net: NetName) =>
      w.waitFor((l) => l.event === 'pass-start' && l.net === net, 60_000, `a ${net} pass`)
    for (const net of NET_NAMES) {
      if (everyone) await Promise.all(everyone.map((w) => waitPass(w, net)))
      else await Promise.any(workers.map((w) => waitPass(w, net)))
    }
    await sleep(1_000)
    // Windows start half a second past a second, off every tick. A window of a whole number of 5 s holds
    // exactly 60 sweep ticks and 12 board ticks wherever it starts.
    await alignTo(500)
    const start = Date.now()
    await sandbox.resetStats()
    await sleep(WINDOW_MS - (Date.now() - start))
    const stats = await sandbox.stats()
    const end = Date.now()
    const windowMs = end - start
    const requests = countByNet(stats)
    const statuses: Record<string, number> = {}
    for (const e of stats.entries) statuses[String(e.status)] = (statuses[String(e.status)] ?? 0) + e.count
    const passesStarted: Record<string, number> = {}
    const electedHolders: Record<string, number> = {}
    for (const net of NET_NAMES) {
      passesStarted[net] = workers
        .flatMap((w) => w.lines)
        .filter(
          (l) => l.event === 'pass-start' && l.net === net && Number(l.at) >= start && Number(l.at) < end,
        ).length
      // An unelected replica is elected only on its own in-memory store: it holds no shared lease.
      electedHolders[net] =
        mode === 'unelected'
          ? 0
          : workers.filter((w) => w.lines.some((l) => l.msg === 'elected' && l.lease === net)).length
    }
    return {
      n,
      mode,
      windowMs,
      requests,
      requestsPerHour: Object.fromEntries(
        Object.entries(requests).map(([k, v]) => [k, Math.round((v / windowMs) * 3_600_000)]),
      ),
      passesStarted,
      electedHolders,
      statuses,
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop('SIGTERM', 10_000)))
  }
}

const forgeTotal = (w: Window) =>
  w.requestsPerHour['merge-gate-sweeper']! + w.requestsPerHour['board-issue-sync']!

/** Both modes at every replica count, one window each, against one sandbox. */
async function runWindows(context: BenchContext): Promise<Window[]> {
  const sandbox = await startSandboxProcess()
  const windows: Window[] = []
  try {
    for (const n of REPLICA_COUNTS) {
      for (const mode of ['elected', 'unelected'] as const) {
        console.log(`bench replicas: N=${n} ${mode}, ${WINDOW_MS / 1000} s window`)
        windows.push(await runWindow(context, sandbox, n, mode))
      }
    }
  } finally {
    await sandbox.child.stop()
  }
  return windows
}

/** Each count's windows as ratios of the same mode at N = 1, in all and per net. */
function ratiosByN(windows: readonly Window[]) {
  const find = (n: number, mode: Window['mode']) => windows.find((w) => w.n === n && w.mode === mode)!
  const ratio = (w: Window, key?: string) => {
    const b = find(1, w.mode)
    return key === undefined
      ? sig(forgeTotal(w) / forgeTotal(b), 3)
      : sig(w.requestsPerHour[key]! / b.requestsPerHour[key]!, 3)
  }
  return REPLICA_COUNTS.map((n) => {
    const elected = find(n, 'elected')
    const unelected = find(n, 'unelected')
    const perNet = NET_NAMES.map((net) => [
      net,
      { electedRatio: ratio(elected, net), unelectedRatio: ratio(unelected, net) },
    ])
    return {
      n,
      electedRatio: ratio(elected),
      unelectedRatio: ratio(unelected),
      perNet: Object.fromEntries(perNet),
      elected,
      unelected,
    }
  })
}

type ReplicaRow = ReturnType<typeof ratiosByN>[number]

const INPUTS = {
  replicaCounts: REPLICA_COUNTS,
  modes: {
    elected: 'leasecron run --config bench/nets/product.mjs (dist/), one lease per net in the shared Mongo',
    unelected:
      'bench/unelected-worker.mjs: the worker with its lease store, ledger and controls in memory per replica — every replica runs every pass',
  },
  windowMs: WINDOW_MS,
  windowAlignment:
    'starts half a second past a whole second: 60 sweep ticks and 12 board ticks in every window',
  nets: {
    'merge-gate-sweeper': { schedule: SWEEP_SCHEDULE, ttlMs: 3000, retryMs: 1000 },
    'board-issue-sync': { schedule: BOARD_SCHEDULE, ttlMs: 15000, retryMs: 5000, repos: '(all, listed)' },
  },
  seededData: {
    sandbox: SANDBOX_DATA,
    gatingRuns: `${GATING_RUNS} healthy runs (state running, updated 10 min before the run, on open pull requests' heads), recorded per fresh database with recordGatingRun`,
  },
  counting:
    "the sandbox's own stats (GET /_sandbox/stats) reset at the window's start; routes charged to nets: pulls/:number, commits/:ref/status, statuses/:sha → merge-gate-sweeper; issues, installation/repositories → board-issue-sync; /app… → auth (token mints, one per process)",
  ratio: 'requests per hour of both nets (auth excluded) at N ÷ the same at N = 1, per mode',
}

/**
 * One row per N and mode: N, mode, sweeper, board and auth requests per hour, passes started (sweep /
 * board) and the ratio to N = 1. Shared by the console table here and the docs' table (bench/render.ts).
 */
export function replicaCells(byN: readonly ReplicaRow[]): string[][] {
  return byN.flatMap((r) =>
    [r.elected, r.unelected].map((w) => [
      String(r.n),
      w.mode,
      String(w.requestsPerHour['merge-gate-sweeper']),
      String(w.requestsPerHour['board-issue-sync']),
      String(w.requestsPerHour.auth),
      `${w.passesStarted['merge-gate-sweeper']} / ${w.passesStarted['board-issue-sync']}`,
      `${(w.mode === 'elected' ? r.electedRatio : r.unelectedRatio).toFixed(3)}×`,
    ]),
  )
}

function printReplicas(byN: readonly ReplicaRow[]): void {
  const head = ['N', 'mode', 'sweeper req/h', 'board req/h', 'auth req/h', 'passes (sweep/board)', 'ratio']
  console.log(`\n${table([head, ...replicaCells(byN)])}\n`)
}

export async function runReplicas(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const byN = ratiosByN(await runWindows(context))
  const at10 = byN.find((r) => r.n === 10) ?? byN[byN.length - 1]!
  const met = at10.electedRatio <= 1.05
  const path = await writeResult('replicas', context, startedAt, {
    inputs: INPUTS,
    target: { electedRatioAtN10: 1.05, met, measured: at10.electedRatio },
    byN,
  })
  printReplicas(byN)
  console.log(
    `bench replicas: elected ratio at N=10 ${at10.electedRatio} (target ≤ 1.05: ${met ? 'met' : 'MISSED'}), unelected ${at10.unelectedRatio}; wrote ${path}`,
  )
  return path
}
