/**
 * Scenario `agenda`: leasecron next to agenda 6 (@agendajs/mongo-backend), the peer a Mongo user would
 * pick, each as 10 worker processes sharing one fresh database through bench/mongo-op-counter.ts, each
 * running one job every "minute-equivalent", compressed to every 2 s:
 *
 * - agenda: bench/agenda-worker.mjs, `every('2 seconds')`, polling every 1 s (`processEvery`), lock
 *   lifetime 20 s — agenda's default 10 min compressed by the same 30× as the schedule (1 min → 2 s);
 * - leasecron: `leasecron run --config bench/nets/one-tick.mjs`, `*∕2 * * * * *`, TTL 6 s, retry 2 s (its
 *   shipped pacing of a one-minute schedule, 3 min and 1 min, compressed by the same 30×).
 *
 * For each: executions per tick over a window (both should be 1), Mongo operations per hour (driver
 * monitoring apart), and 4 trials of SIGKILL of the process that ran the latest execution at a random
 * phase, timed to the next execution by another process. Not a feature comparison.
 */
import { randomInt } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { classify, startMongoOpCounter } from '../mongo-op-counter.js'
import {
  AGENDA_MAIN,
  type BenchContext,
  type Child,
  distribution,
  type LogLine,
  NETS,
  ProcessPool,
  type SandboxProcess,
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
export const WINDOW_MS = QUICK ? 10_000 : 20_000
export const KILL_TRIALS = QUICK ? 1 : 4
/** agenda only: SIGKILL of the process whose name is on the job's lock while the lock is held. */
export const LOCK_HOLDER_TRIALS = QUICK ? 1 : 3
const INTERVAL_MS = 2_000
const AGENDA_LOCK_LIFETIME_MS = 20_000
const LEASECRON_TTL_MS = 6_000
const LEASECRON_RETRY_MS = 2_000

interface Side {
  system: 'agenda' | 'leasecron'
  windowMs: number
  executions: number
  ticks: number
  executionsPerTick: number
  /** The most executions that fell on one tick (two within half an interval count as one tick). */
  maxPerTick: number
  executingProcesses: number
  opsPerHour: { all: number; work: number; monitoring: number; session: number }
  byCommandPerHour: Record<string, number>
  kill: { trials: Array<{ phaseMs: number; takeoverMs: number }>; takeover: ReturnType<typeof distribution> }
  /** agenda only: SIGKILL of the lock holder while the job's lock is held. */
  killLockHolder?: {
    trials: Array<{ takeoverMs: number; pid: number }>
    takeover: ReturnType<typeof distribution>
  }
}

/** Waits (bounded) until the job document is locked and returns the pid in its `lastModifiedBy` (`bench-<pid>`). */
async function lockHolderPid(url: string, dbName: string, deadline: number): Promise<number | undefined> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000 })
  try {
    await client.connect()
    const jobs = client.db(dbName).collection('agendaJobs')
    while (Date.now() < deadline) {
      const doc = await jobs.findOne({ name: 'bench-tick', lockedAt: { $ne: null } })
      const match = /^bench-(\d+)$/.exec(String(doc?.lastModifiedBy ?? ''))
      if (match) return Number(match[1])
      await sleep(20)
    }
    return undefined
  } finally {
    await client.close()
  }
}

const isExecution = (l: LogLine) => l.event === 'pass-start'
const isStarted = (l: LogLine) => l.event === 'ready' || l.msg === 'campaigning'
type OpCounter = Awaited<ReturnType<typeof startMongoOpCounter>>

/** Executions grouped into ticks: two within half an interval count as one tick. */
function executionsPerTick(runs: ReadonlyArray<{ at: number }>): number[] {
  const groups: number[] = []
  let last = Number.NEGATIVE_INFINITY
  for (const r of runs) {
    if (r.at - last < INTERVAL_MS / 2) groups[groups.length - 1]!++
    else groups.push(1)
    last = r.at
  }
  return groups
}

