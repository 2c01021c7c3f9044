/**
 * The FerretDB pool warning against the run's real server: on FerretDB a replica whose driver may open more
 * connections than FerretDB's default pool is warned, one within it is not; on MongoDB nobody is.
 */
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { FERRETDB_DEFAULT_POOL, ferretDbPoolWarning } from '../../src/worker/ferretdb-pool-warning.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { mongoServer } from '../support/mongo.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const server = mongoServer()
const clients: MongoClient[] = []
const workers: Worker[] = []
afterAll(async () => {
  await Promise.all([...clients.map((c) => c.close()), ...workers.map((w) => w.stop())])
})

/** A started worker on the run's server with MONGO_URI `uri`, and the messages it logged at warn. */
async function workerOn(uri: string): Promise<{ warnings: string[] }> {
  const warnings: string[] = []
  const logger = createLogger({
    level: 'warn',
    destination: { write: (l: string) => void warnings.push(String(JSON.parse(l).msg)) },
  })
  const { net } = recordingNet()
  const worker = createWorker({
    nets: [net],
    leases: TEST_LEASES,
    logger,
    env: { MONGO_URI: uri, MONGO_DB: `pool_${Date.now().toString(36)}`, PORT: '0' },
  })
  workers.push(worker)
  await worker.start()
  return { warnings }
}

function clientWith(maxPoolSize: number): MongoClient {
  const client = new MongoClient(server.url, { maxPoolSize, serverSelectionTimeoutMS: 10_000 })
  clients.push(client)
  return client
}

describe(`the FerretDB pool warning on ${server.description}`, () => {
  it('warns a replica whose driver pool exceeds FerretDB’s default, naming the pool and the setting', async () => {
    const warning = await ferretDbPoolWarning(clientWith(100), AbortSignal.timeout(10_000))
    if (!server.isFerretDb) {
      expect(warning, 'a MongoDB server was warned of a FerretDB limit').toBeUndefined()
      return
    }
    expect(warning, 'a replica that can stall FerretDB was not warned').toMatch(
      /^the store is FerretDB.* may open 100 connections .* default PostgreSQL pool of 50 or more: .*Set maxPoolSize in MONGO_URI/,
    )
  })

  it('warns a replica whose driver pool equals FerretDB’s default: as many updates as the pool can stall it', async () => {
    const warning = await ferretDbPoolWarning(clientWith(FERRETDB_DEFAULT_POOL), AbortSignal.timeout(10_000))
    if (server.isFerretDb)
      expect(warning, 'a pool that can stall FerretDB was not warned').toContain('may open 50')
    else expect(warning).toBeUndefined()
  })

  it('warns of an unlimited driver pool (maxPoolSize 0) too', async () => {
    const warning = await ferretDbPoolWarning(clientWith(0), AbortSignal.timeout(10_000))
    if (server.isFerretDb) expect(warning).toContain('may open unlimited connections')
    else expect(warning).toBeUndefined()
  })

  it('says nothing to a replica below FerretDB’s default pool, without asking the server', async () => {
    const client = clientWith(FERRETDB_DEFAULT_POOL - 1)
    const commands: string[] = []
    client.on('commandStarted', (event) => commands.push(event.commandName))
    expect(await ferretDbPoolWarning(client)).toBeUndefined()
    expect(await ferretDbPoolWarning(clientWith(10))).toBeUndefined()
    expect(commands, 'the check asked the server though the pool was within bounds').toEqual([])
  })

  it('is logged by a worker on FerretDB left at the driver’s default pool, and not with maxPoolSize=10', async () => {
    const loose = await workerOn(server.url)
    const capped = await workerOn(`${server.url}${server.url.includes('?') ? '&' : '?'}maxPoolSize=10`)
    const warned = (w: string[]) => w.some((m) => m.startsWith('the store is FerretDB'))
    if (server.isFerretDb) await expect.poll(() => warned(loose.warnings), { timeout: 15_000 }).toBe(true)
    else await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(warned(loose.warnings), 'the worker’s warning did not match its server').toBe(server.isFerretDb)
    expect(warned(capped.warnings), 'a replica within FerretDB’s pool was warned').toBe(false)
  }, 30_000)
})
