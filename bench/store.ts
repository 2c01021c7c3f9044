/**
 * Lease store benchmark: ops/s and p50/p99 latency of `acquire`, `renew` and `release` for both twins
 * (MemoryStore in process; MongoStore against the test server), next to a bare `updateOne` on the same
 * server in the same run. The goal it checks: every MongoStore call is one round trip, so its p50 stays
 * within 1.25× of the bare update's p50 (`p50Ratio` under `mongo.mongoStore` in the result).
 *
 * Run: `npm run bench:store` (= `node --import tsx bench/store.ts`). The server is the tests' one, chosen by
 * `startTestMongo()`: `MONGO_URL` when set, else mongodb-memory-server, else FerretDB; it is stopped at the
 * end and the bench's database dropped. `LEASECRON_BENCH_ITERATIONS` overrides the measured iterations per
 * operation (default 2000). Writes `bench/results/store.json` and prints a table.
 *
 * Method: every call is awaited before the next is sent (one outstanding at a time), so a call's latency
 * is its round trip, and ops/s = calls ÷ the summed time of the timed calls. After a warm-up, each iteration
 * calls every workload once in a rotating order, so load from elsewhere on the machine falls on all alike.
 * The bare update's document lives in the store's own collection, which holds a fixed number of other
 * leases (as a deployment with a few jobs would) and keeps that size throughout: leases a workload creates
 * are released again and their documents deleted, untimed (a released lease keeps its document and fence). `now` stamps are fixed whole milliseconds advancing by a step per iteration,
 * so each call takes the path a healthy deployment takes:
 * - acquire: alternately a fresh lease (the `findOneAndUpdate` upsert inserts) and its holder re-acquiring it
 *   (the upsert matches and starts a new term: new token, fence + 1);
 * - renew: the holder renewing its term (the update matches `{_id, owner, token}` and moves the expiry forward);
 * - release: the holder releasing a lease it acquired just before (only the release is timed);
 * - bare update: `updateOne({_id}, {$set: {owner, expiresAt, renewedAt}})` on an existing lease-shaped
 *   document, with the store's write concern (`majority`).
 * Reported apart, not held to the goal: release of an absent lease and of one another owner holds (an update
 * that matches nothing, then a read to name the holder: two round trips by design); an acquire refused because another owner
 * holds the lease (the duplicate-key answer); `ping`, one round trip that touches no data; renew's exact
 * update sent through the driver without the store; and the three goal operations at other collection sizes.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { type Collection, type Db, MongoClient } from 'mongodb'
import { MemoryStore } from '../src/lease/memory-store.js'
import { type LeaseDocument, MongoStore } from '../src/lease/mongo-store.js'
import { type LeaseGrant, LeaseLostError, type LeaseStore } from '../src/lease/store.js'
import { startTestMongo, type TestMongoServer } from '../test/support/mongo-server.js'
import { gitCommit, machine, percentile, resultsDir, sig, table } from './support.js'

const resultPath = join(resultsDir, 'store.json')

const ITERATIONS = positiveInt(process.env.LEASECRON_BENCH_ITERATIONS, 2000)
const WARMUP = 200
const GOAL_P50_RATIO = 1.25
/** Other leases in the collection during the main run: a deployment with a handful of jobs. */
const BACKGROUND_LEASES = 8
/** Other leases in the collection for the size sweep, measured with fewer iterations. */
const SWEEP_BACKGROUND_LEASES = [0, 100, 1000]
const SWEEP_ITERATIONS = 100
const SWEEP_WARMUP = 20
const TTL_MS = 30_000
/** Each iteration's `now` is this much later than the previous one's: less than the TTL, so a holder still holds. */
const NOW_STEP_MS = 1_000
const T0_MS = Date.UTC(2025, 0, 1)
const LONG_TTL_MS = 365 * 24 * 3600_000
const OWNER = 'bench-owner'
const OTHER_OWNER = 'other-owner'
const MAJORITY = { w: 'majority' } as const

interface Workload {
  label: string
  /** Once, before the warm-up. */
  setup?: () => Promise<void>
  /** Before each timed call, untimed. */
  prepare?: (k: number) => Promise<void>
  /** The timed call; `k` counts this workload's iterations, warm-up included. Returns a path label, if any. */
  call: (k: number) => Promise<string | undefined>
  /** After each timed call, untimed. */
  cleanup?: (k: number) => Promise<void>
}

