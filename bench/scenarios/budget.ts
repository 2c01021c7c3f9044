/**
 * Scenario `budget` (docs/decisions/0002): what the two shipped nets spend of the installation's REST rate
 * limit, with and without conditional requests, at a stated churn. For churn 0 %, 5 % and 25 % per pass
 * and each mode, a fresh in-process sandbox forge (same seed, so the same repositories, pulls, issues
 * and seeded gating runs), a mix's passes of both nets driven directly (no cron wait; pass k stands for
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
 * Mixes: `shipped` runs each net at its shipped cadence — a pass is one minute, the sweeper runs every
 * pass and the board sync every BOARD_EVERY-th — over the replicas scenario's GATING_RUNS; every mode runs
 * it and `pointsRatio` is its figure. `board-every-pass` is the mix this scenario first measured (the board
 * sync on every pass), kept for the two modes of its ratio so the older 0.324 stays reproducible. The mix
 * matters because the board's issue list carries a `since` watermark that moves every pass, so it never
 * revalidates: run more often than shipped, its points weigh more than they do in production, where the
 * sweeper is ~95 % of the requests.
 *
 * Per hour figures scale each net's passes to its default schedule (sweeper every minute, board sync
 * every five). Not a latency benchmark; pass times are reported only to weigh the Mongo round trips.
 */
import type { Logger } from '../../src/logger.js'
import { type Db, MongoClient } from 'mongodb'
import { createForge, type Forge } from '../../src/forge/client/github-app.js'
import { withLane } from '../../src/forge/lane.js'
import { MongoForgeCacheStore } from '../../src/forge/cache/mongo-forge-cache-store.js'
import { createBoardIssueSync } from '../../src/nets/board-sync/board-issue-sync.js'
import { MemoryBoardStore } from '../../src/nets/board-sync/memory-board-store.js'
import { createMergeGateSweeper } from '../../src/nets/merge-gate/merge-gate-sweeper.js'
import { MemoryGateRunStore } from '../../src/nets/merge-gate/memory-gate-run-store.js'
import { recordGatingRun } from '../../src/nets/merge-gate/record-gating-run.js'
import type { Pass } from '../../src/nets/net.js'
import { generateSandboxFixture } from '../../src/sandbox/sandbox-generator.js'
import { type SandboxForge, sandboxForgeConfig, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import type { SandboxRequestLogEntry } from '../../src/sandbox/sandbox-request-log.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { accountPoints, type PointsLedger, type Touch, touchedByChurn } from '../points-ledger.js'
import { type BenchContext, QUICK, SANDBOX_DATA, sig, table, writeResult } from '../support.js'
import { GATING_RUNS } from './replicas.js'

export const CHURNS = [0, 0.05, 0.25] as const
/** The last STALE_RUNS of the seeded runs went silent: posting their failures is the sweeper's writes. */
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

type MixName = 'shipped' | 'board-every-pass'

/** How often each net runs: a pass is one minute; the sweeper runs every pass, the board every `boardEvery`. */
interface Mix {
  name: MixName
  label: string
  passes: number
  boardEvery: number
  /** The modes run in this mix (undefined: every mode). */
  modes?: readonly ModeName[]
}

export const MIXES: readonly Mix[] = [
  {
    name: 'shipped',
    label: `shipped cadence (board every 5th pass), ${GATING_RUNS} gating runs`,
    passes: QUICK ? 5 : 20,
    boardEvery: 5,
  },
  {
    name: 'board-every-pass',
    label: `board every pass, ${GATING_RUNS} gating runs`,
    passes: QUICK ? 4 : 10,
    boardEvery: 1,
    modes: ['worker-unconditional', 'worker'],
  },
]

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
  mix: MixName
  mode: ModeName
  churn: number
  passes: number
  boardPasses: number
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
  /** Points of the term's first, cold pass (once per term). */
  coldPassPoints: number
  /** Points of every pass after the first. */
  steadyPoints: number
  /** Where the points went, by sandbox route. */
  pointsByRoute: Record<string, number>
  /** Every point by route and reason, and the floor (`bench/points-ledger.ts`). */
  ledger: PointsLedger
}

const silent: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
  child: () => silent,
}

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
function cardCounter(): { log: Logger; written: () => number } {
  let written = 0
  const info = (fields: object) => {
    const repos = (fields as { repos?: unknown }).repos as Array<Record<string, number>> | undefined
    for (const r of repos ?? []) written += (r.created ?? 0) + (r.refreshed ?? 0) + (r.movedToDone ?? 0)
  }
  const log: Logger = { ...silent, info, child: () => log }
  return { log, written: () => written }
}

