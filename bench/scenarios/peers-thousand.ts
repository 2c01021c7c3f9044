/**
 * Scenario `peers-thousand` (issue #39): a thousand schedules. N distinct every-minute jobs (1,000 unless
 * BENCH_PEERS_JOBS says otherwise) on three processes per system — leasecron, node-cron + leaseCoordinator,
 * agenda, BullMQ, pg-boss, graphile-worker — each declaring them its own documented way
 * (bench/peers-thousand-systems.ts). Per system: store operations an hour at rest, the start delay from
 * each job's slot instant to its handler's start, RSS and CPU of each process at rest, and each (job, slot)
 * run once, twice or more, or never across one SIGKILL of the process that ran the latest slot. Beside
 * leasecron's measured operations it prints the model of them (bench/peers-thousand-model.ts).
 *
 * The systems run one at a time, each on a fresh store of its own (Redis; PostgreSQL; FerretDB on
 * PostgreSQL, whose SQLite handler cannot carry 1,000 leases: issue 37): a thousand jobs of six systems
 * at once would swamp the 2-core machine. The plan of one system, from its first slot t0 (the first minute
 * boundary at least 10 s after every process is ready): an at-rest window from t0 + 20 s over
 * BENCH_PEERS_REST_MIN minutes (2; QUICK 1), the SIGKILL when it ends (20 s after a slot), then
 * BENCH_PEERS_AFTER_KILL_MIN more slots (3; QUICK 2), the starts counted up to 40 s after the last.
 * BENCH_PEERS_SYSTEMS picks systems (all by default). Counts come only from the handlers' own files.
 *
 * A system that cannot hold N is not skipped silently: one whose processes do not get ready is recorded
 * with the reason and how many jobs they had declared; one that runs is `held` only if every job ran in
 * every slot at rest, within a slot interval (p99), with no process or store dying on its own — otherwise
 * the result says which of those failed and how many jobs it did run every slot. BENCH_PEERS_JOBS takes
 * per-system counts too (`1000,pg-boss=200`) to find where one stops.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSlotRecords, untilInstant } from '../peers-records.js'
import { startFerretOnPostgres } from '../peer-ferret-postgres.js'
import { startPostgres } from '../peer-postgres.js'
import { startRedis } from '../peer-redis.js'
import { type OpCounts, opsBetween, type PeerStore } from '../peer-store.js'
import type { StoreAddresses } from '../peers-systems.js'
import { leasecronOpsModel, measuredByTerm } from '../peers-thousand-model.js'
import { ensureNode24 } from '../node24.js'
import { chosenSystems, imageRuntime, jobCounts, type ThousandSystem } from '../peers-thousand-systems.js'
import { type JobSlotPlan, type JobSlotRecord, jobNamesOf, tallyJobs } from '../peers-thousand-tally.js'
import {
  type BenchContext,
  type Child,
  clockTicks,
  type LogLine,
  procSample,
  QUICK,
  sig,
  sleep,
  spawnNode,
  startSandboxProcess,
  table,
  withPoolShare,
  writeResult,
} from '../support.js'

const PROCESSES = 3
const SLOT_MS = 60_000
/** At least this long between the last process ready and the first slot. */
const LEAD_MS = 10_000
/** RSS is sampled this often in the window at rest (the largest sample is kept). */
const SAMPLE_MS = 10_000
/** Starts of the last slot are counted up to this long after its instant. */
const GRACE_MS = 40_000
const DEFAULT_JOBS = 1_000
/** The variables that shape a run, recorded with it (the command line does not carry them). */
const KNOBS = [
  'BENCH_PEERS_JOBS',
  'BENCH_PEERS_SYSTEMS',
  'BENCH_PEERS_REST_MIN',
  'BENCH_PEERS_AFTER_KILL_MIN',
  'LEASECRON_BENCH_QUICK',
]
/** Problem lines (errors, warnings) a process's log keeps, and distinct messages a result names. */
const KEPT_PROBLEMS = 50