interface Samples {
  all: number[]
  byPath: Map<string, number[]>
}

interface Stats {
  n: number
  opsPerSec: number
  p50Ms: number
  p99Ms: number
  meanMs: number
  paths?: Record<string, Stats>
}

function positiveInt(text: string | undefined, fallback: number): number {
  const value = Number(text)
  return text && Number.isInteger(value) && value > 0 ? value : fallback
}

const at = (k: number): Date => new Date(T0_MS + k * NOW_STEP_MS)

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`bench: unexpected answer: ${what}`)
}

/** Drops a lease's document (untimed), so the collection keeps its size: a released lease keeps one. */
type Forget = (name: string) => Promise<void>
const keep: Forget = async () => {}

function granted(grant: LeaseGrant | false, what: string): LeaseGrant {
  if (!grant) throw new Error(`bench: unexpected answer: ${what}`)
  return grant
}

/** Acquire: even iterations take a fresh lease, odd ones have its holder re-acquire it (then release it, untimed). */
function acquireWorkload(store: LeaseStore, forget: Forget): Workload {
  const name = (k: number) => `bench-acq-${k - (k % 2)}`
  let grant: LeaseGrant | undefined
  return {
    label: 'acquire',
    call: async (k) => {
      grant = granted(await store.acquire(name(k), OWNER, at(k), TTL_MS), `acquire of ${name(k)} refused`)
      return k % 2 === 0 ? 'fresh lease' : 'holder re-acquires'
    },
    cleanup: async (k) => {
      if (k % 2 === 0 || !grant) return
      await store.release(grant)
      await forget(name(k))
    },
  }
}

function renewWorkload(store: LeaseStore): Workload {
  const name = 'bench-renew'
  let grant: LeaseGrant | undefined
  return {
    label: 'renew',
    setup: async () => {
      grant = granted(await store.acquire(name, OWNER, at(0), TTL_MS), 'renew setup')
    },
    call: async (k) => {
      expect(await store.renew(grant!, at(k), TTL_MS), `renew of ${name} refused`)
      return undefined
    },
  }
}

function releaseWorkload(store: LeaseStore, forget: Forget): Workload {
  const name = (k: number) => `bench-rel-${k}`
  let grant: LeaseGrant | undefined
  return {
    label: 'release',
    prepare: async (k) => {
      grant = granted(await store.acquire(name(k), OWNER, at(k), TTL_MS), 'release setup')
    },
    call: async () => {
      await store.release(grant!)
      return undefined
    },
    cleanup: (k) => forget(name(k)),
  }
}

/** The labelled paths that are not held to the goal; they share one lease another owner holds all run long. */
function otherPathWorkloads(store: LeaseStore): Workload[] {
  const held = 'bench-held'
  const setup = async () => {
    if ((await store.list()).some((lease) => lease.name === held)) return
    expect(!!(await store.acquire(held, OTHER_OWNER, at(0), LONG_TTL_MS)), 'held-by-another setup')
  }
  return [
    {
      label: 'release, lease absent',
      call: async (k) => {
        await store.release({ name: `bench-absent-${k}`, owner: OWNER, token: 'no-such-term' })
        return undefined
      },
    },
    {
      label: 'release, held by another',
      setup,
      call: async () => {
        const lost = await store.release({ name: held, owner: OWNER, token: 'an-earlier-term' }).then(
          () => false,
          (error: unknown) => {
            if (error instanceof LeaseLostError) return true
            throw error
          },
        )
        expect(lost, 'release of a lease held by another owner did not reject')
        return undefined
      },
    },
    {
      label: 'acquire, refused (held by another)',
      setup,
      call: async (k) => {
        expect(!(await store.acquire(held, OWNER, at(k), TTL_MS)), 'acquire of a held lease granted')
        return undefined
      },
    },
  ]
}

/**
 * Runs the workloads: warm-up, then `iterations` iterations, each making one call of every workload in an
 * order that rotates per iteration. Interleaving call by call puts every operation under the same moment's
 * load (a busy machine shifts all of them together), which keeps their ratios honest.
 */
