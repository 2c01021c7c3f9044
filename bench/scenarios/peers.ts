/**
 * Scenario `peers`: leasecron next to what its users would pick instead — BullMQ (Redis), pg-boss and
 * graphile-worker (PostgreSQL), agenda and node-cron's distributed mode with leasecron's `leaseCoordinator`
 * (FerretDB) — on one schedule, `* * * * *` (pg-boss and graphile-worker schedule by the minute, so the
 * minute for all; no seconds variant), three processes each, for a fixed number of slots. The plan, in
 * slots from the first (t0): an at-rest window (store operations, RSS), a SIGKILL of the process that ran
 * the latest slot and its restart five minutes later, then a crash of every backing store for 20 s.
 *
 * All six run at once, each on its own store (the two Postgres peers share one server, the three Mongo
 * ones one FerretDB, each in its own database): they share the 2-core machine, so delays include each
 * other's load. Counts come only from the handlers' own files (bench/peers/record-slot.mjs). A system
 * whose store or processes cannot start is skipped and named with the reason, never silently.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFerret } from '../peer-ferret.js'
import { startPostgres } from '../peer-postgres.js'
import { startRedis } from '../peer-redis.js'
import { type OpCounts, opsBetween, type PeerStore } from '../peer-store.js'
import { PEER_SYSTEMS, type PeerSystem, type StoreAddresses, type StoreKind } from '../peers-systems.js'
import { type FaultTimes, type SlotPlan, type SlotRecord, tallySystem } from '../peers-tally.js'
import {
  type BenchContext,
  type Child,
  type LogLine,
  procSample,
  QUICK,
  sig,
  sleep,
  spawnNode,
  startSandboxProcess,
  table,
  writeResult,
} from '../support.js'

export const PROCESSES = 3
const SLOT_MS = 60_000
/** Offsets from t0 (ms). The kill falls 20 s after a slot; the crash 10 s before one, down across it. */
export const PLAN = QUICK
  ? {
      slots: 8,
      restFrom: 30_000,
      restTo: 90_000,
      kill: 140_000,
      restart: 200_000,
      crash: 290_000,
      downMs: 20_000,
    }
  : {
      slots: 20,
      restFrom: 30_000,
      restTo: 270_000,
      kill: 320_000,
      restart: 620_000,
      crash: 830_000,
      downMs: 20_000,
    }

interface Running {
  system: PeerSystem
  members: Child[]
  /** Every process it ever started (pid → RSS at rest, KiB). */
  rssKiB: Record<number, number>
  victimPid?: number
}

interface Stores {
  byKind: Partial<Record<StoreKind, PeerStore>>
  skipped: Record<string, string>
  addresses: StoreAddresses
}

const keepLine = (l: LogLine) =>
  l.event === 'ready' || l.event === 'error' || l.msg === 'campaigning' || l.level === 50
const isReady = (l: LogLine) => l.event === 'ready' || l.msg === 'campaigning'

/** Starts each store; one that fails is recorded in `skipped` with its error, the others still start. */
async function startStores(forgeEnv: Record<string, string>): Promise<Stores> {
  const stores: Stores = { byKind: {}, skipped: {}, addresses: { forgeEnv } }
  const attempt = async (kind: StoreKind, start: () => Promise<PeerStore>) => {
    try {
      stores.byKind[kind] = await start()
    } catch (error) {
      stores.skipped[kind] =
        error instanceof Error ? `${error.message}${error.cause ? ` (${error.cause})` : ''}` : String(error)
      console.error(`bench peers: ${kind} could not start: ${stores.skipped[kind]}`)
    }
  }
  await attempt('redis', async () => {
    const redis = await startRedis()
    stores.addresses.redisPort = redis.port
    return redis
  })
  await attempt('postgres', async () => {
    const postgres = await startPostgres(['pgboss', 'graphile'])
    stores.addresses.postgresUrl = postgres.url
    return postgres
  })
  await attempt('ferret', async () => {
    const ferret = await startFerret(PEER_SYSTEMS.filter((s) => s.store === 'ferret').map((s) => s.name))
    stores.addresses.mongoUrl = ferret.url
    return ferret
  })
  return stores
}

function spawnMember(run: Running, index: number, addresses: StoreAddresses, out: string): Child {
  const env = { ...run.system.env(addresses), BENCH_PEERS_OUT: out }
  const label = `${run.system.name}-${index + 1}`
  return spawnNode(label, run.system.script, run.system.args, env, keepLine)
}

/** Starts three processes per system whose store is up; a system whose processes do not start is skipped. */
async function startSystems(stores: Stores, out: string, skipped: Record<string, string>) {
  const runs: Running[] = []
  for (const system of PEER_SYSTEMS) {
    if (!stores.byKind[system.store]) {
      skipped[system.name] = `its store (${system.store}) could not start: ${stores.skipped[system.store]}`
      continue
    }
    const run: Running = { system, members: [], rssKiB: {} }
    runs.push(run)
  }
  const started = await Promise.all(
    runs.map((run) =>
      spawnMembers(run, stores.addresses, out)
        .then(() => true)
        .catch((error) => {
          skipped[run.system.name] =
            `its processes did not start: ${error instanceof Error ? error.message : error}`
          return false
        }),
    ),
  )
  for (const run of runs.filter((_, i) => !started[i]))
    await Promise.all(run.members.map((m) => m.stop('SIGKILL', 5_000)))
  return runs.filter((_, i) => started[i])
}

