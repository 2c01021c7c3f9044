/**
 * Scenario `installations` (issue 25, "Measure"): one GitHub App with N installations on the sandbox forge
 * and R built worker processes acting as all of them (`GITHUB_INSTALLATION_IDS=all`, discovered through
 * `GET /app/installations`) with `LEASECRON_FAIR_SHARE=on`, on the run's Mongo through the op counter. The
 * net is bench/nets/per-installation.mjs: one lease per installation, each pass one forge request and one
 * line in a file. Each cell (N, R) measures:
 *
 * - the holdings balance (max ÷ min leases per live replica, from the `leases` collection) 3 TTLs after
 *   start, 3 TTLs after one more replica joins, and 3 TTLs after one is SIGKILLed (the one holding most);
 * - the takeover: from the SIGKILL until every lease the killed replica held is held by another;
 * - store operations per hour ÷ leases over a steady window, beside the model
 *   `leases × 3/TTL + replicas × 1/retry` (lease commands) and `2 × replicas / interval` (announcements);
 * - every slot of every installation: run once (the passes' lines), duplicates, misses, and the ledger;
 * - forge requests per installation per hour (the sandbox's own counts), in the window and over the cell.
 *
 * The pace is compressed and scaled with N so the store keeps up (`paceFor`). Named-only: it runs
 * ~10 minutes. Not a check: it records what it saw.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { slotAccounting } from '../installations-tally.js'
import { startMongoOpCounter } from '../mongo-op-counter.js'
import {
  type BenchContext,
  gitCommit,
  type LogLine,
  QUICK,
  repoRoot,
  resultsDir,
  type SandboxProcess,
  sig,
  spawnNode,
  startSandboxProcess,
  WORKER_MAIN,
  poolShare,
  withPoolShare,
  workerEnv,
  writeResult,
} from '../support.js'
import {
  type CellMeasure,
  measureCell,
  type OpCounter,
  type Pace,
  printCells,
  retried,
  type Worker,
} from './installations-cell.js'

const NETS_FILE = join(repoRoot, 'bench', 'nets', 'per-installation.mjs')
const FIRST_INSTALLATION = 1001
/** What this machine sustained, for the JSON (bench/NOTES.md has the runs behind it). */
const SUSTAINED =
  'FerretDB 1.24 over PostgreSQL, fair share on: N = 10 (R = 1, 3, 10), 12, 30, 100 (R = 3, 10) and 1,000 (R = 3, 10; see the cells) on a quiet machine, once the stores stopped holding its pool (bench/NOTES.md, 2026-12-06). Before that, N = 100 did not complete on either backend: on SQLite the ledger scans and the burst of claims, on PostgreSQL the forge meter’s bulk writes holding every pool connection'

/**
 * The cells (N installations × R replicas) run, in order. By default only N = 10 (R = 1, 3, 10: about
 * 3 min); N = 100 takes ~7 min a cell and N = 1,000 ~13 min, so they are asked for by name:
 * LEASECRON_BENCH_CELLS (`100x3,100x10,1000x3`) overrides the default, and the cells an earlier run
 * measured are kept (withEarlierCells).
 */
function matrix(): Array<{ installations: number; replicas: number }> {
  const fallback = QUICK ? '10x1,10x3' : '10x1,10x3,10x10'
  return (process.env.LEASECRON_BENCH_CELLS ?? fallback)
    .split(',')
    .map((cell) => cell.trim().split('x').map(Number))
    .filter(([n, r]) => Number.isInteger(n) && Number.isInteger(r) && n! > 0 && r! > 0)
    .map(([installations, replicas]) => ({ installations: installations!, replicas: replicas! }))
}

/** TTLs (s) whose slot period divides a minute, so an every-p-seconds schedule fires evenly. */
const TTL_STEPS_S = [3, 4, 5, 6, 10, 12, 15, 20, 30, 60]

/**
 * The compressed pace for N leases: the shortest TTL of TTL_STEPS_S at least N × 300 ms (renewals, 3N/TTL,
 * stay ≤ 10 a second up to N = 100; 50 at N = 1,000, capped at a minute), retry TTL/3, one slot per TTL.
 * N × 100 ms (TTL 10 s at N = 100) was tried first: FerretDB on this loaded machine interrupted the
 * renewals and the terms collapsed (bench/NOTES.md).
 */