async function measure(
  workloads: Workload[],
  iterations: number,
  warmup: number,
): Promise<Map<string, Stats>> {
  const samples = new Map<string, Samples>()
  const counters = new Map<Workload, number>()
  for (const w of workloads) {
    samples.set(w.label, { all: [], byPath: new Map() })
    counters.set(w, 0)
    await w.setup?.()
  }
  const step = async (w: Workload, record: boolean) => {
    const k = counters.get(w)!
    counters.set(w, k + 1)
    await w.prepare?.(k)
    const start = performance.now()
    const path = await w.call(k)
    const elapsed = performance.now() - start
    await w.cleanup?.(k)
    if (!record) return
    const s = samples.get(w.label)!
    s.all.push(elapsed)
    if (path !== undefined) s.byPath.set(path, [...(s.byPath.get(path) ?? []), elapsed])
  }
  for (let i = 0; i < warmup + iterations; i++) {
    for (let j = 0; j < workloads.length; j++) await step(workloads[(i + j) % workloads.length]!, i >= warmup)
  }
  return new Map([...samples].map(([label, s]) => [label, summarize(s)]))
}

/** Nearest-rank percentile of sorted samples. */
function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b)
  const total = values.reduce((sum, v) => sum + v, 0)
  return {
    n: values.length,
    opsPerSec: sig((values.length / total) * 1000),
    p50Ms: sig(percentile(sorted, 50)),
    p99Ms: sig(percentile(sorted, 99)),
    meanMs: sig(total / values.length),
  }
}

function summarize(s: Samples): Stats {
  const result = stats(s.all)
  if (s.byPath.size > 0) {
    result.paths = Object.fromEntries([...s.byPath].map(([path, values]) => [path, stats(values)]))
  }
  return result
}

/** Inserts a lease-shaped document held by OWNER under `token`, for a driver-only workload to update. */
async function insertHeldLease(leases: Collection<LeaseDocument>, id: string, token: string): Promise<void> {
  await leases.insertOne({ _id: id, owner: OWNER, token, fence: 1, expiresAt: at(0), renewedAt: at(0) })
}

/** The yardstick: a bare `updateOne` on an existing lease-shaped document, with the store's write concern. */
function bareUpdateWorkload(leases: Collection<LeaseDocument>): Workload {
  const bareId = 'bench-bare-update'
  return {
    label: 'bare updateOne',
    setup: () => insertHeldLease(leases, bareId, 'bare'),
    call: async (k) => {
      const now = at(k)
      const result = await leases.updateOne(
        { _id: bareId },
        { $set: { owner: OWNER, expiresAt: new Date(now.getTime() + TTL_MS), renewedAt: now } },
      )
      expect(result.matchedCount === 1, 'bare update matched nothing')
      return undefined
    },
  }
}

/** Reported apart: a `ping`, and renew's exact update sent through the driver without the store. */
function driverWorkloads(db: Db, leases: Collection<LeaseDocument>): Workload[] {
  const renewShapeId = 'bench-driver-renew'
  return [
    {
      label: 'ping',
      call: async () => {
        await db.command({ ping: 1 })
        return undefined
      },
    },
    {
      label: "driver updateOne with renew's filter {_id, owner, token} and $max",
      setup: () => insertHeldLease(leases, renewShapeId, 'driver'),
      call: async (k) => {
        const now = at(k)
        const result = await leases.updateOne(
          { _id: renewShapeId, owner: OWNER, token: 'driver' },
          { $max: { expiresAt: new Date(now.getTime() + TTL_MS), renewedAt: now } },
        )
        expect(result.matchedCount === 1, "driver update with renew's filter matched nothing")
        return undefined
      },
    },
  ]
}

/**
 * One Mongo collection as the bench uses it: `background` other leases, a MongoStore on it, the bare
 * update's document in it, and the workloads. `extras` adds the labelled non-goal workloads.
 */