/** Spawns a system's processes (its first alone, ready, when it asks) and waits until all are ready. */
async function spawnMembers(run: Running, addresses: StoreAddresses, out: string): Promise<void> {
  const ready = (m: Child) => m.waitFor(isReady, 90_000, `${run.system.name} ready`)
  if (run.system.firstAlone) {
    run.members.push(spawnMember(run, 0, addresses, out))
    await ready(run.members[0]!)
  }
  while (run.members.length < PROCESSES)
    run.members.push(spawnMember(run, run.members.length, addresses, out))
  await Promise.all(run.members.map(ready))
}

async function readRecords(out: string): Promise<SlotRecord[]> {
  const records: SlotRecord[] = []
  for (const file of await readdir(out)) {
    const text = await readFile(join(out, file), 'utf8')
    for (const line of text.split('\n')) if (line.trim()) records.push(JSON.parse(line) as SlotRecord)
  }
  return records
}

const untilInstant = (at: number) => sleep(Math.max(0, at - Date.now()))

/** Every store's operation counters, by store kind. */
async function snapshotOps(stores: Stores): Promise<Partial<Record<StoreKind, OpCounts>>> {
  const snap: Partial<Record<StoreKind, OpCounts>> = {}
  for (const [kind, store] of Object.entries(stores.byKind) as Array<[StoreKind, PeerStore]>)
    snap[kind] = await store.ops().catch(() => ({}))
  return snap
}

/** A system's share of its store's operations over the window. */
function opsOf(
  system: PeerSystem,
  before: Partial<Record<StoreKind, OpCounts>>,
  after: Partial<Record<StoreKind, OpCounts>>,
) {
  const delta = opsBetween(before[system.store] ?? {}, after[system.store] ?? {})
  if (system.store === 'redis')
    return { total: Object.values(delta).reduce((s, n) => s + n, 0), byCommand: delta }
  const key = system.store === 'postgres' ? (system.name === 'pg-boss' ? 'pgboss' : 'graphile') : system.name
  return { total: delta[key] ?? 0, byCommand: {} }
}

async function sampleRss(runs: Running[]): Promise<void> {
  for (const run of runs)
    for (const m of run.members) {
      const sample = await procSample(m.pid)
      if (sample) run.rssKiB[m.pid] = sample.rssKiB
    }
}

/** SIGKILLs, in each system, the process that ran its latest slot (the first one when none ran yet). */
async function killLatestRunners(runs: Running[], out: string): Promise<void> {
  const records = await readRecords(out)
  for (const run of runs) {
    const latest = records
      .filter((r) => r.system === run.system.name)
      .sort((a, b) => a.start - b.start)
      .at(-1)
    const victim = run.members.find((m) => m.pid === latest?.pid) ?? run.members[0]!
    run.victimPid = victim.pid
    victim.child.kill('SIGKILL')
    run.members.splice(run.members.indexOf(victim), 1)
  }
}

/** Crashes every store at once and restarts each after `downMs`; returns when all are back. */
async function crashStores(stores: Stores, downMs: number): Promise<void> {
  await Promise.all(
    Object.entries(stores.byKind).map(([kind, store]) =>
      store
        .crashAndRestart(downMs)
        .catch((error) => console.error(`bench peers: ${kind} restart failed: ${error}`)),
    ),
  )
}

/** Runs the plan from t0 on every running system; returns the fault instants and the at-rest operations. */
async function runPlan(runs: Running[], stores: Stores, t0: number, out: string) {
  await untilInstant(t0 + PLAN.restFrom)
  const before = await snapshotOps(stores)
  await untilInstant(t0 + PLAN.restTo)
  const after = await snapshotOps(stores)
  await sampleRss(runs)
  await untilInstant(t0 + PLAN.kill)
  const killAt = Date.now()
  await killLatestRunners(runs, out)
  console.log(`bench peers: SIGKILL ${runs.map((r) => `${r.system.name} ${r.victimPid}`).join(', ')}`)
  await untilInstant(t0 + PLAN.restart)
  const processRestartAt = Date.now()
  for (const run of runs) run.members.push(spawnMember(run, PROCESSES, stores.addresses, out))
  await untilInstant(t0 + PLAN.crash)
  const crashAt = Date.now()
  console.log('bench peers: crashing every store')
  await crashStores(stores, PLAN.downMs)
  const storeBackAt = Date.now()
  console.log(`bench peers: stores back after ${storeBackAt - crashAt} ms`)
  await untilInstant(t0 + PLAN.slots * SLOT_MS + 30_000)
  return { killAt, processRestartAt, crashAt, storeBackAt, before, after }
}

type PlanRun = Awaited<ReturnType<typeof runPlan>>

