/**
 * Documents the worker did not write (another program, a hand edit) against a worker's /status and its
 * net-state metric on the real server: 30 run documents with a 2030 slot and a numeric owner, and 30
 * well-formed ones dated 2030, all newer than every real run, neither push the real runs out of the
 * snapshot nor make the net `late` while it runs; 5,000 forge-hour rows dated 2030 neither reach the
 * snapshot nor make it large.
 */
import { Registry } from 'prom-client'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../src/config/load-config.js'
import { systemClock } from '../../../src/lease/clock.js'
import { MongoStore } from '../../../src/lease/mongo-store.js'
import { MongoRunLedger } from '../../../src/runs/mongo-run-ledger.js'
import { type HealthServer, startHealthServer } from '../../../src/worker/http.js'
import { registerLedgerMetrics } from '../../../src/worker/ledger-metrics.js'
import { createLogger } from '../../../src/observe/logger.js'
import { connectMongo, type MongoConnection } from '../../../src/worker/mongo-connection.js'
import type { StatusSnapshot } from '../../../src/status/status-snapshot.js'
import { createWorkerStatus } from '../../../src/worker/status/worker-status.js'
import { mongoServer, useTestDatabase } from '../../support/mongo.js'
import { statusLease, statusTick } from './fixtures/status-nets.js'

const test = await useTestDatabase('status_foreign_runs')
const log = createLogger({ level: 'silent' })
const stopping = new AbortController()
let server: HealthServer | undefined
let connection: MongoConnection | undefined
afterAll(async () => {
  stopping.abort()
  await server?.close()
  await connection?.close()
})

const HOUR = 3_600_000
const NET = statusTick.name

/**
 * The next /status whose forge hours were read: on a loaded machine a read can exceed the page's source
 * bound, and the snapshot then says so in a note and shows no lanes, which is not what is tested here.
 * Each try waits past the shared snapshot's second, so it is collected afresh.
 */
async function statusWithForgeHours(base: string): Promise<{ body: string; snapshot: StatusSnapshot }> {
  let notes: string[] = []
  for (let attempt = 0; attempt < 10; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const body = await (await fetch(`${base}/status`)).text()
    const snapshot = JSON.parse(body) as StatusSnapshot
    notes = snapshot.notes.filter((n) => n.startsWith('forge hours unavailable'))
    if (notes.length === 0) return { body, snapshot }
  }
  throw new Error(
    `the forge hours were never read in 10 tries, so the lanes cannot be checked: ${notes.join('; ')}`,
  )
}

/** A worker's status and ledger metrics over the test database, served on a real HTTP port. */
async function serveStatus(db: MongoConnection): Promise<string> {
  const loaded = loadConfig(
    {
      MONGO_URI: 'mongodb://127.0.0.1:1/',
      MONGO_DB: db.db.databaseName,
      LEASECRON_FORGE: 'sandbox',
      LEASECRON_NET_STATUS_TICK_SCHEDULE: '0 * * * *',
    },
    [statusTick],
    [statusLease],
  )
  if (!loaded.ok) throw new Error(`test configuration refused: ${JSON.stringify(loaded.issues)}`)
  const store = new MongoStore(db.db)
  const ledger = new MongoRunLedger(db.db)
  const registry = new Registry()
  const status = createWorkerStatus({
    owner: 'reader-replica',
    config: loaded.config,
    registry,
    clock: systemClock,
    log,
    store: () => store,
    mongo: () => db,
    meter: () => undefined,
    ledger: () => ledger,
  })
  registerLedgerMetrics(registry, status.snapshot)
  server = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry,
    ready: async () => ({ ready: true, detail: {} }),
    status: { snapshot: status.snapshot, page: true },
  })
  return `http://127.0.0.1:${server.port}`
}

let base: string | undefined