interface Nets {
  /** A new term of each net: once per `once` process, once per run for a worker. */
  terms(): { sweep: Pass; board: Pass }
  /** The board pass's logger, which counts the cards its report says it wrote. */
  boardLog: Logger
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
  mix: Mix,
  mode: Mode,
  churn: number,
  shared: MongoForgeCacheStore | undefined,
): Promise<BudgetRun> {
  // Each churn round stamps its changes at least two seconds after the last (GitHub's updated_at has whole
  // seconds): on the bare wall clock, a fast mode's rounds could share a second, so an issue touched twice
  // would read unchanged and the modes' work would differ by timing alone.
  let skewMs = 0
  const sandbox = await startSandboxForge({
    generate: { ...SANDBOX_DATA },
    etagPerToken: mode.etagPerToken,
    clock: () => new Date(Date.now() + skewMs),
  })
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
  const marks: Marks = { passStarts: [], termStarts: [], boardPasses: [], touches: [] }
  const position = () => sandbox.stats().total
  try {
    for (let k = 0; k < mix.passes; k++) {
      skewMs = k * 2_000
      if (k > 0 && churn > 0) {
        const changed = await sandbox.admin.churn({ fraction: churn, seed: 1000 + k })
        marks.touches.push({ seq: position(), paths: touchedByChurn(changed), own: false })
      }
      if (forge === undefined || mode.freshForgePerPass) {
        await forge?.close()
        forge = newForge()
        if (k > 0) terms = nets.terms()
        marks.termStarts.push(position())
      }
      marks.passStarts.push(position())
      const started = performance.now()
      const board = k % mix.boardEvery === 0
      marks.boardPasses.push(board)
      await runPass(forge, terms, k, base, board ? nets.boardLog : undefined)
      passMs += performance.now() - started
    }
    await forge?.close()
    return tally({ mix, mode, churn, passMs, marks }, sandbox, nets)
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
  /** The board pass's logger, or undefined when the board sync does not run this minute. */
  boardLog: Logger | undefined,
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
    // The bench's passes read no history: each minute is a tick's first attempt.
    reason: 'tick' as const,
    attempt: 1,
    upcoming: [new Date(startedAt.getTime() + 60_000)],
  }
  await withLane('merge-gate-sweeper', () => terms.sweep(context))
  if (boardLog !== undefined)
    await withLane('board-issue-sync', () => terms.board({ ...context, log: boardLog }))
}

/** Where in the sandbox's request log each pass and term began, which passes ran the board, what churned. */
interface Marks {
  passStarts: number[]
  termStarts: number[]
  boardPasses: boolean[]
  touches: Touch[]
}

interface Measured {
  mix: Mix
  mode: Mode
  churn: number
  passMs: number
  marks: Marks
}

const isBoardRoute = (route: string) => /\/issues$|^GET \/installation\/repositories$/.test(route)

function tally(m: Measured, sandbox: SandboxForge, nets: Nets): BudgetRun {
  const { mix, mode, churn, passMs, marks } = m
  const stats = sandbox.stats()
  const log = sandbox.requestLog()
  if (log.dropped > 0) throw new Error(`budget: the sandbox's request log dropped ${log.dropped} entries`)
  const ledger = accountPoints({ entries: log.entries, ...marks })
  const all = {
    requests: stats.total,
    notModified: stats.notModified,
    points: stats.points,
  }
  return {
    mix: mix.name,
    mode: mode.name,
    churn,
    passes: mix.passes,
    boardPasses: marks.boardPasses.filter(Boolean).length,
    ...all,
    ...perHour(log.entries, marks, mix),
    coldPassPoints: ledger.perPass[0] ?? 0,
    steadyPoints: ledger.perPass.slice(1).reduce((n, p) => n + p, 0),
    statusesPosted: countRequests(stats, { route: STATUS_POST }),
    cardsWritten: nets.cards(),
    meanPassMs: sig(passMs / mix.passes, 3),
    pointsByRoute: Object.fromEntries(
      stats.entries.filter((e) => e.points > 0).map((e) => [`${e.route} ${e.status}`, e.points]),
    ),
    ledger,
  }
}

/**
 * Per hour at the default schedules, from the passes after the first: the sweeper's requests (and token
 * mints) every minute, the board's every five. The term's first pass is left out: it is cold once per term
 * (a worker's term lasts as long as it holds the lease), not once per run of this scenario, so scaling it
 * with the rest counted it three times an hour. `coldPassPoints` reports it, per term.
 */
