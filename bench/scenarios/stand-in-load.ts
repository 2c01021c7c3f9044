/**
 * Scenario `stand-in-load` (issue 37): does the run's Mongo stand-in carry one replica holding 1,000
 * every-minute nets at the shipped pace (TTL 180 s, so each term renews every 60 s)? For
 * 10 minutes it drives the product's own MongoStore and MongoRunLedger through
 * one MongoClient, as a worker would (each cell: LEASECRON_BENCH_STAND_IN, see `cells`):
 *
 * - at each minute's turn, every net's pass claims its slot and then finishes it, all 1,000 at once (a
 *   worker fires every due pass at the turn and does not queue them toward the store);
 * - at each minute's half, every lease is renewed, all at once (the terms were acquired together at
 *   start, so their renewals stay in one burst);
 * - every second, a `ping` with a 2 s bound says whether the server still answers a fresh command.
 *
 * Every call runs under the bound the worker gives it (the store's 5 s call bound, below ttl/3 = 60 s).
 * It records each operation's latency distribution, the calls that failed or exceeded their bound, the
 * bursts' durations and the pings missed. The settings are the driver's `maxPoolSize`
 * (the worker keeps the driver's default, 100, unless MONGO_URI sets `maxPoolSize`) and the stand-in's own
 * (FerretDB's PostgreSQL `pool_max_conns`, test/support/postgres-cluster.ts). Named-only: it runs the
 * whole window. Not a check: it records what it saw.
 */
import { readFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { MongoStore } from '../../src/lease/mongo-store.js'
import type { LeaseGrant } from '../../src/lease/store.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { DEFAULT_CALL_TIMEOUT_MS } from '../../src/store-call/store-call.js'
import { POOL_MAX_CONNS } from '../../test/support/postgres-cluster.js'
import {
  type BenchContext,
  distribution,
  gitCommit,
  QUICK,
  resultsDir,
  sig,
  sleep,
  table,
  writeResult,
} from '../support.js'

const TTL_MS = 180_000
const MINUTE = 60_000
const OWNER = 'stand-in-load-1'
const PING_BOUND_MS = 2_000

type Op = 'acquire' | 'renew' | 'claim' | 'finish' | 'ping'

/** What one operation saw: each call's latency, and the calls that failed (threw or answered false). */
class Tally {
  readonly latencies = new Map<Op, number[]>()
  readonly failures = new Map<Op, string[]>()
  readonly bursts: { kind: string; at: string; ms: number }[] = []

  async time<T>(op: Op, call: () => Promise<T>, ok: (value: T) => boolean = () => true): Promise<void> {
    const started = performance.now()
    try {
      const value = await call()
      if (!ok(value)) this.fail(op, 'answered false')
    } catch (error) {
      this.fail(op, error instanceof Error ? `${error.name}: ${error.message}` : String(error))
    }
    const list = this.latencies.get(op) ?? []
    list.push(performance.now() - started)
    this.latencies.set(op, list)
  }

  fail(op: Op, why: string): void {
    const list = this.failures.get(op) ?? []
    list.push(why)
    this.failures.set(op, list)
  }
}

/** Runs `count` calls at once and records how long the whole burst took. */
async function burst(tally: Tally, kind: string, count: number, call: (i: number) => Promise<void>) {
  const started = performance.now()
  await Promise.all(Array.from({ length: count }, (_, i) => call(i)))
  tally.bursts.push({ kind, at: new Date().toISOString(), ms: sig(performance.now() - started) })
}

const netName = (i: number) => `load-${String(i).padStart(4, '0')}`

/** One minute's passes: each net claims the minute's slot under its term, then finishes it. */
function passes(tally: Tally, ledger: MongoRunLedger, grants: LeaseGrant[], slot: Date) {
  return burst(tally, 'passes', grants.length, async (i) => {
    const net = netName(i)
    const grant = grants[i]!
    const claim = { net, slot, owner: OWNER, fence: grant.fence, startedAt: new Date() }
    await tally.time('claim', () => ledger.claim(claim), Boolean)
    const finish = { finishedAt: new Date(), outcome: 'ok' as const }
    await tally.time('finish', () => ledger.finish(net, slot, OWNER, grant.fence, finish), Boolean)
  })
}

/** Pings every second until `until`, each bounded by PING_BOUND_MS. */
async function pinger(tally: Tally, client: MongoClient, until: number): Promise<void> {
  while (Date.now() < until) {
    const next = Date.now() + 1_000
    await tally.time('ping', () =>
      client
        .db('admin')
        .command({ ping: 1 }, { timeoutMS: PING_BOUND_MS, signal: AbortSignal.timeout(PING_BOUND_MS) }),
    )
    await sleep(Math.max(0, next - Date.now()))
  }
}

/** Acquires every net's lease at once, as a replica starting alone does. */
async function acquireAll(tally: Tally, store: MongoStore, leases: number): Promise<LeaseGrant[]> {
  const grants: (LeaseGrant | false)[] = []
  await burst(tally, 'acquire', leases, async (i) => {
    await tally.time('acquire', async () => {
      grants[i] = await store.acquire(netName(i), OWNER, new Date(), TTL_MS)
    })
  })
  const held = grants.filter((g): g is LeaseGrant => g !== false && g !== undefined)
  if (held.length !== leases) throw new Error(`stand-in-load: ${held.length} of ${leases} leases acquired`)
  return held
}

/** The window: each minute's passes at its turn and renewals at its half, until `minutes` turns passed. */
async function drive(
  tally: Tally,
  store: MongoStore,
  ledger: MongoRunLedger,
  grants: LeaseGrant[],
  minutes: number,
) {
  const firstTurn = Math.ceil(Date.now() / MINUTE) * MINUTE
  for (let m = 0; m < minutes; m++) {
    const turn = firstTurn + m * MINUTE
    await sleep(Math.max(0, turn - Date.now()))
    await passes(tally, ledger, grants, new Date(turn))
    await sleep(Math.max(0, turn + MINUTE / 2 - Date.now()))
    await burst(tally, 'renewals', grants.length, (i) =>
      tally.time('renew', () => store.renew(grants[i]!, new Date(), TTL_MS), Boolean),
    )
  }
}

function summary(tally: Tally) {
  const ops: Op[] = ['acquire', 'renew', 'claim', 'finish', 'ping']
  return Object.fromEntries(
    ops.map((op) => {
      const latencies = tally.latencies.get(op) ?? []
      const failures = tally.failures.get(op) ?? []
      const bound = op === 'ping' ? PING_BOUND_MS : DEFAULT_CALL_TIMEOUT_MS
      return [
        op,
        {
          ...distribution(latencies.map((l) => sig(l))),
          boundMs: bound,
          overBound: latencies.filter((l) => l > bound).length,
          failed: failures.length,
          firstFailures: [...new Set(failures)].slice(0, 5),
        },
      ]
    }),
  )
}

function print(result: ReturnType<typeof summary>, bursts: Tally['bursts']): void {
  const rows = [['op', 'n', 'median ms', 'p95 ms', 'max ms', 'bound ms', 'over bound', 'failed']]
  for (const [op, r] of Object.entries(result))
    rows.push([
      op,
      String(r.n),
      String(r.medianMs),
      String(r.p95Ms),
      String(r.maxMs),
      String(r.boundMs),
      String(r.overBound),
      String(r.failed),
    ])
  console.log(table(rows))
  const longest = (kind: string) => Math.max(...bursts.filter((b) => b.kind === kind).map((b) => b.ms))
  console.log(`longest burst: passes ${longest('passes')} ms, renewals ${longest('renewals')} ms`)
}

/** One cell: the driver's pool, the leases (each one net), the minutes. */
interface Cell {
  pool: number
  leases: number
  minutes: number
}

/**
 * The cells to run: LEASECRON_BENCH_STAND_IN as `pool×leases×minutes` items (`100x200x1,20x1000x10`), by
 * default the qualification, 1,000 leases for 10 minutes (2 under LEASECRON_BENCH_QUICK) through 20.
 */
function cells(): Cell[] {
  const given = process.env.LEASECRON_BENCH_STAND_IN ?? `20x1000x${QUICK ? 2 : 10}`
  return given.split(',').map((item) => {
    const [pool, leases, minutes] = item.trim().split('x').map(Number)
    if (![pool, leases, minutes].every((n) => Number.isInteger(n) && n! > 0))
      throw new Error(
        `stand-in-load: cell ${JSON.stringify(item)} is not pool×leases×minutes in whole numbers`,
      )
    return { pool: pool!, leases: leases!, minutes: minutes! }
  })
}

/** One cell on a fresh database through its own client. */
async function runCell(context: BenchContext, cell: Cell) {
  const client = new MongoClient(context.mongo.url, { maxPoolSize: cell.pool, socketTimeoutMS: 90_000 })
  const db = client.db(context.database(`stand_in_${cell.pool}_${cell.leases}`))
  const store = new MongoStore(db)
  const ledger = new MongoRunLedger(db)
  const tally = new Tally()
  const startedAt = new Date()
  try {
    await ledger.ensureIndexes()
    const grants = await acquireAll(tally, store, cell.leases)
    const until = Math.ceil(Date.now() / MINUTE) * MINUTE + cell.minutes * MINUTE
    await Promise.all([drive(tally, store, ledger, grants, cell.minutes), pinger(tally, client, until)])
  } finally {
    await client.close()
  }
  const ops = summary(tally)
  console.log(`stand-in-load: driver pool ${cell.pool}, ${cell.leases} leases, ${cell.minutes} min`)
  print(ops, tally.bursts)
  return {
    ...cell,
    command: `LEASECRON_BENCH_STAND_IN=${cell.pool}x${cell.leases}x${cell.minutes} npm run bench -- stand-in-load`,
    startedAt: startedAt.toISOString(),
    commit: gitCommit(),
    loadAverage: loadavg().map((v) => sig(v)),
    ops,
    bursts: tally.bursts,
  }
}

const sameCell = (a: Cell) => (b: Cell) =>
  a.pool === b.pool && a.leases === b.leases && a.minutes === b.minutes

/** The cells an earlier run measured that this one did not: kept, each with its own date and commit. */
async function earlierCells(): Promise<Cell[]> {
  try {
    const earlier = JSON.parse(await readFile(join(resultsDir, 'stand-in-load.json'), 'utf8')) as {
      cells?: Cell[]
    }
    return earlier.cells ?? []
  } catch {
    return []
  }
}

export async function runStandInLoad(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const measured: Awaited<ReturnType<typeof runCell>>[] = []
  for (const cell of cells()) measured.push(await runCell(context, cell))
  const kept = (await earlierCells()).filter((c) => !measured.some(sameCell(c)))
  return writeResult('stand-in-load', context, startedAt, {
    inputs: {
      ttlMs: TTL_MS,
      ferretDbPoolMaxConns: context.mongo.kind === 'ferretdb' ? POOL_MAX_CONNS : null,
      callBoundMs: DEFAULT_CALL_TIMEOUT_MS,
      pingBoundMs: PING_BOUND_MS,
      shape:
        'each minute: every net claims then finishes its slot at the turn, every lease renews at the half, all at once; a ping every second on the same client',
      cells:
        'LEASECRON_BENCH_STAND_IN pool×leases×minutes; cells of earlier runs kept with their own startedAt and commit',
    },
    cells: [...kept, ...measured],
  })
}
