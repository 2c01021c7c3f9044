/**
 * What every chaos test file shares: the suite's own FerretDB and a sandbox forge per file, a scenario
 * runner that checks the invariants every scenario must keep, and the report in bench/results/chaos.json.
 */
import { setTimeout as delay } from 'node:timers/promises'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import {
  accountSlots,
  check,
  type CheckOptions,
  type LedgerEntry,
  type SlotAccounting,
  type Verdict,
} from './checker.js'
import { type Cluster, createCluster, RETRY, TTL } from './cluster.js'
import { type ChaosMongo, startChaosMongo } from './ferret-server.js'

/** How long a scenario's cluster runs on after its body (its last fault healed): three passes. */
const SETTLE_AFTER_LAST_FAULT_MS = 3_000
const REPORT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results', 'chaos.json')

export interface Env {
  mongo: ChaosMongo
  sandbox: SandboxForge
}

/** Starts the file's Mongo and sandbox; writes the file's scenarios into the report after it. */
export function chaosEnvironment(): { env: Env; results: Map<string, ScenarioReport> } {
  const env = {} as Env
  const results = new Map<string, ScenarioReport>()
  beforeAll(async () => {
    const buildError = inject('buildError')
    if (buildError) throw new Error(`dist/ could not be built, so no worker can run: ${buildError}`)
    env.mongo = await startChaosMongo()
    env.sandbox = await startSandboxForge({
      generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 7 },
    })
  })
  afterAll(async () => {
    await env.sandbox?.close()
    await env.mongo?.stop()
    if (results.size > 0) writeReport(results)
  })
  return { env, results }
}

export interface ScenarioReport {
  trials: number
  faults: string[]
  overlaps: {
    count: number
    maxMs: number
    expected: number
    unexpected: number
    ferretDbDoubleWins: number
    list: Verdict['overlaps']
  }
  unexpectedOverlaps: number
  passOverlaps: number
  /** Slots more than one pass started for (from the passes' own start lines; must be 0). */
  doubleRunSlots: number
  /** Slots run again by a later term because their pass was cut off with its holder (term/retake.ts). */
  retakenSlots: number
  /** Distinct slots run, and the sandbox's own count of the passes' forge requests in the scenario. */
  slotsRun: number
  sandboxPassRequests: number
  takeoverMs: Verdict['takeoverMs']
  takeovers: number[]
  stepDownLagMs: Verdict['stepDownLagMs']
  leaderlessMs: number
  longestLeaderlessMs: number
  terms: number
  passes: number
  passErrors: number
  passesAfterDeadline: number
  passesWhileUnreachable: number
  unhandledRejections: number
  unexpectedExits: number
  measuredSkewMs?: Record<string, number>
  /** Slots accounted ÷ slots scheduled: every slot of the span with one ledger record carrying an outcome. */
  slotsAccounted: SlotAccounting
  durationMs: number
  notes?: string
}

export interface ScenarioRun {
  cluster: Cluster
  /** Instants from which takeovers are timed. */
  takeovers: NonNullable<CheckOptions['takeovers']>
  trials: number
  notes?: string
}

/**
 * Runs `body` against a fresh cluster, stops it, checks the traces and asserts what every scenario must
 * keep; returns the verdict for the scenario's own assertions.
 */