export function paceFor(installations: number): Pace {
  const ttlS = TTL_STEPS_S.find((s) => s * 1000 >= installations * 300) ?? 60
  return {
    ttlMs: ttlS * 1000,
    retryMs: Math.round((ttlS * 1000) / 3),
    periodMs: ttlS * 1000,
    schedule: ttlS >= 60 ? '0 * * * * *' : `*/${ttlS} * * * * *`,
  }
}

/** The term and share lines each worker's count keeps (by message; `renewal got no answer…` by prefix). */
const COUNTED = [
  'elected',
  'released',
  'lost to another owner',
  'stepping down: no renewal it can prove',
  'fair share: live replicas changed',
  'fair share: holding more than the share, stepping down from the newest terms after their passes',
  'renewal got no answer',
]

/**
 * Spawns one worker; retains its first owner-bearing line and its first 20 errors, and counts the
 * COUNTED lines without keeping them (a long cell stays small).
 */
function spawnWorker(label: string, env: Record<string, string>): Worker {
  let owner = false
  const counts: Record<string, number> = { errors: 0 }
  const keep = (l: LogLine) => {
    const msg = String(l.msg)
    const counted = COUNTED.find((m) => msg.startsWith(m))
    if (counted) counts[counted] = (counts[counted] ?? 0) + 1
    if (l.level === 'error' || l.level === 'fatal') return ++counts.errors! <= 20
    if (owner || typeof l.owner !== 'string') return false
    owner = true
    return true
  }
  return Object.assign(spawnNode(label, WORKER_MAIN, ['run', '--config', NETS_FILE], env, keep), {
    counts: () => counts,
  })
}

/** What one cell needs to start replicas: their environment and a fresh database. */
function cellEnv(
  sandbox: SandboxProcess,
  counter: OpCounter,
  db: string,
  pace: Pace,
  lines: string,
  replicas: number,
) {
  const { GITHUB_INSTALLATION_ID: _one, ...app } = sandbox.env
  return workerEnv({
    ...app,
    LEASECRON_FORGE: 'github',
    GITHUB_INSTALLATION_IDS: 'all',
    // The replicas plus the one that joins share the stand-in's pool (bench/scenarios/stand-in-load.ts).
    MONGO_URI: withPoolShare(counter.url, replicas + 1),
    MONGO_DB: db,
    LEASECRON_FAIR_SHARE: 'on',
    LEASECRON_NET_INST_TICK_SCHEDULE: pace.schedule,
    LEASECRON_NET_INST_TICK_TTL_MS: String(pace.ttlMs),
    LEASECRON_NET_INST_TICK_RETRY_MS: String(pace.retryMs),
    BENCH_PASS_LINES: lines,
  })
}

/** One cell (N, R) on its own database and lines file; the sandbox (N installations) is shared per N. */
async function runCell(
  context: BenchContext,
  sandbox: SandboxProcess,
  installations: number,
  replicas: number,
) {
  const pace = paceFor(installations)
  const dbName = context.database(`inst_${installations}_${replicas}`)
  const lines = join(tmpdir(), `leasecron-inst-${randomBytes(4).toString('hex')}.jsonl`)
  const counter = await startMongoOpCounter(context.mongo.url)
  const client = new MongoClient(context.mongo.url, {
    maxPoolSize: poolShare(replicas + 1),
    serverSelectionTimeoutMS: 10_000,
    // A stalled store (FerretDB under N = 100 at TTL 30 s stopped answering, its pool starved by replicas
    // holding more connections than it has: see withPoolShare) must not hang the bench.
    socketTimeoutMS: 40_000,
  })
  await client.connect()
  const env = cellEnv(sandbox, counter, dbName, pace, lines, replicas)
  const ids = Array.from({ length: installations }, (_, i) => FIRST_INSTALLATION + i)
  let spawned = 0
  const spawn = () => spawnWorker(`worker-${installations}x${replicas}-${++spawned}`, env)
  try {
    const cell: CellMeasure = {
      installations,
      replicas,
      pace,
      db: client.db(dbName),
      counter,
      sandbox,
      spawn,
    }
    const measured = await measureCell(cell)
    const slots = await retried(() =>
      slotAccounting(client.db(dbName), lines, ids, {
        from: measured.slotsFrom,
        to: measured.slotsTo,
        periodMs: pace.periodMs,
      }),
    )
    return { installations, replicas, pace, ...measured.figures, slots }
  } finally {
    await counter.close()
    await client.close()
    await rm(lines, { force: true })
  }
}

