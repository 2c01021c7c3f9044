/**
 * Scenario `peers`: leasecron next to what its users would pick instead — BullMQ (Redis), pg-boss and
 * graphile-worker (PostgreSQL), agenda and node-cron's distributed mode with leasecron's `leaseCoordinator`
 * (FerretDB) — on one schedule, `* * * * *` (pg-boss and graphile-worker schedule by the minute, so the
 * minute for all; no seconds variant), three processes each, for a fixed number of slots. The plan, in
 * slots from the first (t0): an at-rest window (store operations, RSS), a SIGKILL of the process that ran
 * the latest slot and its restart five minutes later, a crash of every backing store for 20 s, a 30 s
 * partition of the latest runner from its store (its own TCP proxy turned to a black hole), a clean stop
 * (SIGTERM) of the latest runner 5 s before a slot, whose delay is then the hand-over's cost, and +5 s of
 * clock skew on the latest runner for the rest of the run (libfaketime). Each process reaches its store
 * through its own proxy and clock file (bench/peer-links.ts).
 *
 * All six run at once, each on its own store (the two Postgres peers share one server, the three Mongo
 * ones one FerretDB, each in its own database): they share the 2-core machine, so delays include each
 * other's load. Counts come only from the handlers' own files (bench/peers/record-slot.mjs). A system
 * whose store or processes cannot start is skipped and named with the reason, never silently.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSlotRecords, untilInstant } from '../peers-records.js'
import { startFerret } from '../peer-ferret.js'
import { startPostgres } from '../peer-postgres.js'
import { startRedis } from '../peer-redis.js'
import { canSkew, openPeerLinks, type PeerLinks } from '../peer-links.js'
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
/**
 * Offsets from t0 (ms). The kill falls 20 s after a slot; the crash 10 s before one, down across it; the
 * partition 10 s after one, for 30 s; the clean stop 5 s before one; the skew 30 s before one, after the
 * stop (a skewed process that is then stopped would have run the stop's slot early itself).
 */
export const PLAN = QUICK
  ? {
      slots: 14,
      restFrom: 30_000,
      restTo: 90_000,
      kill: 140_000,
      restart: 200_000,
      crash: 290_000,
      downMs: 20_000,
      partition: 430_000,
      partitionMs: 30_000,
      stop: 595_000,
      skew: 630_000,
      skewSeconds: 5,
    }
  : {
      slots: 25,
      restFrom: 30_000,
      restTo: 270_000,
      kill: 320_000,
      restart: 620_000,
      crash: 830_000,
      downMs: 20_000,
      partition: 1_030_000,
      partitionMs: 30_000,
      stop: 1_195_000,
      skew: 1_230_000,
      skewSeconds: 5,
    }