export async function runScenario(
  name: string,
  env: Env,
  results: Map<string, ScenarioReport>,
  body: (run: ScenarioRun) => Promise<void>,
  options: { takeoverBoundMs?: number } = {},
): Promise<Verdict> {
  const startedAt = Date.now()
  const cluster = createCluster({ mongo: env.mongo, sandbox: env.sandbox, label: name })
  const run: ScenarioRun = { cluster, takeovers: [], trials: 0 }
  let verdict: Verdict
  // The sandbox's ground truth for this scenario: each chaos pass sends one GET /rate_limit.
  env.sandbox.resetStats()
  try {
    await body(run)
    // A claim sent into a blackhole lands when the fault heals, which ends the last trial: the cluster runs
    // on for a few passes, as production would, so the pass that closes such a claim (close-unfinished.ts)
    // is inside the scenario's span rather than after it.
    await delay(SETTLE_AFTER_LAST_FAULT_MS)
  } finally {
    const traces = await cluster.stop()
    // The raw traces, for reading a failure: one JSON file per scenario in the temp directory.
    const dump = join(os.tmpdir(), 'leasecron-chaos', `${name}.json`)
    mkdirSync(dirname(dump), { recursive: true })
    writeFileSync(dump, JSON.stringify({ faults: cluster.faults, traces }))
    verdict = check(traces, cluster.faults, { ttlMs: TTL, takeovers: run.takeovers })
    const slotsAccounted = accountSlots(await readLedger(env.mongo.url, cluster.db))
    const report: ScenarioReport = {
      trials: run.trials,
      faults: cluster.faults.map((f) => f.kind),
      overlaps: {
        count: verdict.overlapCount,
        maxMs: verdict.overlapMaxMs,
        expected: verdict.expectedOverlaps,
        unexpected: verdict.unexpectedOverlaps,
        ferretDbDoubleWins: verdict.ferretDbDoubleWins,
        list: verdict.overlaps,
      },
      unexpectedOverlaps: verdict.unexpectedOverlaps,
      passOverlaps: verdict.passOverlaps,
      doubleRunSlots: verdict.doubleRunSlots,
      retakenSlots: verdict.retakenSlots,
      slotsRun: verdict.slotsRun,
      sandboxPassRequests: countRequests(env.sandbox.stats(), { route: 'GET /rate_limit' }),
      takeoverMs: verdict.takeoverMs,
      takeovers: verdict.takeovers,
      stepDownLagMs: verdict.stepDownLagMs,
      leaderlessMs: verdict.leaderlessMs,
      longestLeaderlessMs: verdict.longestLeaderlessMs,
      terms: verdict.terms,
      passes: verdict.passes,
      passErrors: verdict.passErrors,
      passesAfterDeadline: verdict.passesAfterDeadline,
      passesWhileUnreachable: verdict.passesWhileUnreachable,
      unhandledRejections: verdict.unhandledRejections.length,
      unexpectedExits: verdict.unexpectedExits.length,
      ...(cluster.workers.some((w) => w.skewMs !== 0) ? { measuredSkewMs: verdict.measuredSkewMs } : {}),
      slotsAccounted,
      durationMs: Date.now() - startedAt,
      ...(run.notes ? { notes: run.notes } : {}),
    }
    results.set(name, report)
    const { accounted, scheduled, percent } = slotsAccounted
    console.log(`chaos ${name}: slots accounted ${accounted} of ${scheduled} scheduled (${percent} %)`)
    console.log(
      `chaos ${name}: ${JSON.stringify({ ...report, overlaps: { ...report.overlaps, list: undefined } })}`,
    )
  }
  const secrets = [
    ...env.sandbox.privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')),
    ...env.sandbox.issuedTokens(),
  ]
  const leaked = cluster.workers
    .flatMap((w) => [...w.proc.lines.map((l) => JSON.stringify(l)), ...w.proc.text])
    .filter((line) => secrets.some((secret) => line.includes(secret)))
  expect(leaked, 'a worker printed the App key or an installation token under a fault').toEqual([])
  expect(
    verdict.unexpectedExits,
    'a worker exited on a fault: its nets lose a replica until someone restarts it',
  ).toEqual([])
  expect(
    verdict.unhandledRejections,
    'an unhandled rejection was logged: a fault path is not handled',
  ).toEqual([])
  expect(
    verdict.passesAfterDeadline,
    'a pass started after its term’s step-down instant: a successor may already be running the net',
  ).toBe(0)
  expect(
    verdict.passesWhileUnreachable,
    'a pass started while its store had been unreachable for longer than the hold: the worker did not fail closed',
  ).toBe(0)
  expect(
    verdict.overlaps.filter((o) => o.kind === 'unexpected'),
    'two owners held the lease at once with no stall or skew to explain it: the election is broken',
  ).toEqual([])
  expect(
    verdict.takeovers.filter((t) => t < 0).length,
    'after a fault nobody was elected again: the net stays unserved',
  ).toBe(0)
  if (options.takeoverBoundMs !== undefined && verdict.takeoverMs.max !== null) {
    expect(
      verdict.takeoverMs.max,
      `a takeover took longer than its ${options.takeoverBoundMs} ms bound: the net went unserved too long`,
    ).toBeLessThanOrEqual(options.takeoverBoundMs)
  }
  return verdict
}

