/**
 * A worker with more nets than Node's default of ten listeners per signal: every net waits on the worker's
 * stopping signal while it sets up, so on Mongo a worker of ten nets used to print Node's
 * MaxListenersExceededWarning ("possible EventTarget memory leak") at every start — a warning a user reads
 * as a leak. Run on the test Mongo, where set-up waits for the connection.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet, type LeaseDefinition, type NetDefinition } from '../../src/index.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'

const NETS = 14

function manyNets(): { nets: NetDefinition[]; leases: LeaseDefinition[] } {
  const leases: LeaseDefinition[] = []
  const nets: NetDefinition[] = []
  for (let i = 1; i <= NETS; i++) {
    const lease = defineLease(`many-${i}`, `many nets ${i}`)
    leases.push(lease)
    nets.push(
      defineNet({
        name: lease.name,
        lease: lease.name,
        schedule: '* * * * * *',
        description: 'does nothing',
        options: {},
        setup: () => undefined,
        term: () => async () => {},
      }),
    )
  }
  return { nets, leases }
}

describe('a worker with many nets', () => {
  let database: TestDatabase
  let worker: Worker | undefined
  const warnings: Error[] = []
  const onWarning = (warning: Error) => void warnings.push(warning)

  beforeAll(async () => {
    database = await useTestDatabase('many-nets')
  })
  afterEach(async () => {
    process.off('warning', onWarning)
    await worker?.stop()
    worker = undefined
  })

  it('starts and stops on Mongo without a listener-leak warning', async () => {
    process.on('warning', onWarning)
    const env = {
      MONGO_URI: mongoServer().url,
      MONGO_DB: database.db.databaseName,
      LOG_LEVEL: 'silent',
      PORT: '0',
    }
    worker = createWorker({ ...manyNets(), env })
    await worker.start()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await worker.stop()
    worker = undefined
    // Node emits process warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
    const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)
    expect(leaks, `a worker of ${NETS} nets tells its user it leaks listeners`).toEqual([])
  })
})