/** Counts executions and Mongo operations over one quiet window. */
async function measureWindow(system: Side['system'], pool: ProcessPool, counter: OpCounter) {
  await sleep(3_000)
  counter.reset()
  const start = Date.now()
  await sleep(WINDOW_MS)
  const ops = counter.ops().slice()
  const end = Date.now()
  const windowMs = end - start
  const runs = pool.runsBetween(start, end)
  const ticks = Math.round(windowMs / INTERVAL_MS)
  const { byKind, byCommand } = classify(ops, system === 'agenda' ? 'agendaJobs' : 'leases')
  const perHour = (n: number) => Math.round((n / windowMs) * 3_600_000)
  return {
    windowMs,
    executions: runs.length,
    ticks,
    executionsPerTick: sig(runs.length / ticks, 3),
    maxPerTick: Math.max(0, ...executionsPerTick(runs)),
    executingProcesses: new Set(runs.map((r) => r.child.pid)).size,
    opsPerHour: {
      all: perHour(ops.length),
      work: perHour(byKind.lease + byKind.data),
      monitoring: perHour(byKind.monitoring),
      session: perHour(byKind.session),
    },
    byCommandPerHour: Object.fromEntries(Object.entries(byCommand).map(([k, v]) => [k, perHour(v)])),
  }
}

/** SIGKILL of the latest executor at a random phase, timed to the next execution elsewhere. */
async function killTrials(system: Side['system'], pool: ProcessPool): Promise<Side['kill']> {
  const trials: Array<{ phaseMs: number; takeoverMs: number }> = []
  for (let t = 0; t < KILL_TRIALS; t++) {
    await pool.allStarted(isStarted, 'a started worker')
    await pool.nextRun(Date.now(), 'an execution', 60_000)
    const latest = pool.latestRunner()!
    const phaseMs = randomInt(0, INTERVAL_MS)
    await sleep(phaseMs)
    const { takeoverMs } = await pool.killAndTime(latest, 'SIGKILL')
    trials.push({ phaseMs, takeoverMs })
    console.log(`bench agenda: ${system} kill ${t + 1}/${KILL_TRIALS}: ${takeoverMs} ms`)
    pool.add()
  }
  return { trials, takeover: distribution(trials.map((t) => t.takeoverMs)) }
}

/** agenda only: SIGKILL of the process named on the job's lock while the lock is held. */
async function lockHolderTrials(pool: ProcessPool, lockSource: { url: string; dbName: string }) {
  const trials: Array<{ takeoverMs: number; pid: number }> = []
  for (let t = 0; t < LOCK_HOLDER_TRIALS; t++) {
    await pool.allStarted((l) => l.event === 'ready', 'a started worker')
    const pid = await lockHolderPid(lockSource.url, lockSource.dbName, Date.now() + 30_000)
    const victim = pool.members.find((w) => w.pid === pid)
    if (!victim) {
      console.log(`bench agenda: lock holder ${pid} is not one of the workers; trial skipped`)
      continue
    }
    const { takeoverMs } = await pool.killAndTime(victim, 'SIGKILL')
    trials.push({ takeoverMs, pid: victim.pid })
    console.log(`bench agenda: agenda lock-holder kill ${t + 1}/${LOCK_HOLDER_TRIALS}: ${takeoverMs} ms`)
    pool.add()
  }
  return { trials, takeover: distribution(trials.map((t) => t.takeoverMs)) }
}

async function measureSide(
  system: Side['system'],
  spawnOne: (i: number) => Child,
  counter: OpCounter,
  lockSource?: { url: string; dbName: string },
): Promise<Side> {
  const pool = new ProcessPool(spawnOne, isExecution)
  try {
    for (let i = 0; i < WORKERS; i++) pool.add()
    await pool.allStarted(isStarted, 'a started worker')
    await pool.nextRun(Number.NEGATIVE_INFINITY, 'an execution', 60_000)
    const window = await measureWindow(system, pool, counter)
    const kill = await killTrials(system, pool)
    const killLockHolder = lockSource ? await lockHolderTrials(pool, lockSource) : undefined
    return { system, ...window, kill, ...(killLockHolder ? { killLockHolder } : {}) }
  } finally {
    await pool.stopAll()
  }
}

const keepLine = (l: LogLine) =>
  l.event === 'pass-start' || l.event === 'ready' || l.msg === 'campaigning' || l.msg === 'elected'

