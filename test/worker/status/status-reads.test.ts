/**
 * What reading the status costs the store, counted by the driver's own command monitoring on a real
 * server: a burst of `GET /` and `GET /status` shares one snapshot per second, writes nothing and asks
 * the server's version once; and while the store is down `/status` still answers within a few seconds.
 */
import { Registry } from 'prom-client'
import { afterAll, describe, expect, it } from 'vitest'
import { createForgeMeter, type ForgeMeter } from '../../../src/forge/meter/meter.js'
import { systemClock } from '../../../src/lease/clock.js'
import { MongoStore } from '../../../src/lease/mongo-store.js'
import { MongoRunLedger } from '../../../src/runs/mongo-run-ledger.js'
import { loadConfig } from '../../../src/config/load-config.js'
import { type HealthServer, startHealthServer } from '../../../src/worker/http.js'
import { HTTP_LIMITS } from '../../../src/worker/http-limits.js'
import { createLogger } from '../../../src/observe/logger.js'
import { connectMongo, type MongoConnection } from '../../../src/worker/mongo-connection.js'
import { createWorkerStatus } from '../../../src/worker/status/worker-status.js'
import { freePort } from '../../support/free-port.js'
import { mongoServer, useTestDatabase } from '../../support/mongo.js'
import { statusLease, statusTick } from './fixtures/status-nets.js'

const test = await useTestDatabase('status_reads')
const log = createLogger({ level: 'silent' })
const stopping = new AbortController()
const servers: HealthServer[] = []
const connections: MongoConnection[] = []
afterAll(async () => {
  stopping.abort()
  await Promise.allSettled(servers.map((s) => s.close()))
  await Promise.allSettled(connections.map((c) => c.close()))
})

/** A meter that counted a few requests this hour: what the old read path copied to Mongo on each GET. */
function busyMeter(): ForgeMeter {
  const meter = createForgeMeter({ logger: log, registry: new Registry() })
  for (let i = 0; i < 3; i++)
    meter.record({ host: 'api.github.com', api: 'rest', lane: statusTick.name, outcome: 200, point: true })
  return meter
}

/** A worker's status over `connection`, served on a real HTTP port; the forge-hour sampler is not started. */
async function serveStatus(connection: MongoConnection): Promise<string> {
  const loaded = loadConfig(
    { MONGO_URI: 'mongodb://127.0.0.1:1/', MONGO_DB: connection.db.databaseName, LEASECRON_FORGE: 'sandbox' },
    [statusTick],
    [statusLease],
  )
  if (!loaded.ok) throw new Error(`test configuration refused: ${JSON.stringify(loaded.issues)}`)
  const store = new MongoStore(connection.db)
  const ledger = new MongoRunLedger(connection.db)
  const meter = busyMeter()
  const registry = new Registry()
  const status = createWorkerStatus({
    owner: 'reader-replica',
    config: loaded.config,
    registry,
    clock: systemClock,
    log,
    store: () => store,
    mongo: () => connection,
    meter: () => meter,
    ledger: () => ledger,
  })
  const server = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry,
    ready: async () => ({ ready: true, detail: {} }),
    status: { snapshot: status.snapshot, page: true },
    // The burst below comes from one address, over as many connections: the snapshot is under test here,
    // not the per-address cap (http-limits.test.ts).
    limits: { ...HTTP_LIMITS, maxConnectionsPerAddress: HTTP_LIMITS.maxConnections },
  })
  servers.push(server)
  return `http://127.0.0.1:${server.port}`
}

describe('reading the status', () => {
  it('shares one snapshot per second among a burst of GETs, writes nothing and asks the version once', async () => {
    const url = new URL(mongoServer().url)
    url.searchParams.set('monitorCommands', 'true')
    const connection = connectMongo(url.toString(), test.db.databaseName, log, stopping.signal)
    connections.push(connection)
    await connection.connected
    const now = new Date()
    await new MongoStore(connection.db).acquire(statusLease.name, 'holder-replica', now, 60_000)
    const commands: string[] = []
    connection.client.on('commandStarted', (e) => commands.push(e.commandName))
    const base = await serveStatus(connection)
    const get = async (path: string) => (await fetch(`${base}${path}`)).status

    const burstStarted = Date.now()
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => get(i % 2 ? '/status' : '/')))
    // A loaded machine may stretch the burst past a second: then one more snapshot per second is shared.
    const burstSeconds = Math.floor((Date.now() - burstStarted) / 1000)
    expect(burst.every((s) => s === 200)).toBe(true)
    const collections = () => commands.filter((c) => c === 'ping').length
    expect(
      collections(),
      '50 concurrent GETs collected the snapshot more than once a second',
    ).toBeLessThanOrEqual(1 + burstSeconds)

    const started = Date.now()
    let sequential = 0
    while (Date.now() - started < 3_000) {
      expect(await get(sequential++ % 2 ? '/status' : '/')).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const seconds = (Date.now() - started) / 1000
    expect(sequential, 'too few GETs to say anything').toBeGreaterThan(30)
    expect(
      collections(),
      `${sequential} GETs over ${seconds} s each collected a snapshot`,
    ).toBeLessThanOrEqual(Math.ceil(seconds) + 2)
    const writes = commands.filter((c) => /insert|update|delete|findAndModify|bulkWrite/i.test(c))
    expect(writes, 'reading the status wrote to the store').toEqual([])
    expect(
      commands.filter((c) => c === 'buildInfo'),
      'the server version was asked more than once',
    ).toHaveLength(1)
  }, 30_000)

  it('answers /status within a few seconds while the store does not answer', async () => {
    const dead = `mongodb://127.0.0.1:${await freePort()}/`
    const connection = connectMongo(dead, 'status_outage', log, stopping.signal)
    connections.push(connection)
    const base = await serveStatus(connection)
    const started = Date.now()
    const response = await fetch(`${base}/status`)
    const elapsed = Date.now() - started
    expect(response.status).toBe(200)
    const snapshot = (await response.json()) as { store: { answering: boolean }; notes: string[] }
    expect(snapshot.store.answering).toBe(false)
    expect(snapshot.notes.length, 'the failed sources are not named').toBeGreaterThan(0)
    expect(elapsed, 'an operator waited this long for /status during an outage').toBeLessThan(4_000)
  }, 30_000)
})
