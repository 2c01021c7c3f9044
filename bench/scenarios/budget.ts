/**
 * Scenario `budget` (issue 12 §3): what the two shipped nets spend of the installation's REST rate
 * limit, with and without conditional requests, at a stated churn. For churn 0 %, 5 % and 25 % per pass
 * and each mode, a fresh in-process sandbox forge (same seed, so the same repositories, pulls, issues
 * and seeded gating runs), PASSES passes of both nets driven directly (no cron wait; pass k stands for
 * minute k), and before every pass after the first a seeded churn (`admin.churn`, seed + k: the same
 * records change in every mode). Ground truth is the sandbox's: requests, 304s and budget points.
 *
 * Modes: `worker-unconditional` (one forge for every pass, cache off — today's cost), `worker` (one
 * forge, memory cache), `once-memory` (a fresh forge per pass: a cold `leasecron once` process with its
 * own token and an empty memory cache), `once-mongo` (a fresh forge per pass over the shared
 * `forge_cache` collection), and the `once` pair again with a sandbox whose etags survive a token
 * rotation (GitHub does not document which holds; the sandbox's default assumes they do not). The
 * `once` modes are simulated in-process (a fresh forge = a fresh token and memory tier), not
 * child processes: the `once` command rework was not merged when this was written.
 *
 * Per hour figures scale each net's passes to its default schedule (sweeper every minute, board sync
 * every five). Not a latency benchmark; pass times are reported only to weigh the Mongo round trips.
 */