interface Running {
  system: PeerSystem
  members: Child[]
  /** Each process's proxy and clock, by pid (closed at the end). */
  links: Map<number, PeerLinks>
  /** Every process it ever started (pid → RSS at rest, KiB). */
  rssKiB: Record<number, number>
  victimPid?: number
  partitionPid?: number
  skewPid?: number
  stopPid?: number
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

/** Spawns one process of `run`, reaching its store through links of its own. */
async function spawnMember(run: Running, index: number, addresses: StoreAddresses, out: string) {
  const links = await openPeerLinks(run.system, addresses)
  const env = { ...run.system.env(links.addresses), ...links.clockEnv, BENCH_PEERS_OUT: out }
  const label = `${run.system.name}-${index + 1}`
  const child = spawnNode(label, run.system.script, run.system.args, env, keepLine)
  run.links.set(child.pid, links)
  run.members.push(child)
  return child
}

/** Starts three processes per system whose store is up; a system whose processes do not start is skipped. */
async function startSystems(stores: Stores, out: string, skipped: Record<string, string>) {
  const runs: Running[] = []
  for (const system of PEER_SYSTEMS) {
    if (!stores.byKind[system.store]) {
      skipped[system.name] = `its store (${system.store}) could not start: ${stores.skipped[system.store]}`
      continue
    }
    const run: Running = { system, members: [], links: new Map(), rssKiB: {} }
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
  if (run.system.firstAlone) await ready(await spawnMember(run, 0, addresses, out))
  while (run.members.length < PROCESSES) await spawnMember(run, run.members.length, addresses, out)
  await Promise.all(run.members.map(ready))
}

const readRecords = (out: string) => readSlotRecords<SlotRecord>(out)

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

/** Each system's process that ran its latest slot (its first one when none ran yet). */
async function latestRunners(runs: Running[], out: string): Promise<Map<Running, Child>> {
  const records = await readRecords(out)
  const latest = new Map<Running, Child>()
  for (const run of runs) {
    const record = records
      .filter((r) => r.system === run.system.name)
      .sort((a, b) => a.start - b.start)
      .at(-1)
    latest.set(run, run.members.find((m) => m.pid === record?.pid) ?? run.members[0]!)
  }
  return latest
}

/** SIGKILLs, in each system, the process that ran its latest slot. */
async function killLatestRunners(runs: Running[], out: string): Promise<void> {
  for (const [run, victim] of await latestRunners(runs, out)) {
    run.victimPid = victim.pid
    victim.child.kill('SIGKILL')
    run.members.splice(run.members.indexOf(victim), 1)
  }
}

/** Cuts each system's latest runner off from its store for `ms`, then heals it; returns when healed. */
async function partitionLatestRunners(runs: Running[], out: string, ms: number): Promise<number> {
  const cut = await latestRunners(runs, out)
  for (const [run, victim] of cut) {
    run.partitionPid = victim.pid
    await run.links.get(victim.pid)!.partition(true)
  }
  await sleep(ms)
  for (const [run, victim] of cut) await run.links.get(victim.pid)!.partition(false)
  return Date.now()
}

/** Moves each system's latest runner's clock `seconds` ahead, for the rest of the run. */
async function skewLatestRunners(runs: Running[], out: string, seconds: number): Promise<void> {
  for (const [run, victim] of await latestRunners(runs, out)) {
    run.skewPid = victim.pid
    await run.links.get(victim.pid)!.skew(seconds)
  }
}

/** Stops each system's latest runner cleanly (SIGTERM, as a rolling update does); does not wait for it. */
async function stopLatestRunners(runs: Running[], out: string): Promise<void> {
  for (const [run, victim] of await latestRunners(runs, out)) {
    run.stopPid = victim.pid
    void victim.stop('SIGTERM', 30_000)
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
  for (const run of runs) await spawnMember(run, PROCESSES, stores.addresses, out)
  await untilInstant(t0 + PLAN.crash)
  const crashAt = Date.now()
  console.log('bench peers: crashing every store')
  await crashStores(stores, PLAN.downMs)
  const storeBackAt = Date.now()
  console.log(`bench peers: stores back after ${storeBackAt - crashAt} ms`)
  const later = await runLaterFaults(runs, t0, out)
  await untilInstant(t0 + PLAN.slots * SLOT_MS + 30_000)
  return { killAt, processRestartAt, crashAt, storeBackAt, ...later, before, after }
}

/** The faults after the store crash: one process partitioned, one stopped cleanly, one skewed. */
async function runLaterFaults(runs: Running[], t0: number, out: string) {
  await untilInstant(t0 + PLAN.partition)
  const partitionAt = Date.now()
  console.log(`bench peers: partitioning each system's latest runner for ${PLAN.partitionMs} ms`)
  const healAt = await partitionLatestRunners(runs, out, PLAN.partitionMs)
  await untilInstant(t0 + PLAN.stop)
  const stopAt = Date.now()
  await stopLatestRunners(runs, out)
  console.log(`bench peers: SIGTERM ${runs.map((r) => `${r.system.name} ${r.stopPid}`).join(', ')}`)
  await untilInstant(t0 + PLAN.skew)
  const skewAt = Date.now()
  if (canSkew) await skewLatestRunners(runs, out, PLAN.skewSeconds)
  console.log(
    canSkew
      ? `bench peers: +${PLAN.skewSeconds} s on ${runs.map((r) => `${r.system.name} ${r.skewPid}`).join(', ')}`
      : 'bench peers: no libfaketime (apt-get install faketime): no clock skew in this run',
  )
  return { partitionAt, healAt, stopAt, skewAt }
}

type PlanRun = Awaited<ReturnType<typeof runPlan>>

function figures(run: Running, records: SlotRecord[], plan: SlotPlan, timeline: PlanRun) {
  const faults: FaultTimes = {
    ...timeline,
    victimPid: run.victimPid ?? -1,
    partitionPid: run.partitionPid ?? -1,
    skewPid: run.skewPid ?? -1,
    stopPid: run.stopPid ?? -1,
  }
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
      'part.: 2+/never',
      'skew: 2+/never',
      'stop→slot ms',
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
      `${s.windows.partition.twiceOrMore}/${s.windows.partition.never}`,
      `${s.windows.skew.twiceOrMore}/${s.windows.skew.never}`,
      String(s.afterCleanStop?.delayMs),
      String(s.storeOpsAtRest.perHour),
    ])
  console.log(`\n${table(rows)}\n`)
}

async function stopEverything(runs: Running[], stores: Stores): Promise<void> {
  await Promise.all(runs.flatMap((r) => r.members.map((m) => m.stop('SIGTERM', 10_000))))
  for (const store of Object.values(stores.byKind)) await store.stop().catch(() => undefined)
  for (const run of runs) for (const links of run.links.values()) await links.close()
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
      'in order, each on the process that ran the latest slot: a SIGKILL, restarted 5 min later (QUICK: 1 min); every store killed (Redis SIGKILL, Postgres pg_ctl -m immediate, FerretDB SIGKILL) and restarted 20 s later on its data; a 30 s partition from its store (its own TCP proxy, test/chaos/tcp-proxy.ts, in blackhole mode: connections held, nothing forwarded, then let through); a clean stop (SIGTERM) 5 s before a slot; +5 s of wall-clock skew for the rest of the run (libfaketime, monotonic clock left alone)',
    clockSkew: canSkew
      ? 'libfaketime preloaded in every process at +0 (FAKETIME_TIMESTAMP_FILE, re-read every second); starts are recorded on the real clock (the process start plus the monotonic clock)'
      : 'not applied: no libfaketime on this machine',
    windows:
      'kill: slots from the SIGKILL to a minute after the restart; store: from the crash to 2 min after the store is back; partition: from the cut to 2 min after it heals; stop: from the clean stop to the skew; skew: from the skew on; rest: the others',
    handover:
      'afterCleanStop: the first slot after the SIGTERM (5 s later) and the delay of its first start; a hand-over within 2 s leaves it near the at-rest delay',
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
    const { before: _before, after: _after, ...faultTimes } = timeline
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