async function mongoWorkloads(
  db: Db,
  collection: string,
  background: number,
  extras: boolean,
): Promise<{ workloads: Workload[]; documents: () => Promise<number> }> {
  const leases = db.collection<LeaseDocument>(collection, { writeConcern: MAJORITY })
  if (background > 0) {
    await leases.insertMany(
      Array.from({ length: background }, (_, i) => ({
        _id: `job-${i}`,
        owner: `replica-${i % 3}`,
        token: `term-${i}`,
        fence: 1,
        expiresAt: new Date(T0_MS + LONG_TTL_MS),
        renewedAt: at(0),
      })),
    )
  }
  const store = new MongoStore(db, { collection })
  const forget: Forget = async (name) => {
    await leases.deleteOne({ _id: name })
  }
  const workloads = [
    bareUpdateWorkload(leases),
    acquireWorkload(store, forget),
    renewWorkload(store),
    releaseWorkload(store, forget),
  ]
  if (extras) workloads.push(...driverWorkloads(db, leases), ...otherPathWorkloads(store))
  return { workloads, documents: () => leases.countDocuments() }
}

/**
 * Counts the commands each store call sends, on a client of its own with command monitoring (so the timed
 * runs carry no listener): one command is one round trip. Runs on the main collection after the timings.
 */
async function commandsPerCall(
  url: string,
  dbName: string,
  collection: string,
): Promise<Record<string, number>> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000, monitorCommands: true })
  let sent: string[] = []
  client.on('commandStarted', (event) => sent.push(event.commandName))
  try {
    await client.connect()
    const db = client.db(dbName)
    const store = new MongoStore(db, { collection })
    const leases = db.collection<LeaseDocument>(collection, { writeConcern: MAJORITY })
    const k = 10 ** 6
    const count = async (call: () => Promise<unknown>) => {
      sent = []
      await call().catch((error: unknown) => {
        if (!(error instanceof LeaseLostError)) throw error
      })
      return sent.length
    }
    let grant: LeaseGrant | false = false
    const term = () => granted(grant, 'count setup')
    const counts = {
      'bare updateOne': await count(() =>
        leases.updateOne({ _id: 'bench-bare-update' }, { $set: { owner: OWNER, renewedAt: at(k) } }),
      ),
      'acquire: fresh lease': await count(async () => {
        grant = await store.acquire('bench-count', OWNER, at(k), TTL_MS)
      }),
      'acquire: holder re-acquires': await count(async () => {
        grant = await store.acquire('bench-count', OWNER, at(k + 1), TTL_MS)
      }),
      renew: await count(() => store.renew(term(), at(k + 2), TTL_MS)),
      release: await count(() => store.release(term())),
      'release, lease absent': await count(() =>
        store.release({ name: 'bench-count-absent', owner: OWNER, token: 'none' }),
      ),
      'release, held by another': await count(() =>
        store.release({ name: 'bench-held', owner: OWNER, token: 'an-earlier-term' }),
      ),
      'acquire, refused (held by another)': await count(() =>
        store.acquire('bench-held', OWNER, at(k), TTL_MS),
      ),
    }
    return counts
  } finally {
    await client.close()
  }
}

/** Every measurement of one bench run: the main collection, commands per call, MemoryStore, the sweep. */
async function measureAll(url: string, db: Db) {
  const started = performance.now()
  console.log(
    `bench: ${ITERATIONS} sequential calls per operation after ${WARMUP} warm-up calls, ` +
      `interleaved, ${BACKGROUND_LEASES} other leases in the collection`,
  )
  const main = await mongoWorkloads(db, 'leases', BACKGROUND_LEASES, true)
  const mongo = await measure(main.workloads, ITERATIONS, WARMUP)
  const documents = await main.documents()
  const commands = await commandsPerCall(url, db.databaseName, 'leases')
  const memory = new MemoryStore()
  for (let i = 0; i < BACKGROUND_LEASES; i++)
    await memory.acquire(`job-${i}`, `replica-${i % 3}`, at(0), LONG_TTL_MS)
  const memoryResults = await measure(
    [
      acquireWorkload(memory, keep),
      renewWorkload(memory),
      releaseWorkload(memory, keep),
      ...otherPathWorkloads(memory),
    ],
    ITERATIONS,
    WARMUP,
  )
  const sweep = await sweepSizes(db)
  const durationS = sig((performance.now() - started) / 1000)
  return { mongo, documents, commands, memory, memoryResults, sweep, durationS }
}

type Measured = Awaited<ReturnType<typeof measureAll>>