/** Runs the cells in order, one sandbox (N installations) for the consecutive cells of the same N. */
async function runCells(context: BenchContext, cells: ReturnType<typeof matrix>) {
  const results = []
  const unfinished: { cell: string; afterS: number; error: string }[] = []
  let sandbox: { n: number; process: SandboxProcess } | undefined
  try {
    for (const { installations: n, replicas: r } of cells) {
      if (sandbox?.n !== n) {
        await sandbox?.process.child.stop()
        sandbox = { n, process: await startSandboxProcess(undefined, n) }
      }
      console.log(
        `bench installations: N=${n} R=${r}, pace ${JSON.stringify(paceFor(n))}, load ${loadavg()[0]!.toFixed(1)}`,
      )
      const cellStarted = Date.now()
      const loadBefore = loadavg().map((v) => sig(v, 3))
      try {
        const cell = await runCell(context, sandbox.process, n, r)
        const loadAfter = loadavg().map((v) => sig(v, 3))
        results.push({
          ...cell,
          cellS: sig((Date.now() - cellStarted) / 1000),
          loadAverage: { before: loadBefore, after: loadAfter },
        })
      } catch (error) {
        // One cell that cannot be sustained does not lose the others: it is recorded with what stopped it.
        console.error(`bench installations: ${n} × ${r} did not complete: ${String(error)}`)
        unfinished.push({
          cell: `${n}x${r}`,
          afterS: sig((Date.now() - cellStarted) / 1000),
          error: String(error),
        })
      }
    }
  } finally {
    await sandbox?.process.child.stop()
  }
  return { results, unfinished }
}

// biome-ignore lint/suspicious/noExplicitAny: the cells of an earlier run, as its JSON holds them
type EarlierCell = Record<string, any>

/**
 * The cells an earlier run measured that this one did not: kept, each with its own run (date, commit,
 * command; a cell written before cells carried theirs gets its file's), so one sitting need not re-run
 * every N. Sorted with this run's by N, then R.
 */
async function withEarlierCells(measured: EarlierCell[]): Promise<EarlierCell[]> {
  let kept: EarlierCell[] = []
  try {
    const earlier = JSON.parse(await readFile(join(resultsDir, 'installations.json'), 'utf8'))
    const fileRun = { measuredAt: earlier.generatedAt, commit: earlier.commit, command: earlier.command }
    kept = ((earlier.cells ?? []) as EarlierCell[])
      .filter((c) => !measured.some((m) => m.installations === c.installations && m.replicas === c.replicas))
      .map((c) => ({ ...c, run: c.run ?? fileRun }))
  } catch {
    // No earlier file (or an unreadable one): this run's cells alone.
  }
  return [...kept, ...measured].sort((a, b) => a.installations - b.installations || a.replicas - b.replicas)
}

export async function runInstallations(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const chosen = matrix()
  const { results, unfinished } = await runCells(context, chosen)
  const run = { measuredAt: new Date(startedAt).toISOString(), commit: gitCommit(), command: context.command }
  const cells = await withEarlierCells(results.map((cell) => ({ ...cell, run })))
  const ns = [...new Set(cells.map((c) => c.installations as number))]
  const inputs = {
    cells: chosen.map((c) => `${c.installations}x${c.replicas}`),
    keptFromEarlierRuns: cells.filter((c) => c.run !== run).map((c) => `${c.installations}x${c.replicas}`),
    nets: 'bench/nets/per-installation.mjs: one per-installation net, each pass one GET /installation/repositories and one line',
    paces: Object.fromEntries(ns.map((n) => [n, paceFor(n)])),
    fairShare: 'LEASECRON_FAIR_SHARE=on, slack 0',
    installationsMode: 'GITHUB_INSTALLATION_IDS=all (GET /app/installations)',
    phases:
      'start (3 TTLs) · steady window (max(20 s, 4 TTLs): ops and forge counted) · one replica joins (3 TTLs) · the one holding most SIGKILLed (3 TTLs)',
    leaseModel: 'leases × 3/TTL + replicas × 1/retry (per hour); announcements 2 × replicas / interval',
    balanceGoal: 1.25,
    largestSustained: SUSTAINED,
    unfinished,
  }
  const path = await writeResult('installations', context, startedAt, { inputs, cells })
  printCells(cells, path)
  return path
}