function measureAgendaSide(context: BenchContext, counter: OpCounter): Promise<Side> {
  const agendaDb = context.database('agenda')
  const address = new URL(counter.url)
  address.pathname = `/${agendaDb}`
  const env = (i: number) => ({
    AGENDA_MONGO: address.href,
    AGENDA_PROCESS_EVERY_MS: '1000',
    AGENDA_LOCK_LIFETIME_MS: String(AGENDA_LOCK_LIFETIME_MS),
    ...(i === 0 ? { AGENDA_SCHEDULE: '2 seconds' } : {}),
  })
  const spawnOne = (i: number) => spawnNode(`agenda-${i + 1}`, AGENDA_MAIN, [], env(i), keepLine)
  return measureSide('agenda', spawnOne, counter, { url: context.mongo.url, dbName: agendaDb })
}

function measureLeasecronSide(context: BenchContext, counter: OpCounter, sandbox: SandboxProcess) {
  const env = workerEnv({
    ...sandbox.env,
    MONGO_URI: counter.url,
    MONGO_DB: context.database('agenda_leasecron'),
  })
  const args = ['run', '--config', NETS.oneTick]
  return measureSide(
    'leasecron',
    (i) => spawnNode(`leasecron-${i + 1}`, WORKER_MAIN, args, env, keepLine),
    counter,
  )
}

const INPUTS = {
  workers: WORKERS,
  intervalMs: INTERVAL_MS,
  compression: '30×: a one-minute job every 2 s',
  windowMs: WINDOW_MS,
  killTrials: KILL_TRIALS,
  agenda: {
    version: 'agenda 6.2.6 + @agendajs/mongo-backend 4.0.3',
    schedule: "every('2 seconds', 'bench-tick'), scheduled by one of the ten processes",
    processEveryMs: 1000,
    lockLifetimeMs: AGENDA_LOCK_LIFETIME_MS,
    lockLifetimeNote: 'agenda’s default 10 min compressed 30×',
  },
  leasecron: {
    nets: 'bench/nets/one-tick.mjs',
    schedule: '*/2 * * * * *',
    ttlMs: LEASECRON_TTL_MS,
    retryMs: LEASECRON_RETRY_MS,
  },
  opsCounting:
    'bench/mongo-op-counter.ts; work = every command on a collection or database other than driver monitoring and session housekeeping',
  kill: 'SIGKILL of the process that logged the latest execution, a uniform 0–1999 ms later; → the next execution another process logs',
  killLockHolder: `agenda only, ${LOCK_HOLDER_TRIALS} trials: SIGKILL of the process named on the job's lock (lastModifiedBy) while lockedAt is set — agenda locks a job up to processEvery before it is due; → the next execution another process logs. For leasecron the latest executor is the lease holder, so its kill trials are already this case.`,
}

function printComparison(agenda: Side, leasecron: Side): void {
  const both = [agenda, leasecron]
  const row = (label: string, value: (s: Side) => unknown) => [label, ...both.map((s) => String(value(s)))]
  const rows = [
    ['', 'agenda', 'leasecron'],
    row('executions per tick', (s) => s.executionsPerTick),
    row('most executions on one tick', (s) => s.maxPerTick),
    row('processes that executed', (s) => s.executingProcesses),
    row('Mongo ops/hour (work)', (s) => s.opsPerHour.work),
    row('Mongo ops/hour (monitoring)', (s) => s.opsPerHour.monitoring),
    row('SIGKILL → next run, median ms', (s) => s.kill.takeover.medianMs),
    row('SIGKILL → next run, max ms', (s) => s.kill.takeover.maxMs),
    [
      'SIGKILL of lock holder → next run, median ms',
      String(agenda.killLockHolder?.takeover.medianMs),
      '(= above)',
    ],
  ]
  console.log(`\n${table(rows)}\n`)
}

export async function runAgenda(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const counter = await startMongoOpCounter(context.mongo.url)
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  let agenda: Side
  let leasecron: Side
  try {
    console.log('bench agenda: agenda side')
    agenda = await measureAgendaSide(context, counter)
    console.log('bench agenda: leasecron side')
    leasecron = await measureLeasecronSide(context, counter, sandbox)
  } finally {
    await counter.close()
    await sandbox.child.stop()
  }
  const path = await writeResult('agenda', context, startedAt, { inputs: INPUTS, agenda, leasecron })
  printComparison(agenda, leasecron)
  console.log(`bench agenda: wrote ${path}`)
  return path
}
