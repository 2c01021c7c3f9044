/**
 * Scenario `stand-in-pool` (issue 37): how many operations at once FerretDB 1.24 over PostgreSQL answers
 * with a pool of P connections (`pool_max_conns`), and whether it comes back after a stall.
 *
 * Why it exists: three shapes hold one of FerretDB's pool connections while they wait for something else
 * (read in its source, `handler/msg_update.go`, `handler/msg_find.go`, `backends/postgresql/collection.go`):
 * - an update reads the matching document through one connection and, that read still open, takes a
 *   second for the write: when every connection holds such a read, each waits for a second one;
 * - one command of many updates (a bulk write) keeps each update's connection until the whole command
 *   ends: K updates in one command need K connections at once, and wait on themselves past the pool;
 * - a find whose answer is longer than its batch leaves a cursor holding its connection until the
 *   client's getMore: when the cursors hold every connection and the client's own connections all carry
 *   finds waiting for one, the getMores wait behind them.
 * The installations bench's 100 × 3 cell stalled the second way (the forge meter's bulk write of its hours),
 * and a pool shared by clients that together hold as many connections as FerretDB can stall the first way.
 *
 * Each shape is sent K at once through a fresh client of `clientPool(K)` connections, TRIALS times per K;
 * a trial not answered within WAIT_MS is a stall. After a stall it closes that client (its sockets close)
 * and times how long a fresh client's update then takes on the same server: the recovery; the next trial
 * gets a fresh server. The reads run twice: with the
 * driver's default batch, and with the product's one batch (FIND_BATCH, src/store-call/store-call.ts).
 * Its own FerretDB on its own throwaway PostgreSQL cluster (the pool is the server's setting), so it does
 * not use the run's stand-in. Named-only. Not a check: it records what it saw.
 */
import { type Collection, MongoClient } from 'mongodb'
import { FIND_BATCH } from '../../src/store-call/store-call.js'
import { type SharedFerretDb, startFerretDb } from '../../test/support/ferretdb-server.js'
import { type BenchContext, sig, table, writeResult } from '../support.js'

const POOL = Number(process.env.LEASECRON_BENCH_POOL ?? 4)
const TRIALS = Number(process.env.LEASECRON_BENCH_POOL_TRIALS ?? 5)
const WAIT_MS = 3_000
const RECOVERY_BOUND_MS = 5_000
/** Documents a read answers: more than the default first batch (101). */
const READ_DOCS = 150

type Doc = { _id: string; n: number }

interface Shape {
  name: string
  /** The client's maxPoolSize for K at once. */
  clientPool: (k: number) => number
  /** Sends K at once. */
  send: (docs: Collection<Doc>, k: number) => Promise<unknown>[]
}

const times = <T>(k: number, each: (i: number) => T): T[] => Array.from({ length: k }, (_, i) => each(i))

const SHAPES: Shape[] = [
  {
    name: 'updates',
    clientPool: (k) => k,
    send: (docs, k) => times(k, (i) => docs.updateOne({ _id: `d${i}`, n: { $gte: 0 } }, { $inc: { n: 1 } })),
  },
  {
    name: 'one bulk write of K updates',
    clientPool: () => 1,
    send: (docs, k) => [
      docs.bulkWrite(
        times(k, (i) => ({ updateOne: { filter: { _id: `d${i}` }, update: { $inc: { n: 1 } } } })),
      ),
    ],
  },
  {
    name: `reads of ${READ_DOCS}, the driver's default batch`,
    clientPool: () => POOL,
    send: (docs, k) => times(k, () => docs.find({}, { maxTimeMS: 5_000 }).toArray()),
  },
  {
    name: `reads of ${READ_DOCS}, one batch (FIND_BATCH)`,
    clientPool: () => POOL,
    send: (docs, k) => times(k, () => docs.find({}, { maxTimeMS: 5_000, batchSize: FIND_BATCH }).toArray()),
  },
]

interface Trial {
  answered: boolean
  ms: number
  recoveredMs?: number | null
}