function perHour(entries: SandboxRequestLogEntry[], marks: Marks, mix: Mix) {
  const from = marks.passStarts[1] ?? Number.POSITIVE_INFINITY
  const steady = entries.filter((e) => e.seq >= from)
  const sweepPasses = mix.passes - 1
  const boardPasses = marks.boardPasses.slice(1).filter(Boolean).length
  const sum = (board: boolean, pick: (e: SandboxRequestLogEntry) => boolean) =>
    steady.filter((e) => isBoardRoute(e.route) === board && pick(e)).length
  const hourly = (pick: (e: SandboxRequestLogEntry) => boolean) =>
    sig(
      (sum(false, pick) * SWEEPS_PER_HOUR) / Math.max(1, sweepPasses) +
        (boardPasses === 0 ? 0 : (sum(true, pick) * BOARD_SYNCS_PER_HOUR) / boardPasses),
      4,
    )
  return {
    requestsPerHour: hourly(() => true),
    notModifiedPerHour: hourly((e) => e.status === 304),
    pointsPerHour: hourly((e) => e.spent),
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
    for (const mix of MIXES) {
      for (const churn of CHURNS) {
        for (const mode of MODES.filter((m) => mix.modes === undefined || mix.modes.includes(m.name))) {
          runs.push(await runLogged(db, mix, mode, churn))
        }
      }
    }
  } finally {
    await client.close()
  }
  const summary = summarize(runs)
  printTable(runs)
  return writeResult('budget', context, startedAt, {
    inputs: {
      churns: [...CHURNS],
      sandbox: SANDBOX_DATA,
      gatingRuns: GATING_RUNS,
      staleGatingRuns: STALE_RUNS,
      mixes: MIXES,
      modes: MODES,
    },
    runs,
    summary,
  })
}

/** One mode at one churn in one mix, on a fresh sandbox; logs its totals. */
async function runLogged(db: Db, mix: Mix, mode: Mode, churn: number): Promise<BudgetRun> {
  const collection = `forge_cache_${mix.name}_${mode.name}_${Math.round(churn * 100)}`.replace(/-/g, '_')
  const shared = mode.mongo ? new MongoForgeCacheStore(db, { collection }) : undefined
  await shared?.ensureIndexes()
  const run = await runMode(mix, mode, churn, shared)
  console.log(
    `budget: ${mix.name} churn ${churn * 100}% ${mode.name}: ${run.requests} requests, ${run.notModified} 304s, ` +
      `${run.points} points, ${run.statusesPosted} statuses, ${run.cardsWritten} cards, ${run.meanPassMs} ms/pass`,
  )
  return run
}

/** Points with conditional requests ÷ without, and whether every mode did the same work, per mix and churn. */
function summarize(runs: BudgetRun[]) {
  return CHURNS.map((churn) => {
    const inMix = (mix: MixName) => runs.filter((r) => r.churn === churn && r.mix === mix)
    const at = (mode: ModeName, mix: MixName = 'shipped') => inMix(mix).find((r) => r.mode === mode)!
    const ratioIn = (mode: ModeName, mix: MixName) => {
      const base = at('worker-unconditional', mix)
      return base.points === 0 ? 0 : sig(at(mode, mix).points / base.points, 3)
    }
    const ratio = (mode: ModeName) => ratioIn(mode, 'shipped')
    const sameWorkIn = (mix: MixName) => {
      const base = at('worker-unconditional', mix)
      return inMix(mix).every(
        (r) => r.statusesPosted === base.statusesPosted && r.cardsWritten === base.cardsWritten,
      )
    }
    const steady = (mode: ModeName) => {
      const base = at('worker-unconditional')
      return base.steadyPoints === 0 ? 0 : sig(at(mode).steadyPoints / base.steadyPoints, 3)
    }
    return {
      churn,
      pointsRatio: ratio('worker'),
      pointsRatioSteady: steady('worker'),
      coldPassPoints: at('worker').coldPassPoints,
      floor: at('worker').ledger.floor,
      steadyFloor: at('worker').ledger.steadyFloor,
      floorRatio: sig(at('worker').ledger.floor / at('worker-unconditional').points, 3),
      steadyFloorRatio: sig(
        at('worker').ledger.steadyFloor / Math.max(1, at('worker-unconditional').steadyPoints),
        3,
      ),
      pointsRatioOnceMongoSteady: steady('once-mongo'),
      pointsRatioBoardEveryPass: ratioIn('worker', 'board-every-pass'),
      pointsRatioOnceMemory: ratio('once-memory'),
      pointsRatioOnceMongo: ratio('once-mongo'),
      pointsRatioOnceMemoryStableEtag: ratio('once-memory-stable-etag'),
      pointsRatioOnceMongoStableEtag: ratio('once-mongo-stable-etag'),
      mongoMsPerPass: sig(at('once-mongo').meanPassMs - at('once-memory').meanPassMs, 3),
      mongoPointsSavedPerPass: sig(
        (at('once-memory').points - at('once-mongo').points) / at('once-mongo').passes,
        3,
      ),
      sameWork: sameWorkIn('shipped'),
      sameWorkBoardEveryPass: sameWorkIn('board-every-pass'),
    }
  })
}

function printTable(runs: BudgetRun[]): void {
  const rows = [['mix', 'churn', 'mode', 'req/h', '304/h', 'points/h', 'statuses', 'cards', 'ms/pass']]
  for (const r of runs) {
    rows.push([
      r.mix,
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
