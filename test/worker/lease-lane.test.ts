/**
 * The lease lane, on the run's real server behind a TCP proxy that delays every client→server chunk: a
 * worker's renewal is answered in one round trip while its pass's ledger calls hold every connection of the
 * shared pool. Without the lane, the renewal waits for a new connection, whose handshake is a round trip
 * of its own: twice the delay, past a renewal's ttl/3 bound wherever the delay is over ttl/6 (the chaos
 * suite's store-latency scenario lost terms at +750 ms with a ttl of 3 s that way). And the lane stays two
 * connections under a burst: on FerretDB every replica's connections together must stay below its pool.
 */
import type { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { ownerId } from '../../src/lease/owner-id.js'
import { renewalWindowMs } from '../../src/lease/renewal-batch.js'
import { createLogger } from '../../src/observe/logger.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { assembleWorker } from '../../src/worker/worker.js'
import { setUpWorker } from '../../src/worker/worker-setup.js'
import { startTcpProxy, type TcpProxy } from '../chaos/tcp-proxy.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const DELAY_MS = 500
/** The lane's warm connections, before any lease call: the elections at start come several at once. */
const WARM = 2
/** A ttl whose renewals wait 60 ms for one another (renewal-batch.ts), and whose ttl/3 bound is 2 s. */
const TTL_MS = 6_000
const server = mongoServer()
/** The connections the lease lane's client opened. */
const lane = { created: 0, updates: 0 }
const closing: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const close of closing.reverse()) await close()
})

/**
 * A worker's runtime (as `leasecron run` opens it) on the run's server through `proxy`, once its lease
 * lane holds its warm connections.
 */
async function runtimeThrough(proxy: TcpProxy): Promise<PassRuntime> {
  const database = await useTestDatabase('lease_lane')
  const env = {
    LEASECRON_FORGE: 'sandbox',
    // Command monitoring on both of the worker's clients, for the renewals' round trips.
    MONGO_URI: `mongodb://127.0.0.1:${proxy.port}/?directConnection=true&monitorCommands=true`,
    MONGO_DB: database.db.databaseName,
  }
  const { net } = recordingNet()
  // Its one net disabled: the worker opens its runtime and campaigns for nothing, so the lane carries
  // only the test's calls.
  const options = {
    nets: [net],
    leases: TEST_LEASES,
    logger: createLogger({ level: 'silent' }),
    env: { ...env, PORT: '0', LEASECRON_NET_TICK_NET_ENABLED: 'false' },
  }
  let laneReady = 0
  lane.created = 0
  let warmed: () => void = () => {}
  const warm = new Promise<void>((resolve) => {
    warmed = resolve
  })
  const onMongoClient = (client: MongoClient) => {
    if (client.options.appName !== 'leasecron-lease') return
    client.on('connectionCreated', () => lane.created++)
    client.on('commandStarted', (event) => {
      if (event.commandName === 'update') lane.updates++
    })
    client.on('connectionReady', () => {
      if (++laneReady === WARM) warmed()
    })
  }
  let opened: PassRuntime | undefined
  const worker = assembleWorker(options, setUpWorker(options), async (runtimeOptions) => {
    opened = await openRuntime({ ...runtimeOptions, onMongoClient })
    return opened
  })
  closing.push(() => worker.stop())
  await worker.start()
  const runtime = opened!
  await runtime.mongo!.connected
  const late = new Promise<never>((_, reject) => {
    const why = () =>
      `the lease lane opened ${laneReady} of ${WARM} warm connections within 10 s of connecting: the first election's lease calls would wait for handshakes`
    setTimeout(() => reject(new Error(why())), 10_000).unref()
  })
  await Promise.race([warm, late])
  return runtime
}

describe(`the lease lane on ${server.description}`, () => {
  it('answers two renewals at once in one delayed round trip while ledger reads hold every shared connection, and keeps a burst of lease calls to its two connections', async () => {
    const { hostname, port } = new URL(server.url)
    const proxy = await startTcpProxy({ host: hostname, port: Number(port) })
    closing.push(() => proxy.close())
    const runtime = await runtimeThrough(proxy)
    const owner = ownerId('lane')
    const grants = [
      await runtime.store.acquire('lane-net-a', owner, new Date(), TTL_MS),
      await runtime.store.acquire('lane-net-b', owner, new Date(), TTL_MS),
    ]
    if (!grants[0] || !grants[1]) throw new Error('a lease was not granted on a fresh database')

    await proxy.setMode({ kind: 'delay', ms: DELAY_MS })
    // A burst of the pass's calls, more than the shared pool has warm connections: each takes one.
    const reads = Array.from({ length: 12 }, (_, i) => runtime.ledger.history(`net-${i}`, 5))
    const sentAt = performance.now()
    // Two lease calls at once (two nets' renewals): each finds a warm connection of the lane.
    const renewed = await Promise.all(grants.map((g) => g && runtime.store.renew(g, new Date(), TTL_MS)))
    const tookMs = performance.now() - sentAt
    await Promise.all(reads)
    await proxy.setMode({ kind: 'pass' })

    expect(renewed, 'a renewal was refused').toEqual([true, true])
    // The batch's window, then one delayed round trip of 500 ms; a new connection's handshake would add
    // another 500 before it.
    expect(
      tookMs,
      `the renewals took ${Math.round(tookMs)} ms behind the ledger's calls: a holder would lose its term to latency under ttl/3`,
    ).toBeLessThan(renewalWindowMs(TTL_MS) + 2 * DELAY_MS - 100)

    // A burst of lease calls (twenty nets' elections at once) waits in the lane rather than opening
    // more: on FerretDB every replica's connections together must stay below its pool.
    await Promise.all(Array.from({ length: 20 }, (_, i) => runtime.store.get(`lane-net-${i}`)))
    expect(
      lane.created,
      `the lease lane opened ${lane.created} connections: replicas could exhaust FerretDB's pool together`,
    ).toBe(2)
  })
  it('sends the renewals that one replica asks for together in one round trip', async () => {
    const { hostname, port } = new URL(server.url)
    const proxy = await startTcpProxy({ host: hostname, port: Number(port) })
    closing.push(() => proxy.close())
    const runtime = await runtimeThrough(proxy)
    const owner = ownerId('batch')
    const grants = []
    for (let i = 0; i < 8; i++) {
      const grant = await runtime.store.acquire(`batch-net-${i}`, owner, new Date(), TTL_MS)
      if (!grant) throw new Error('a lease was not granted on a fresh database')
      grants.push(grant)
    }
    lane.updates = 0
    const renewed = await Promise.all(grants.map((g) => runtime.store.renew(g, new Date(), TTL_MS)))
    expect(renewed, 'a held lease was not renewed').toEqual(grants.map(() => true))
    expect(lane.updates, 'eight renewals asked at once took more than one round trip').toBe(1)
  })
})