function figures(run: Running, records: SlotRecord[], plan: SlotPlan, timeline: PlanRun) {
  const faults: FaultTimes = { ...timeline, victimPid: run.victimPid ?? -1 }
  const ops = opsOf(run.system, timeline.before, timeline.after)
  const restSlots = (PLAN.restTo - PLAN.restFrom) / SLOT_MS
  const rss = Object.values(run.rssKiB).map((k) => sig(k / 1024, 3))
  return {
    system: run.system.name,
    version: run.system.version,
    store: run.system.store,
    docs: run.system.docs,
    settings: run.system.settings,
    ...tallySystem(
      records.filter((r) => r.system === run.system.name),
      plan,
      faults,
    ),
    storeOpsAtRest: {
      perHour: Math.round((ops.total / (PLAN.restTo - PLAN.restFrom)) * 3_600_000),
      perSlot: sig(ops.total / restSlots, 3),
      byCommand: ops.byCommand,
    },
    rssMiB: rss,
  }
}

function printSummary(systems: Array<ReturnType<typeof figures>>): void {
  const rows = [
    [
      'system',
      'once',
      '2+',
      'never',
      'kill: 2+/never',
      'store: 2+/never',
      'delay p50/p99 ms',
      'kill→next ms',
      'ops/h rest',
    ],
  ]
  for (const s of systems)
    rows.push([
      s.system,
      String(s.overall.once),
      String(s.overall.twiceOrMore),
      String(s.overall.never),
      `${s.windows.kill.twiceOrMore}/${s.windows.kill.never}`,
      `${s.windows.store.twiceOrMore}/${s.windows.store.never}`,
      `${s.delayMs?.p50}/${s.delayMs?.p99}`,
      String(s.killToNextRunMs),
      String(s.storeOpsAtRest.perHour),
    ])
  console.log(`\n${table(rows)}\n`)
}

async function stopEverything(runs: Running[], stores: Stores): Promise<void> {
  await Promise.all(runs.flatMap((r) => r.members.map((m) => m.stop('SIGTERM', 10_000))))
  for (const store of Object.values(stores.byKind)) await store.stop().catch(() => undefined)
}

function inputs(stores: Stores, t0: number) {
  return {
    schedule:
      '* * * * * (every minute; pg-boss and graphile-worker schedule by the minute, so no seconds variant)',
    processesPerSystem: PROCESSES,
    plan: { ...PLAN, slotMs: SLOT_MS, t0: new Date(t0).toISOString() },
    concurrency:
      'all systems at once on one 2-core machine, each on its own database; delays include the others’ load',
    stores: Object.fromEntries(
      Object.entries(stores.byKind).map(([k, s]) => [k, { server: s.description, settings: s.settings }]),
    ),
    faults:
      'SIGKILL of the process that ran the latest slot, restarted 5 min later (QUICK: 1 min); then every store killed (Redis SIGKILL, Postgres pg_ctl -m immediate, FerretDB SIGKILL) and restarted 20 s later on its data',
    windows:
      'kill: slots from the SIGKILL to a minute after the restart; store: from the crash to 2 min after the store is back; rest: the others',
    opsAtRest:
      'Redis INFO commandstats (every command, Lua-script inner calls included), Postgres pg_stat_database xact_commit + xact_rollback of the peer’s database, Mongo commands through bench/mongo-op-counter.ts (driver monitoring and sessions apart)',
    slotAttribution:
      'the scheduled instant the system hands the handler (bullmq job id, graphile _cron.ts, node-cron context.date, leasecron ctx.slot); pg-boss and agenda hand none, so the minute the handler started in',
  }
}

export async function runPeers(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const out = await mkdtemp(join(tmpdir(), 'leasecron-peers-out-'))
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  const stores = await startStores(sandbox.env)
  const skipped: Record<string, string> = {}
  let runs: Running[] = []
  try {
    runs = await startSystems(stores, out, skipped)
    for (const [name, why] of Object.entries(skipped)) console.error(`bench peers: skipped ${name}: ${why}`)
    const t0 = Math.ceil((Date.now() + 5_000) / SLOT_MS) * SLOT_MS
    console.log(
      `bench peers: ${runs.map((r) => r.system.name).join(', ')}; first slot ${new Date(t0).toISOString()}`,
    )
    const timeline = await runPlan(runs, stores, t0, out)
    const records = await readRecords(out)
    const plan: SlotPlan = { t0, slots: PLAN.slots, slotMs: SLOT_MS }
    const systems = runs.map((run) => figures(run, records, plan, timeline))
    printSummary(systems)
    const faultTimes = {
      killAt: timeline.killAt,
      processRestartAt: timeline.processRestartAt,
      crashAt: timeline.crashAt,
      storeBackAt: timeline.storeBackAt,
    }
    const path = await writeResult('peers', context, startedAt, {
      inputs: inputs(stores, t0),
      faultTimes,
      skipped,
      systems,
    })
    console.log(`bench peers: wrote ${path}`)
    return path
  } finally {
    await stopEverything(runs, stores)
    await sandbox.child.stop()
    await rm(out, { recursive: true, force: true })
  }
}