/** The goal operations at other collection sizes, fewer iterations each. */
async function sweepSizes(db: Db): Promise<Record<string, number>[]> {
  console.log(`bench: collection-size sweep, ${SWEEP_ITERATIONS} calls per operation at each size`)
  const sweep = []
  for (const background of SWEEP_BACKGROUND_LEASES) {
    const set = await mongoWorkloads(db, `sweep_${background}`, background, false)
    const results = await measure(set.workloads, SWEEP_ITERATIONS, SWEEP_WARMUP)
    const bareP50 = results.get('bare updateOne')!.p50Ms
    const entry: Record<string, number> = { documents: await set.documents(), bareUpdateP50Ms: bareP50 }
    for (const op of ['acquire', 'renew', 'release']) {
      const p50 = results.get(op)!.p50Ms
      entry[`${op}P50Ms`] = p50
      entry[`${op}P50OverBareUpdate`] = sig(p50 / bareP50)
    }
    sweep.push(entry)
  }
  return sweep
}

const DRIVER_RENEW_LABEL = "driver updateOne with renew's filter {_id, owner, token} and $max"

/** The goal figures: each store operation's p50 over the bare update's, and the paths reported apart. */
function mongoFigures(m: Measured) {
  const bare = m.mongo.get('bare updateOne')!
  const overBare = (s: Stats) => sig(s.p50Ms / bare.p50Ms)
  const mongoStore = Object.fromEntries(
    ['acquire', 'renew', 'release'].map((op) => {
      const s = m.mongo.get(op)!
      const p50Ratio = overBare(s)
      const roundTrips = Math.max(
        ...Object.entries(m.commands)
          .filter(([label]) => label === op || label.startsWith(`${op}: `))
          .map(([, n]) => n),
      )
      return [op, { ...s, roundTrips, p50Ratio, withinGoal: p50Ratio <= GOAL_P50_RATIO }]
    }),
  )
  const otherPaths = Object.fromEntries(
    otherPathWorkloads(m.memory).map(({ label }) => {
      const s = m.mongo.get(label)!
      return [label, { ...s, roundTrips: m.commands[label]!, p50OverBareUpdate: overBare(s) }]
    }),
  )
  const ping = m.mongo.get('ping')!
  const driverRenew = m.mongo.get(DRIVER_RENEW_LABEL)!
  const goalMet = Object.values(mongoStore).every((op) => op.withinGoal)
  return { bare, overBare, mongoStore, otherPaths, ping, driverRenew, goalMet }
}

type Figures = ReturnType<typeof mongoFigures>

function benchInputs(documents: number) {
  return {
    iterationsPerOperation: ITERATIONS,
    warmupPerOperation: WARMUP,
    order: 'interleaved: each iteration calls every workload once, in an order rotating per iteration',
    concurrency: 1,
    ttlMs: TTL_MS,
    t0: new Date(T0_MS).toISOString(),
    nowStepMs: NOW_STEP_MS,
    writeConcern: 'majority',
    backgroundLeases: BACKGROUND_LEASES,
    collectionDocuments: documents,
    acquire:
      'alternately a fresh lease (findOneAndUpdate upsert inserts) and its holder re-acquiring it one step ' +
      'later (a new term: token and fence + 1)',
    renew: 'the holder renews its term, now advancing by nowStepMs each call',
    release:
      'the holder releases a term it acquired just before (the document stays, freed); only the release is timed',
    bareUpdate:
      'updateOne({_id}, {$set: {owner, expiresAt, renewedAt}}) on an existing lease-shaped document ' +
      'in the same collection, w: majority',
    latency: 'wall time of one awaited call (performance.now); percentiles by nearest rank',
    opsPerSec: 'calls ÷ summed time of the timed calls (one outstanding at a time)',
    roundTrips: 'commands the call sent, counted per path by driver command monitoring on a separate client',
    sweep: { backgroundLeases: SWEEP_BACKGROUND_LEASES, iterations: SWEEP_ITERATIONS, warmup: SWEEP_WARMUP },
  }
}

/** The suite's machine record, with the load average at the start of the run and at its end. */
function machineInfo(server: TestMongoServer, loadAtStart: number[]) {
  const { loadAverage, ...host } = machine(server)
  return { ...host, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage }
}