/**
 * Asserts one pass per slot: no slot in the passes' own start lines ran twice, and the sandbox received no
 * more pass requests than there were slots run, and slots run again after their pass was cut off with its
 * holder (a pass that ran without logging would show there).
 */
export function expectOncePerSlot(
  name: string,
  results: Map<string, ScenarioReport>,
  verdict: Verdict,
): void {
  const report = results.get(name)
  expect(verdict.doubleRuns, 'a schedule slot ran twice: the run ledger let two passes claim it').toEqual([])
  expect(verdict.slotsRun, 'no pass logged a slot: the checker cannot see a double run').toBeGreaterThan(0)
  expect(
    report?.sandboxPassRequests,
    'the sandbox received more pass requests than slots were run: some slot ran twice unseen',
  ).toBeLessThanOrEqual(verdict.slotsRun + verdict.retakenSlots)
}

/** The chaos net's records in the scenario's ledger (read after every worker stopped). */
async function readLedger(url: string, db: string): Promise<LedgerEntry[]> {
  const client = await new MongoClient(url, { serverSelectionTimeoutMS: 10_000 }).connect()
  try {
    type Stored = {
      _id: string
      slot: Date
      outcome?: string | null
      owner?: string
      fence?: number
      startedAt?: Date
    }
    const runs = client.db(db).collection<Stored>('net_runs')
    const records = await runs.find({ net: 'chaos-tick' }).toArray()
    return records.map((r) => ({
      ...{ slot: r.slot, outcome: r.outcome, id: r._id },
      ...(r.owner === undefined ? {} : { owner: r.owner, fence: r.fence, startedAt: r.startedAt }),
    }))
  } finally {
    await client.close()
  }
}

/** Slots accounted ÷ slots scheduled over every scenario in the report (the figure in docs/reliability.md). */
function accountedOverall(scenarios: Record<string, Partial<ScenarioReport>>) {
  let scheduled = 0
  let accounted = 0
  const below: string[] = []
  for (const [name, report] of Object.entries(scenarios)) {
    if (!report.slotsAccounted) continue
    scheduled += report.slotsAccounted.scheduled
    accounted += report.slotsAccounted.accounted
    if (report.slotsAccounted.percent < 100) below.push(`${name} ${report.slotsAccounted.percent} %`)
  }
  const percent = scheduled === 0 ? 100 : Math.round((accounted / scheduled) * 10_000) / 100
  return { scheduled, accounted, percent, scenariosBelow100: below }
}

/** Merges this file's scenarios into bench/results/chaos.json (other files' scenarios are kept). */
/**
 * Runs `write` holding a lock directory beside the report: the chaos files run side by side, and each
 * merges its scenarios into the one report, so two read-merge-writes must not interleave (one file's
 * scenarios would be lost). A lock older than a minute is a run that died holding it, and is taken over.
 */
function underReportLock(write: () => void): void {
  const lock = `${REPORT}.lock`
  const deadline = Date.now() + 60_000
  mkdirSync(dirname(REPORT), { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 60_000) rmSync(lock, { recursive: true, force: true })
      if (Date.now() > deadline) throw new Error(`the chaos report stayed locked for a minute (${lock})`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
    }
  }
  try {
    write()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

function writeReport(results: Map<string, ScenarioReport>): void {
  underReportLock(() => writeMergedReport(results))
}

function writeMergedReport(results: Map<string, ScenarioReport>): void {
  const previous = existsSync(REPORT)
    ? (JSON.parse(readFileSync(REPORT, 'utf8')) as { scenarios?: Record<string, Partial<ScenarioReport>> })
    : {}
  const cpus = os.cpus()
  const mongo = inject('mongo')
  const scenarios: Record<string, Partial<ScenarioReport>> = {
    ...(previous.scenarios ?? {}),
    ...Object.fromEntries(results),
  }
  const report = {
    command: 'npm run test:chaos',
    slotsAccounted: accountedOverall(scenarios),
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model,
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      platform: `${os.platform()} ${os.release()}`,
      node: process.version,
    },
    store: `FerretDB 1.24.2 (SQLite) started by the chaos suite; shared test server: ${'error' in mongo ? mongo.error : mongo.description}`,
    pacing: {
      ttlMs: TTL,
      retryMs: RETRY,
      renewEveryMs: TTL / 3,
      holdMs: TTL - TTL / 6,
      schedule: 'every second',
    },
    scenarios,
  }
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`)
}