/** K of `shape` at once: answered within WAIT_MS, or a stall (then the recovery after the client closes). */
async function trial(url: string, shape: Shape, k: number): Promise<Trial> {
  const client = new MongoClient(url, { maxPoolSize: shape.clientPool(k) })
  await client.connect()
  // Every connection opened first, so the K operations reach the server together, not one handshake apart.
  await Promise.all(times(shape.clientPool(k), () => client.db('admin').command({ ping: 1 })))
  const docs = client.db('pool').collection<Doc>('docs')
  const started = performance.now()
  const ops = shape.send(docs, k)
  let timer: NodeJS.Timeout | undefined
  const stalled = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), WAIT_MS)
  })
  const answered = await Promise.race([Promise.all(ops).then(() => true), stalled])
  clearTimeout(timer)
  const ms = sig(performance.now() - started, 3)
  await client.close(true)
  for (const op of ops) op.catch(() => undefined)
  if (answered) return { answered, ms }
  return { answered, ms, recoveredMs: await recovery(url) }
}

/** How long, after the stalled client closed, a fresh client's update takes (null: none within the bound). */
async function recovery(url: string): Promise<number | null> {
  const started = performance.now()
  const client = new MongoClient(url, { maxPoolSize: 1, socketTimeoutMS: RECOVERY_BOUND_MS })
  try {
    await client
      .db('pool')
      .collection<Doc>('docs')
      .updateOne({ _id: 'd0' }, { $inc: { n: 1 } })
    return sig(performance.now() - started, 3)
  } catch {
    return null
  } finally {
    await client.close(true)
  }
}

interface Row {
  shape: string
  k: number
  clientPool: number
  trials: number
  stalls: number
  answeredMaxMs: number
  recoveredMs: (number | null)[]
}

/** The FerretDB the trials use; a stall leaves it stalled, so the next trial gets a fresh one. */
class Stand {
  server: SharedFerretDb | undefined
  label = ''

  async fresh(): Promise<string> {
    await this.server?.stop()
    this.server = await startFerretDb({ backend: 'postgresql', poolMaxConns: POOL, log: () => undefined })
    this.label = this.server.backendLabel
    const seed = new MongoClient(this.server.url)
    const docs = Array.from({ length: READ_DOCS }, (_, i) => ({ _id: `d${i}`, n: 0 }))
    await seed.db('pool').collection<Doc>('docs').insertMany(docs)
    await seed.close()
    return this.server.url
  }
}

async function measure(stand: Stand, shape: Shape): Promise<Row[]> {
  const rows: Row[] = []
  let url = await stand.fresh()
  for (let k = 1; k <= 2 * POOL; k++) {
    const trials: Trial[] = []
    for (let t = 0; t < TRIALS; t++) {
      const outcome = await trial(url, shape, k)
      trials.push(outcome)
      if (!outcome.answered) url = await stand.fresh()
    }
    const stalls = trials.filter((t) => !t.answered)
    rows.push({
      shape: shape.name,
      k,
      clientPool: shape.clientPool(k),
      trials: TRIALS,
      stalls: stalls.length,
      answeredMaxMs: Math.max(0, ...trials.filter((t) => t.answered).map((t) => t.ms)),
      recoveredMs: stalls.map((t) => t.recoveredMs ?? null),
    })
    console.log(
      `bench stand-in-pool: pool ${POOL}, ${shape.name}, ${k} at once: ${stalls.length}/${TRIALS} stalled`,
    )
  }
  return rows
}

export async function runStandInPool(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const stand = new Stand()
  const rows: Row[] = []
  try {
    for (const shape of SHAPES) rows.push(...(await measure(stand, shape)))
  } finally {
    await stand.server?.stop()
  }
  const path = await writeResult('stand-in-pool', context, startedAt, {
    inputs: {
      server: `FerretDB 1.24.2 over ${stand.label}, its own, started afresh for each shape and after each stall`,
      poolMaxConns: POOL,
      trials: TRIALS,
      waitMs: WAIT_MS,
      shapes: `K at once: conditional updateOne's, one document each, through a client of K connections; one bulkWrite of K updateOne's through one connection; finds of all ${READ_DOCS} documents through a client of ${POOL} connections, with the driver's default first batch (101) and with batchSize ${FIND_BATCH}`,
      recovery: `After a stall the client is closed; then a fresh client's update on the stalled server, bounded at ${RECOVERY_BOUND_MS} ms ("never": not within it)`,
    },
    rows,
  })
  printRows(rows)
  return path
}

function printRows(rows: Row[]): void {
  const header = ['shape', 'at once', 'client pool', 'stalled', 'answered max ms', 'recovered in ms']
  const body = rows.map((r) => [
    r.shape,
    String(r.k),
    String(r.clientPool),
    `${r.stalls}/${r.trials}`,
    String(r.answeredMaxMs),
    r.recoveredMs.map((ms) => (ms === null ? 'never' : String(ms))).join(', ') || '-',
  ])
  console.log(table([header, ...body]))
}