import { MongoClient } from 'mongodb'
import { createForge, type Forge } from '../../src/forge/github-app.js'
import { withLane } from '../../src/forge/lane.js'
import { MongoForgeCacheStore } from '../../src/forge/mongo-forge-cache-store.js'
import { createBoardIssueSync } from '../../src/nets/board-sync/board-issue-sync.js'
import { MemoryBoardStore } from '../../src/nets/board-sync/memory-board-store.js'
import { createMergeGateSweeper } from '../../src/nets/merge-gate/merge-gate-sweeper.js'
import { MemoryGateRunStore } from '../../src/nets/merge-gate/memory-gate-run-store.js'
import { recordGatingRun } from '../../src/nets/merge-gate/record-gating-run.js'
import type { NetLogger, Pass } from '../../src/nets/net.js'
import { generateSandboxFixture } from '../../src/sandbox/sandbox-generator.js'
import { type SandboxForge, sandboxForgeConfig, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { type BenchContext, QUICK, SANDBOX_DATA, sig, table, writeResult } from '../support.js'

export const PASSES = QUICK ? 4 : 10
export const CHURNS = [0, 0.05, 0.25] as const
const GATING_RUNS = 8
const STALE_RUNS = 2
const SWEEPS_PER_HOUR = 60
const BOARD_SYNCS_PER_HOUR = 12
const STATUS_POST = 'POST /repos/:owner/:repo/statuses/:sha'

type ModeName =
  | 'worker-unconditional'
  | 'worker'
  | 'once-memory'
  | 'once-mongo'
  | 'once-memory-stable-etag'
  | 'once-mongo-stable-etag'

interface Mode {
  name: ModeName
  conditional: boolean
  freshForgePerPass: boolean
  mongo: boolean
  etagPerToken: boolean
}

const MODES: Mode[] = [
  {
    name: 'worker-unconditional',
    conditional: false,
    freshForgePerPass: false,
    mongo: false,
    etagPerToken: true,
  },
  { name: 'worker', conditional: true, freshForgePerPass: false, mongo: false, etagPerToken: true },
  { name: 'once-memory', conditional: true, freshForgePerPass: true, mongo: false, etagPerToken: true },
  { name: 'once-mongo', conditional: true, freshForgePerPass: true, mongo: true, etagPerToken: true },
  {
    name: 'once-memory-stable-etag',
    conditional: true,
    freshForgePerPass: true,
    mongo: false,
    etagPerToken: false,
  },
  {
    name: 'once-mongo-stable-etag',
    conditional: true,
    freshForgePerPass: true,
    mongo: true,
    etagPerToken: false,
  },
]

/** One mode at one churn. */
export interface BudgetRun {
  mode: ModeName
  churn: number
  passes: number
  requests: number
  notModified: number
  points: number
  requestsPerHour: number
  notModifiedPerHour: number
  pointsPerHour: number
  /** Work done: synthetic statuses posted and cards written (created, refreshed, moved to done). */
  statusesPosted: number
  cardsWritten: number
  meanPassMs: number
  /** Where the points went, by sandbox route. */
  pointsByRoute: Record<string, number>
}

const silent: NetLogger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as NetLogger

function defaultsOf(options: Record<string, { schema: { parse(value: unknown): unknown } }>) {
  return Object.fromEntries(Object.entries(options).map(([k, o]) => [k, o.schema.parse(undefined)]))
}

async function seededGateStore(now: Date): Promise<MemoryGateRunStore> {
  const store = new MemoryGateRunStore()
  const fixture = generateSandboxFixture(SANDBOX_DATA)
  const open = fixture.repos.flatMap((repo) =>
    repo.pulls
      .filter((p) => p.state === 'open' && !p.merged && p.headSha !== undefined)
      .map((p) => ({ repo: `${repo.owner}/${repo.name}`, pull: p.number!, headSha: p.headSha! })),
  )
  for (const [i, p] of open.slice(0, GATING_RUNS).entries()) {
    // The last STALE runs went silent 40 minutes ago: the sweeper's work is to post their failures.
    const minutesAgo = i >= GATING_RUNS - STALE_RUNS ? 40 : 10
    await recordGatingRun(store, {
      id: `bench-run-${i + 1}`,
      ...p,
      state: 'running',
      updatedAt: new Date(now.getTime() - minutesAgo * 60_000),
    })
  }
  return store
}

/** The board pass's report, read from its log line: cards created, refreshed and moved to done. */
function cardCounter(): { log: NetLogger; written: () => number } {
  let written = 0
  const info = (fields: Record<string, unknown>) => {
    const repos = fields.repos as Array<Record<string, number>> | undefined
    for (const r of repos ?? []) written += (r.created ?? 0) + (r.refreshed ?? 0) + (r.movedToDone ?? 0)
  }
  return { log: { ...silent, info, child: () => ({ ...silent, info }) } as NetLogger, written: () => written }
}

interface Nets {
  /** A new term of each net: once per `once` process, once per run for a worker. */
  terms(): { sweep: Pass; board: Pass }
  /** The board pass's logger, which counts the cards its report says it wrote. */
  boardLog: NetLogger
  cards: () => number
}

async function buildNets(now: Date): Promise<Nets> {
  const sweeperNet = createMergeGateSweeper({ store: await seededGateStore(now) })
  const boardNet = createBoardIssueSync({ store: new MemoryBoardStore() })
  const counter = cardCounter()
  const setup = { db: undefined, log: silent, publicUrl: undefined, now: () => now }
  const sweepOptions = defaultsOf(sweeperNet.options) as never
  const boardOptions = defaultsOf(boardNet.options) as never
  const sweepResources = await sweeperNet.setup({ ...setup, options: sweepOptions })
  const boardResources = await boardNet.setup({ ...setup, options: boardOptions })
  return {
    terms: () => ({
      sweep: sweeperNet.term(sweepResources, { options: sweepOptions, log: silent }),
      board: boardNet.term(boardResources, { options: boardOptions, log: counter.log }),
    }),
    boardLog: counter.log,
    cards: counter.written,
  }
}

async function runMode(
  mode: Mode,
  churn: number,
  shared: MongoForgeCacheStore | undefined,
): Promise<BudgetRun> {
  const sandbox = await startSandboxForge({ generate: { ...SANDBOX_DATA }, etagPerToken: mode.etagPerToken })
  const base = new Date()
  const nets = await buildNets(base)
  const newForge = (): Forge =>
    createForge({
      config: sandboxForgeConfig(sandbox),
      logger: silent,
      retry: { retries: 0 },
      cache: mode.conditional ? (shared === undefined ? {} : { shared }) : { enabled: false },
    })
  let forge: Forge | undefined
  let terms = nets.terms()
  let passMs = 0
  try {
    for (let k = 0; k < PASSES; k++) {
      if (k > 0 && churn > 0) await sandbox.admin.churn({ fraction: churn, seed: 1000 + k })
      if (forge === undefined || mode.freshForgePerPass) {
        await forge?.close()
        forge = newForge()
        if (k > 0) terms = nets.terms()
      }
      const started = performance.now()
      await runPass(forge, terms, k, base, nets.boardLog)
      passMs += performance.now() - started
    }
    await forge?.close()
    return tally(mode, churn, sandbox, nets, passMs)
  } finally {
    await forge?.close()
    await sandbox.close()
  }
}

async function runPass(
  forge: Forge,
  terms: { sweep: Pass; board: Pass },
  k: number,
  base: Date,
  boardLog: NetLogger,
) {
  const startedAt = new Date(base.getTime() + k * 60_000)
  const context = {
    signal: new AbortController().signal,
    log: silent,
    forge: forge.octokit,
    pass: k + 1,
    // One term serves every pass of a mode; each pass serves its own minute.
    fence: 1,
    slot: startedAt,
    startedAt,
    now: () => startedAt,
  }
  await withLane('merge-gate-sweeper', () => terms.sweep(context))
  await withLane('board-issue-sync', () => terms.board({ ...context, log: boardLog }))
}

function tally(mode: Mode, churn: number, sandbox: SandboxForge, nets: Nets, passMs: number): BudgetRun {
  const stats = sandbox.stats()
  const byNet = (pick: (route: string) => boolean) => {
    const entries = stats.entries.filter((e) => pick(e.route))
    return {
      requests: entries.reduce((n, e) => n + e.count, 0),
      notModified: entries.filter((e) => e.status === 304).reduce((n, e) => n + e.count, 0),
      points: entries.reduce((n, e) => n + e.points, 0),
    }
  }
  const board = byNet((r) => /\/issues$|^GET \/installation\/repositories$/.test(r))
  const all = byNet(() => true)
  const sweep = {
    requests: all.requests - board.requests,
    notModified: all.notModified - board.notModified,
    points: all.points - board.points,
  }
  // Per hour at the default schedules: the sweeper's share (and token mints) every minute, the board's every five.
  const hourly = (k: 'requests' | 'notModified' | 'points') =>
    sig((sweep[k] * SWEEPS_PER_HOUR) / PASSES + (board[k] * BOARD_SYNCS_PER_HOUR) / PASSES, 4)
  return {
    mode: mode.name,
    churn,
    passes: PASSES,
    ...all,
    requestsPerHour: hourly('requests'),
    notModifiedPerHour: hourly('notModified'),
    pointsPerHour: hourly('points'),
    statusesPosted: countRequests(stats, { route: STATUS_POST }),
    cardsWritten: nets.cards(),
    meanPassMs: sig(passMs / PASSES, 3),
    pointsByRoute: Object.fromEntries(
      stats.entries.filter((e) => e.points > 0).map((e) => [`${e.route} ${e.status}`, e.points]),
    ),
  }
}

/** Runs every mode at every churn; writes bench/results/budget.json; returns its path. */
export async function runBudget(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const client = new MongoClient(context.mongo.url, { serverSelectionTimeoutMS: 10_000 })
  await client.connect()
  const db = client.db(context.database('budget'))
  const runs: BudgetRun[] = []
  try {
    for (const churn of CHURNS) {
      for (const mode of MODES) {
        const collection = `forge_cache_${mode.name}_${Math.round(churn * 100)}`.replace(/-/g, '_')
        const shared = mode.mongo ? new MongoForgeCacheStore(db, { collection }) : undefined
        await shared?.ensureIndexes()
        const run = await runMode(mode, churn, shared)
        runs.push(run)
        console.log(
          `budget: churn ${churn * 100}% ${mode.name}: ${run.requests} requests, ${run.notModified} 304s, ` +
            `${run.points} points, ${run.statusesPosted} statuses, ${run.cardsWritten} cards, ${run.meanPassMs} ms/pass`,
        )
      }
    }
  } finally {
    await client.close()
  }
  const summary = summarize(runs)
  printTable(runs)
  return writeResult('budget', context, startedAt, {
    inputs: {
      passes: PASSES,
      churns: [...CHURNS],
      sandbox: SANDBOX_DATA,
      gatingRuns: GATING_RUNS,
      modes: MODES,
    },
    runs,
    summary,
  })
}

function summarize(runs: BudgetRun[]) {
  return CHURNS.map((churn) => {
    const at = (mode: ModeName) => runs.find((r) => r.churn === churn && r.mode === mode)!
    const base = at('worker-unconditional')
    const ratio = (mode: ModeName) => (base.points === 0 ? 0 : sig(at(mode).points / base.points, 3))
    const sameWork = runs
      .filter((r) => r.churn === churn)
      .every((r) => r.statusesPosted === base.statusesPosted && r.cardsWritten === base.cardsWritten)
    return {
      churn,
      pointsRatio: ratio('worker'),
      pointsRatioOnceMemory: ratio('once-memory'),
      pointsRatioOnceMongo: ratio('once-mongo'),
      pointsRatioOnceMemoryStableEtag: ratio('once-memory-stable-etag'),
      pointsRatioOnceMongoStableEtag: ratio('once-mongo-stable-etag'),
      mongoMsPerPass: sig(at('once-mongo').meanPassMs - at('once-memory').meanPassMs, 3),
      mongoPointsSavedPerPass: sig((at('once-memory').points - at('once-mongo').points) / PASSES, 3),
      sameWork,
    }
  })
}

function printTable(runs: BudgetRun[]): void {
  const rows = [['churn', 'mode', 'req/h', '304/h', 'points/h', 'statuses', 'cards', 'ms/pass']]
  for (const r of runs) {
    rows.push([
      `${r.churn * 100}%`,
      r.mode,
      String(r.requestsPerHour),
      String(r.notModifiedPerHour),
      String(r.pointsPerHour),
      String(r.statusesPosted),
      String(r.cardsWritten),
      String(r.meanPassMs),
    ])
  }
  console.log(table(rows))
}
