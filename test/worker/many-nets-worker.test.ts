/**
 * A worker with more nets than Node's default of ten listeners per signal: every net used to wait on the
 * worker's stopping signal while it set up, so on Mongo a worker of ten nets printed Node's
 * MaxListenersExceededWarning ("possible EventTarget memory leak") at every start — a warning a user reads
 * as a leak. The worker now waits for the connection once for all nets, on the signal's default bound, so
 * a per-net listener on it coming back fails here. Run on the test Mongo, where set-up waits for the
 * connection; and with every net's set-up failing, where each net waits to retry.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet, type LeaseDefinition, type NetDefinition } from '../../src/index.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'

const NETS = 14

function manyNets(setup: () => undefined = () => undefined): {
  nets: NetDefinition[]
  leases: LeaseDefinition[]
} {
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
        setup,
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
    warnings.length = 0
    await worker?.stop()
    worker = undefined
  })

  /** Starts a worker of `nets` on the test Mongo, runs it 1.5 s, stops it; the leak warnings Node printed. */
  async function leakWarnings(nets: ReturnType<typeof manyNets>): Promise<string[]> {
    process.on('warning', onWarning)
    const env = {
      MONGO_URI: mongoServer().url,
      MONGO_DB: database.db.databaseName,
      LOG_LEVEL: 'silent',
      PORT: '0',
    }
    worker = createWorker({ ...nets, env })
    await worker.start()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await worker.stop()
    worker = undefined
    // Node emits process warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
    return warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)
  }

  it('starts and stops on Mongo without a listener-leak warning', async () => {
    const leaks = await leakWarnings(manyNets())
    expect(leaks, `a worker of ${NETS} nets tells its user it leaks listeners`).toEqual([])
  })

  it('retries every net’s failing set-up without a listener-leak warning', async () => {
    const leaks = await leakWarnings(
      manyNets(() => {
        throw new Error('the net’s dependency is down')
      }),
    )
    expect(leaks, `${NETS} nets waiting to retry their set-up tell their user they leak`).toEqual([])
  })
})
