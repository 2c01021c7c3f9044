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
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { slotAccounting } from '../installations-tally.js'
import { startMongoOpCounter } from '../mongo-op-counter.js'
import {
  type BenchContext,
  type LogLine,
  QUICK,
  repoRoot,
  type SandboxProcess,
  sig,
  spawnNode,
  startSandboxProcess,
  WORKER_MAIN,
  workerEnv,
  writeResult,
} from '../support.js'
import {
  type CellMeasure,
  measureCell,
  type OpCounter,
  type Pace,
  printCells,
  type Worker,
} from './installations-cell.js'

const NETS_FILE = join(repoRoot, 'bench', 'nets', 'per-installation.mjs')
const FIRST_INSTALLATION = 1001

/** The matrix: LEASECRON_BENCH_INSTALLATIONS / LEASECRON_BENCH_REPLICAS (comma lists) override it. */
function matrix(): { installations: number[]; replicas: number[] } {
  const list = (name: string, fallback: number[]) =>
    process.env[name]
      ?.split(',')
      .map((s) => Number(s.trim()))
      .filter((n) => Number.isInteger(n) && n > 0) ?? fallback
  return {
    installations: list('LEASECRON_BENCH_INSTALLATIONS', QUICK ? [10] : [10, 100]),
    replicas: list('LEASECRON_BENCH_REPLICAS', QUICK ? [1, 3] : [1, 3, 10]),
  }
}

/** The compressed pace for N leases: renewals held near 3N/TTL ≤ 50 per second, one slot per TTL. */
export function paceFor(installations: number): Pace {
  const ttlMs = Math.max(3_000, installations * 60)
  const periodS = Math.min(60, ttlMs / 1000)
  return {
    ttlMs,
    retryMs: Math.round(ttlMs / 3),
    periodMs: periodS * 1000,
    schedule: periodS >= 60 ? '0 * * * * *' : `*/${periodS} * * * * *`,
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
function cellEnv(sandbox: SandboxProcess, counter: OpCounter, db: string, pace: Pace, lines: string) {
  const { GITHUB_INSTALLATION_ID: _one, ...app } = sandbox.env
  return workerEnv({
    ...app,
    LEASECRON_FORGE: 'github',
    GITHUB_INSTALLATION_IDS: 'all',
    MONGO_URI: counter.url,
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
  const client = new MongoClient(context.mongo.url, { serverSelectionTimeoutMS: 10_000 })
  await client.connect()
  const env = cellEnv(sandbox, counter, dbName, pace, lines)
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
    const slots = await slotAccounting(client.db(dbName), lines, ids, {
      from: measured.slotsFrom,
      to: measured.slotsTo,
      periodMs: pace.periodMs,
    })
    return { installations, replicas, pace, ...measured.figures, slots }
  } finally {
    await counter.close()
    await client.close()
    await rm(lines, { force: true })
  }
}

export async function runInstallations(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const { installations, replicas } = matrix()
  const cells = []
  for (const n of installations) {
    const sandbox = await startSandboxProcess(undefined, n)
    try {
      for (const r of replicas) {
        console.log(`bench installations: N=${n} R=${r}, pace ${JSON.stringify(paceFor(n))}`)
        const cellStarted = Date.now()
        const cell = await runCell(context, sandbox, n, r)
        cells.push({ ...cell, cellS: sig((Date.now() - cellStarted) / 1000) })
      }
    } finally {
      await sandbox.child.stop()
    }
  }
  const inputs = {
    matrix: { installations, replicas },
    nets: 'bench/nets/per-installation.mjs: one per-installation net, each pass one GET /installation/repositories and one line',
    paces: Object.fromEntries(installations.map((n) => [n, paceFor(n)])),
    fairShare: 'LEASECRON_FAIR_SHARE=on, slack 0',
    installationsMode: 'GITHUB_INSTALLATION_IDS=all (GET /app/installations)',
    leaseModel: 'leases × 3/TTL + replicas × 1/retry (per hour); announcements 2 × replicas / interval',
    balanceGoal: 1.25,
  }
  const path = await writeResult('installations', context, startedAt, { inputs, cells })
  printCells(cells, path)
  return path
}