function resultDocument(
  command: string,
  server: TestMongoServer,
  loadAtStart: number[],
  m: Measured,
  f: Figures,
) {
  return {
    benchmark: 'leasecron lease store: acquire / renew / release',
    generatedAt: new Date().toISOString(),
    command,
    commit: gitCommit(),
    durationS: m.durationS,
    inputs: benchInputs(m.documents),
    machine: machineInfo(server, loadAtStart),
    goal: {
      description:
        `every MongoStore call is one round trip: p50 ≤ ${GOAL_P50_RATIO} × bare updateOne p50 ` +
        '(mongo.mongoStore.*.p50Ratio)',
      maxP50Ratio: GOAL_P50_RATIO,
      met: f.goalMet,
    },
    mongo: {
      commandsPerCall: m.commands,
      bareUpdate: f.bare,
      mongoStore: f.mongoStore,
      otherPaths: f.otherPaths,
      diagnostics: {
        ping: { ...f.ping, p50OverBareUpdate: f.overBare(f.ping) },
        [DRIVER_RENEW_LABEL]: { ...f.driverRenew, p50OverBareUpdate: f.overBare(f.driverRenew) },
      },
      collectionSizeSweep: m.sweep,
    },
    memoryStore: Object.fromEntries(m.memoryResults),
  }
}

function printTables(kind: string, m: Measured, f: Figures): void {
  const rows: string[][] = [['store', 'operation', 'n', 'ops/s', 'p50 ms', 'p99 ms', 'p50 ÷ bare']]
  const row = (store: string, op: string, s: Stats, r?: number) =>
    rows.push([
      store,
      op,
      String(s.n),
      String(Math.round(s.opsPerSec)),
      String(s.p50Ms),
      String(s.p99Ms),
      r === undefined ? '' : `${r.toFixed(2)}×`,
    ])
  row(kind, 'bare updateOne {_id} $set (w:majority)', f.bare, 1)
  for (const [op, s] of Object.entries(f.mongoStore)) {
    row('MongoStore', `${op}${s.withinGoal ? '' : '  (over goal)'}`, s, s.p50Ratio)
    for (const [path, p] of Object.entries(s.paths ?? {}))
      row('MongoStore', `  ${op}: ${path}`, p, f.overBare(p))
  }
  for (const [op, s] of Object.entries(f.otherPaths)) {
    const trips = `${s.roundTrips} round trip${s.roundTrips > 1 ? 's' : ''}`
    row('MongoStore', `${op} [${trips}]`, s, s.p50OverBareUpdate)
  }
  row(kind, 'ping', f.ping, f.overBare(f.ping))
  row(kind, DRIVER_RENEW_LABEL, f.driverRenew, f.overBare(f.driverRenew))
  for (const [op, s] of m.memoryResults) row('MemoryStore', op, s)
  console.log(`\n${table(rows, 2)}\n`)
  const sweepRows = [['documents', 'bare p50 ms', 'acquire ÷ bare', 'renew ÷ bare', 'release ÷ bare']]
  for (const e of m.sweep) {
    sweepRows.push([
      String(e.documents),
      String(e.bareUpdateP50Ms),
      ...['acquire', 'renew', 'release'].map((op) => `${e[`${op}P50OverBareUpdate`]!.toFixed(2)}×`),
    ])
  }
  console.log(`collection-size sweep (p50):\n${table(sweepRows, 2)}\n`)
}

async function main(): Promise<void> {
  const command =
    process.env.npm_lifecycle_event === 'bench:store'
      ? 'npm run bench:store'
      : `node --import tsx ${process.argv.slice(1).join(' ')}`
  const loadAtStart = loadavg().map((v) => sig(v))
  const server = await startTestMongo()
  console.log(`bench: store against ${server.description}`)
  const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 10_000 })
  const dbName = `bench_store_${randomBytes(4).toString('hex')}`
  try {
    await client.connect()
    const measured = await measureAll(server.url, client.db(dbName))
    const figures = mongoFigures(measured)
    const result = resultDocument(command, server, loadAtStart, measured, figures)
    await mkdir(dirname(resultPath), { recursive: true })
    await writeFile(resultPath, `${JSON.stringify(result, null, 2)}\n`)
    printTables(server.kind, measured, figures)
    console.log(
      `bench: goal (MongoStore p50 ≤ ${GOAL_P50_RATIO}× bare update) ${figures.goalMet ? 'MET' : 'NOT MET'}; ` +
        `${measured.durationS} s; wrote ${resultPath}`,
    )
  } finally {
    await client
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined)
    await client.close()
    await server.stop()
  }
}

await main()