/** One system's plan, as offsets (ms) from its first slot. */
export function thousandPlan(env: NodeJS.ProcessEnv = process.env) {
  const minutes = (name: string, fallback: number) => {
    const n = Number(env[name] ?? fallback)
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of minutes ≥ 1`)
    return n
  }
  const restMinutes = minutes('BENCH_PEERS_REST_MIN', QUICK ? 1 : 2)
  const afterKillMinutes = minutes('BENCH_PEERS_AFTER_KILL_MIN', QUICK ? 2 : 3)
  const restFrom = 20_000
  const restTo = restFrom + restMinutes * SLOT_MS
  const slots = restMinutes + 1 + afterKillMinutes
  return {
    restMinutes,
    afterKillMinutes,
    restFrom,
    restTo,
    kill: restTo,
    slots,
    end: (slots - 1) * SLOT_MS + GRACE_MS,
  }
}
type Plan = ReturnType<typeof thousandPlan>

/** A system's store and the addresses its processes are given. */
interface StoreOf {
  store: PeerStore & { deaths?: readonly unknown[] }
  addresses: StoreAddresses
  /** Its operations (a delta of `ops()`), summed: all of them, or one database's. */
  total(delta: OpCounts): number
}

/** Starts a fresh store of the kind `system` uses. */
async function startStoreFor(system: ThousandSystem, forgeEnv: Record<string, string>): Promise<StoreOf> {
  const sum = (delta: OpCounts) => Object.values(delta).reduce((s, n) => s + n, 0)
  if (system.base.store === 'redis') {
    const redis = await startRedis()
    return { store: redis, addresses: { forgeEnv, redisPort: redis.port }, total: sum }
  }
  if (system.base.store === 'postgres') {
    const postgres = await startPostgres(['pgboss', 'graphile'])
    const db = system.name === 'pg-boss' ? 'pgboss' : 'graphile'
    return { store: postgres, addresses: { forgeEnv, postgresUrl: postgres.url }, total: (d) => d[db] ?? 0 }
  }
  const ferret = await startFerretOnPostgres()
  // Each process's share of FerretDB's PostgreSQL pool, below it in all (support.ts withPoolShare).
  const url = withPoolShare(ferret.url, PROCESSES)
  return { store: ferret, addresses: { forgeEnv, mongoUrl: () => url }, total: sum }
}

/** One system's processes, what their logs said, and how they ended. */
interface Running {
  system: ThousandSystem
  jobs: number
  out: string
  members: Child[]
  /** Problem lines (errors, warnings) by message, counted in full though each log keeps only a few. */
  problems: Record<string, number>
  /** Processes that exited while the bench did not stop them. */
  exits: Array<{ pid: number; code: number | null; signal: string | null; atS: number }>
  startedAt: number
  stopping: boolean
  victimPid?: number
}

/** A line worth counting: a peer's `error` event, a warning or worse (leasecron logs levels by label). */
const isProblem = (l: LogLine) =>
  l.event === 'error' ||
  ['warn', 'error', 'fatal'].includes(String(l.level)) ||
  (typeof l.level === 'number' && l.level >= 40)

/** Which of a process's lines it keeps: readiness, leasecron's campaigns and elections, a few problems. */
function keepFor(run: Running): (l: LogLine) => boolean {
  let kept = 0
  return (l) => {
    if (l.event === 'ready' || l.event === 'declared' || l.msg === 'campaigning' || l.msg === 'elected')
      return true
    if (!isProblem(l)) return false
    const message = String(l.msg ?? l.event).slice(0, 160)
    if (message in run.problems || Object.keys(run.problems).length < KEPT_PROBLEMS)
      run.problems[message] = (run.problems[message] ?? 0) + 1
    return kept++ < KEPT_PROBLEMS
  }
}

/** leasecron's worker, on the machine's runtime or its image's. */
const isLeasecron = (system: ThousandSystem) => system.base.name === 'leasecron'

/** The node and the arguments before the script a member of `system` runs with. */
async function runtimeOf(system: ThousandSystem): Promise<{ node?: string; flags: string[] }> {
  if (!system.image) return { flags: [] }
  return { node: (await ensureNode24()).path, flags: imageRuntime().nodeFlags }
}

type Runtime = Awaited<ReturnType<typeof runtimeOf>>

function spawnMember(run: Running, addresses: StoreAddresses, { node, flags }: Runtime): Child {
  const { base } = run.system
  const env = { ...run.system.env(addresses, run.jobs), BENCH_PEERS_OUT: run.out }
  const label = `${run.system.name}-${run.members.length + 1}`
  // spawnNode runs `node <script> ...args`: the image's V8 flags go first, the worker's script after them.
  const [first, ...rest] = [...flags, base.script, ...base.args]
  const child = spawnNode(label, first!, rest, env, keepFor(run), node)
  run.members.push(child)
  void child.exited.then(({ code, signal }) => {
    if (run.stopping || child.pid === run.victimPid) return
    run.exits.push({ pid: child.pid, code, signal, atS: sig((Date.now() - run.startedAt) / 1000) })
  })
  return child
}

/** Resolves once `child` says it is ready; rejects when it exits first or does not within `ms`. */
function readyOrExit(child: Child, ms: number): Promise<unknown> {
  const ready = (l: LogLine) => l.event === 'ready' || l.msg === 'campaigning'
  const exited = child.exited.then(({ code, signal }) => {
    throw new Error(
      `${child.label} exited (${code ?? signal}) before it was ready: ${child.text.slice(-3).join(' | ')}`,
    )
  })
  return Promise.race([child.waitFor(ready, ms, `${child.label} ready`), exited])
}

/** Starts the three processes (the first alone when the system asks) and waits until each is ready. */
async function startMembers(run: Running, addresses: StoreAddresses): Promise<void> {
  const boundMs = 90_000 + 200 * run.jobs
  const runtime = await runtimeOf(run.system)
  if (run.system.firstAlone) await readyOrExit(spawnMember(run, addresses, runtime), boundMs)
  while (run.members.length < PROCESSES) spawnMember(run, addresses, runtime)
  await Promise.all(run.members.map((m) => readyOrExit(m, boundMs)))
}

const linesOf = (run: Running, msg: string) =>
  run.members.flatMap((m) => m.lines.filter((l) => l.msg === msg))

/** leasecron: waits (bounded, never failing) until every net was elected once, as a fresh start does. */
async function untilElected(run: Running, boundMs: number): Promise<number> {
  const deadline = Date.now() + boundMs
  while (linesOf(run, 'elected').length < run.jobs && Date.now() < deadline) await sleep(500)
  return linesOf(run, 'elected').length
}

/** The most jobs any process said it had declared (its `declared` lines). */
function declaredJobs(run: Running): number {
  const counts = run.members.flatMap((m) =>
    m.lines.filter((l) => l.event === 'declared').map((l) => Number(l.jobs)),
  )
  return Math.max(0, ...counts)
}

const readRecords = (out: string) => readSlotRecords<JobSlotRecord>(out)

/** Per process: CPU ticks at the window's first and last sample, and the largest RSS seen. */
class ProcSeries {
  readonly #byPid = new Map<
    number,
    { first: number; firstAt: number; last: number; lastAt: number; rssKiB: number }
  >()

  async sample(members: readonly Child[]): Promise<void> {
    for (const m of members) {
      const s = await procSample(m.pid)
      if (!s) continue
      const seen = this.#byPid.get(m.pid)
      const at = Date.now()
      if (!seen)
        this.#byPid.set(m.pid, { first: s.ticks, firstAt: at, last: s.ticks, lastAt: at, rssKiB: s.rssKiB })
      else Object.assign(seen, { last: s.ticks, lastAt: at, rssKiB: Math.max(seen.rssKiB, s.rssKiB) })
    }
  }

  /** Each process's CPU (% of one core over the window) and its largest RSS (MiB). */
  figures(ticksPerSecond: number) {
    return [...this.#byPid].map(([pid, s]) => ({
      pid,
      cpuPercent: sig(
        ((s.last - s.first) / ticksPerSecond / Math.max(1, (s.lastAt - s.firstAt) / 1000)) * 100,
        3,
      ),
      rssMiB: sig(s.rssKiB / 1024, 3),
    }))
  }
}

/**
 * The store's operation counters, asked up to three times a few seconds apart: a store busy with a
 * thousand jobs may miss the bench's own read (PostgreSQL's is a fresh connection with a 2 s bound).
 */
async function opsOf(store: StoreOf): Promise<OpCounts> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.store.ops()
    } catch (error) {
      if (attempt === 3)
        throw new Error('the store did not answer the bench’s count of its operations', { cause: error })
      await sleep(2_000)
    }
  }
}

/** The window at rest: the store's operations and the processes' CPU and RSS from `from` to `to`. */
async function measureRest(run: Running, store: StoreOf, from: number, to: number) {
  await untilInstant(from)
  const before = await opsOf(store)
  const fromAt = Date.now()
  const procs = new ProcSeries()
  await procs.sample(run.members)
  while (Date.now() + SAMPLE_MS < to) {
    await sleep(SAMPLE_MS)
    await procs.sample(run.members)
  }
  await untilInstant(to)
  const after = await opsOf(store)
  const toAt = Date.now()
  await procs.sample(run.members)
  const delta = opsBetween(before, after)
  return { delta, total: store.total(delta), windowMs: toAt - fromAt, processes: procs.figures(clockTicks()) }
}

/** SIGKILLs the process that recorded the latest handler start (the first one when none did). */
async function killLatestRunner(run: Running): Promise<number> {
  const latest = (await readRecords(run.out)).sort((a, b) => a.start - b.start).at(-1)
  const victim = run.members.find((m) => m.pid === latest?.pid) ?? run.members[0]!
  run.victimPid = victim.pid
  victim.child.kill('SIGKILL')
  return Date.now()
}

/** Runs the plan from `t0`; returns the window at rest and the kill's instant. */
async function runPlan(run: Running, store: StoreOf, t0: number, plan: Plan) {
  const rest = await measureRest(run, store, t0 + plan.restFrom, t0 + plan.restTo)
  await untilInstant(t0 + plan.kill)
  const killAt = await killLatestRunner(run)
  console.log(`bench peers-thousand: ${run.system.name}: SIGKILL ${run.victimPid}`)
  await untilInstant(t0 + plan.end)
  return { rest, killAt }
}
type PlanRun = Awaited<ReturnType<typeof runPlan>>

/** Why a system that ran did not hold its jobs (empty: it held them). */
function notHeld(tally: ReturnType<typeof tallyJobs>, run: Running, deaths: number): string[] {
  const why: string[] = []
  const rest = tally.windows.rest
  if (rest.never > 0) why.push(`${rest.never} of ${rest.pairs} (job, slot) pairs at rest never ran`)
  const p99 = tally.delayAtRestMs?.p99
  if (p99 === undefined || p99 >= SLOT_MS)
    why.push(
      `start delay at rest p99 ${p99 === undefined ? 'none' : `${sig(p99 / 1000)} s`}: a slot interval or more`,
    )
  for (const e of run.exits)
    why.push(`process ${e.pid} exited on its own (${e.code ?? e.signal}) at ${e.atS} s`)
  if (deaths > 0) why.push(`its store died ${deaths} time(s)`)
  return why
}

/** leasecron's own figures: leases per process, takeovers after the kill, the model beside the measurement. */
function leasecronFigures(run: Running, rest: PlanRun['rest'], killAt: number) {
  const electedAt = (m: Child) =>
    m.lines.filter((l) => l.msg === 'elected').map((l) => Date.parse(String(l.time)))
  const elected = run.members.map((m) => ({
    pid: m.pid,
    beforeKill: electedAt(m).filter((at) => at < killAt).length,
    afterKill: electedAt(m).filter((at) => at >= killAt).length,
  }))
  const perHour = (n: number) => Math.round((n / rest.windowMs) * 3_600_000)
  const measured = Object.fromEntries(
    Object.entries(measuredByTerm(rest.delta)).map(([k, v]) => [k, perHour(v)]),
  )
  const holders = elected.filter((e) => e.beforeKill > 0).length
  const model = { nets: run.jobs, replicas: PROCESSES, intervalMs: SLOT_MS, holders }
  const thisWindow = leasecronOpsModel({ ...model, earlyInTerm: true })
  const roundsPerHour = 3_600_000 / (thisWindow.inputs.ttlMs / 3)
  return {
    electedByProcess: elected,
    opsModel: {
      thisWindow,
      steadyState: leasecronOpsModel(model),
      measuredPerHourByTerm: measured,
      // The renewal calls measured per holding replica and round: the model's b, as this run had it.
      impliedRenewalBatchesPerRound: sig(
        (measured.renewals ?? 0) / (Math.max(1, holders) * roundsPerHour),
        3,
      ),
    },
  }
}

/** One system's figures from its run. */
async function figures(
  run: Running,
  store: StoreOf,
  t0: number,
  plan: Plan,
  done: PlanRun,
  readyAfterS: number,
) {
  const jobs = jobNamesOf(run.jobs)
  const slotPlan: JobSlotPlan = {
    t0,
    slots: plan.slots,
    slotMs: SLOT_MS,
    jobs,
    killAt: done.killAt,
    victimPid: run.victimPid ?? -1,
  }
  const tally = tallyJobs(await readRecords(run.out), slotPlan)
  const why = notHeld(tally, run, store.store.deaths?.length ?? 0)
  const perHour = Math.round((done.rest.total / done.rest.windowMs) * 3_600_000)
  const byCommand = Object.entries(done.rest.delta)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
  return {
    ...identity(run.system, run.jobs, store),
    held: why.length === 0,
    notHeldBecause: why,
    readyAfterS,
    t0: new Date(t0).toISOString(),
    killAt: new Date(done.killAt).toISOString(),
    victimPid: run.victimPid ?? null,
    ...tally,
    storeOpsAtRest: {
      perHour,
      perJobPerHour: sig(perHour / run.jobs, 3),
      byCommand: Object.fromEntries(byCommand),
    },
    processes: done.rest.processes.map((p) => ({ ...p, killed: p.pid === run.victimPid })),
    problems: run.problems,
    exits: run.exits,
    ...(isLeasecron(run.system) ? { leasecron: leasecronFigures(run, done.rest, done.killAt) } : {}),
  }
}

function identity(system: ThousandSystem, jobs: number, store: StoreOf | undefined) {
  return {
    system: system.name,
    version: system.base.version,
    store: store?.store.description ?? system.base.store,
    docs: system.base.docs,
    settings: system.settings(jobs),
    jobs,
  }
}

type SystemResult = Awaited<ReturnType<typeof figures>> | ReturnType<typeof failure>

function failure(
  system: ThousandSystem,
  jobs: number,
  store: StoreOf | undefined,
  stage: string,
  error: unknown,
  extra = {},
) {
  const reason =
    error instanceof Error ? `${error.message}${error.cause ? ` (${error.cause})` : ''}` : String(error)
  console.error(`bench peers-thousand: ${system.name} at ${jobs} jobs failed (${stage}): ${reason}`)
  return { ...identity(system, jobs, store), held: false, failed: { stage, reason, ...extra } }
}

/** Starts, measures and stops one system on a fresh store; a failure is recorded, never thrown. */
async function runSystem(
  system: ThousandSystem,
  jobs: number,
  plan: Plan,
  forgeEnv: Record<string, string>,
): Promise<SystemResult> {
  let store: StoreOf
  try {
    store = await startStoreFor(system, forgeEnv)
  } catch (error) {
    return failure(system, jobs, undefined, 'store', error)
  }
  const out = await mkdtemp(join(tmpdir(), 'leasecron-peers-thousand-'))
  const run: Running = {
    system,
    jobs,
    out,
    members: [],
    problems: {},
    exits: [],
    startedAt: Date.now(),
    stopping: false,
  }
  try {
    return await startAndRun(run, store, plan)
  } finally {
    run.stopping = true
    await Promise.all(run.members.map((m) => m.stop('SIGTERM', 10_000)))
    await store.store.stop().catch(() => undefined)
    await rm(out, { recursive: true, force: true })
  }
}

async function startAndRun(run: Running, store: StoreOf, plan: Plan): Promise<SystemResult> {
  const { system, jobs } = run
  try {
    await startMembers(run, store.addresses)
  } catch (error) {
    const afterS = sig((Date.now() - run.startedAt) / 1000)
    return failure(system, jobs, store, 'start', error, { declaredJobs: declaredJobs(run), afterS })
  }
  if (isLeasecron(system)) await untilElected(run, 60_000)
  const readyAfterS = sig((Date.now() - run.startedAt) / 1000)
  const t0 = Math.ceil((Date.now() + LEAD_MS) / SLOT_MS) * SLOT_MS
  console.log(
    `bench peers-thousand: ${system.name} × ${jobs}: ready in ${readyAfterS} s; first slot ${new Date(t0).toISOString()}`,
  )
  try {
    const done = await runPlan(run, store, t0, plan)
    return await figures(run, store, t0, plan, done, readyAfterS)
  } catch (error) {
    // A store too busy to answer the bench's own reads is a finding too: said, and the next system runs.
    return failure(system, jobs, store, 'run', error, {
      readyAfterS,
      problems: run.problems,
      exits: run.exits,
    })
  }
}

const seconds = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '-' : (ms / 1000).toFixed(2)

const HEAD = ['system', 'jobs', 'held', 'rest once/2+/never', 'kill once/2+/never', 'delay p50/p99 s (rest)']

function summaryRow(s: SystemResult): string[] {
  if ('failed' in s)
    return [s.system, String(s.jobs), 'no', `failed (${s.failed.stage})`, '', '', '', '', '', '']
  const c = (w: { once: number; twiceOrMore: number; never: number }) =>
    `${w.once}/${w.twiceOrMore}/${w.never}`
  return [
    s.system,
    String(s.jobs),
    s.held ? 'yes' : 'no',
    c(s.windows.rest),
    c(s.windows.kill),
    `${seconds(s.delayAtRestMs?.p50)}/${seconds(s.delayAtRestMs?.p99)}`,
    s.storeOpsAtRest.perHour.toLocaleString('en-US'),
    s.processes.map((p) => p.rssMiB).join(', '),
    s.processes.map((p) => p.cpuPercent).join(', '),
    String(s.readyAfterS),
  ]
}

/** The table of every system, leasecron's measured operations beside its model, and what did not hold. */
function printSummary(systems: SystemResult[]): void {
  const rows = [[...HEAD, 'ops/h rest', 'RSS MiB', 'CPU %', 'ready s'], ...systems.map(summaryRow)]
  console.log(`\n${table(rows)}\n`)
  const n = (v: number) => v.toLocaleString('en-US')
  for (const s of systems) {
    if ('leasecron' in s && s.leasecron) {
      const m = s.leasecron.opsModel
      console.log(
        `${s.system} ops at rest: measured ${n(s.storeOpsAtRest.perHour)}/h ${JSON.stringify(m.measuredPerHourByTerm)}`,
      )
      console.log(`  model, this window: ${n(m.thisWindow.perHour)}/h ${JSON.stringify(m.thisWindow.terms)}`)
      console.log(`  model, steady state: ${n(m.steadyState.perHour)}/h; ${m.steadyState.formula}`)
    }
    if ('notHeldBecause' in s && s.notHeldBecause.length)
      console.log(`${s.system} did not hold ${s.jobs}: ${s.notHeldBecause.join('; ')}`)
  }
}

function inputs(plan: Plan, systems: ThousandSystem[], jobsOf: (name: string) => number) {
  return {
    schedule: '* * * * * for every job (N distinct jobs per system, each its own schedule)',
    jobsPerSystem: Object.fromEntries(systems.map((s) => [s.name, jobsOf(s.name)])),
    processesPerSystem: PROCESSES,
    plan: { ...plan, slotMs: SLOT_MS, leadMs: LEAD_MS, graceMs: GRACE_MS },
    concurrency:
      'one system at a time, each on a fresh store of its own (Redis 7; PostgreSQL 15; FerretDB 1.24 on PostgreSQL 15), on one 2-core machine',
    fault:
      'one SIGKILL, when the window at rest ends (20 s after a slot), of the process that recorded the latest handler start; not restarted',
    windows: 'rest: the slots before the SIGKILL; kill: the slots after it',
    opsAtRest:
      'Redis INFO commandstats (every command, Lua-script inner calls included), PostgreSQL pg_stat_database xact_commit + xact_rollback of the system’s database, Mongo commands through bench/mongo-op-counter.ts (driver monitoring and sessions apart)',
    delay:
      'per (job, slot): its first handler start minus the slot instant; p50 and p99 over every pair (at rest: the slots before the SIGKILL)',
    processFigures:
      'CPU: utime + stime over the window at rest, % of one core; RSS: the largest of samples every 10 s in it',
    slotAttribution:
      'the scheduled instant the system hands the handler (bullmq job id, graphile _cron.ts, node-cron context.date, leasecron ctx.slot); pg-boss and agenda hand none, so the minute the handler started in',
    held: 'every (job, slot) at rest ran, start delay p99 at rest under a slot interval, no process or store died on its own',
    env: Object.fromEntries(KNOBS.map((k) => [k, process.env[k] ?? null])),
    knobs:
      'BENCH_PEERS_JOBS (1000; per system: 1000,pg-boss=200), BENCH_PEERS_SYSTEMS, BENCH_PEERS_REST_MIN, BENCH_PEERS_AFTER_KILL_MIN, LEASECRON_BENCH_QUICK',
  }
}

export async function runPeersThousand(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const plan = thousandPlan()
  const systems = chosenSystems(process.env.BENCH_PEERS_SYSTEMS)
  const jobsOf = jobCounts(process.env.BENCH_PEERS_JOBS, DEFAULT_JOBS)
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  const results: SystemResult[] = []
  try {
    for (const system of systems)
      results.push(await runSystem(system, jobsOf(system.name), plan, sandbox.env))
  } finally {
    await sandbox.child.stop()
  }
  printSummary(results)
  const path = await writeResult('peers-thousand', context, startedAt, {
    inputs: inputs(plan, systems, jobsOf),
    systems: results,
  })
  console.log(`bench peers-thousand: wrote ${path}`)
  return path
}