/** The worker's status served over the test database (once for the file). */
async function served(): Promise<string> {
  if (base) return base
  connection = connectMongo(mongoServer().url, test.db.databaseName, log, stopping.signal)
  await connection.connected
  base = await serveStatus(connection)
  return base
}

describe('foreign documents and the status', () => {
  it('shows the real runs and their state, not late, beside 60 newer documents no worker wrote', async () => {
    const ledger = new MongoRunLedger(test.db)
    await ledger.ensureIndexes()
    // The net's last three hourly slots ran and succeeded.
    const hour = Math.floor(Date.now() / HOUR) * HOUR
    const slots = [3, 2, 1].map((back) => new Date(hour - (back - 1) * HOUR))
    for (const slot of slots) {
      await ledger.claim({ net: NET, slot, owner: 'host-a-1', fence: 1, startedAt: slot })
      await ledger.finish(NET, slot, 'host-a-1', 1, {
        finishedAt: new Date(slot.getTime() + 1_000),
        outcome: 'ok',
      })
    }
    const future = (i: number) => new Date(Date.UTC(2030, 0, 1, 0, i))
    const foreign = (i: number, kind: string, owner: unknown) => ({
      _id: `${NET}@${future(i).toISOString()}#${kind}`,
      net: NET,
      slot: future(i),
      owner,
      fence: 1,
      startedAt: future(i),
      finishedAt: null,
      outcome: null,
      error: null,
      requests: null,
    })
    // Through the driver, as another program could write them.
    const runs = test.db.collection<Record<string, unknown> & { _id: string }>('net_runs')
    await runs.insertMany(Array.from({ length: 30 }, (_, i) => foreign(i, 'numeric-owner', 7)))
    await runs.insertMany(Array.from({ length: 30 }, (_, i) => foreign(i, 'ahead', 'host-z-9')))

    const base = await served()
    const snapshot = (await (await fetch(`${base}/status`)).json()) as StatusSnapshot
    const net = snapshot.nets.find((n) => n.name === NET)
    expect(
      net?.runs?.map((r) => r.slot),
      'the documents no worker wrote pushed the real runs out',
    ).toEqual(slots.toReversed().map((s) => s.toISOString()))
    expect(net?.state, 'the net was shown late while it ran').toBe('ok')
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toContain(`leasecron_net_state{net="${NET}",state="ok"} 1`)
    expect(metrics).toContain(`leasecron_net_state{net="${NET}",state="late"} 0`)
  }, 30_000)

  it('leaves forge-hour rows dated ahead out of /status, which stays small', async () => {
    const hours = test.db.collection<Record<string, unknown> & { _id: string }>('forge_hours')
    const now = Math.floor(Date.now() / HOUR) * HOUR
    await hours.insertOne({
      _id: `host-b-2|${new Date(now).toISOString()}|${NET}`,
      owner: 'host-b-2',
      hour: new Date(now),
      lane: NET,
      requests: 5,
      notModified: 1,
      points: 4,
    })
    // Through the driver, each its own lane: every one became a lane of 24 hours on every /status.
    const ahead = Array.from({ length: 5_000 }, (_, i) => {
      const hour = new Date(Date.UTC(2030, 0, 1) + (i % 24) * HOUR)
      const lane = `lane-${i}`
      return {
        _id: `host-z-9|${hour.toISOString()}|${lane}`,
        owner: 'host-z-9',
        hour,
        lane,
        requests: 1,
        notModified: 0,
        points: 1,
      }
    })
    await hours.insertMany(ahead)
    const { body, snapshot } = await statusWithForgeHours(await served())
    expect(
      snapshot.forge.lanes.map((l) => l.lane),
      'a lane dated ahead reached the snapshot',
    ).toEqual([NET])
    expect(snapshot.forge.lanes[0]?.thisHour).toEqual({ requests: 5, notModified: 1, points: 4 })
    expect(body.length, 'the rows dated ahead made /status large').toBeLessThan(64 * 1024)
  }, 60_000)
})
