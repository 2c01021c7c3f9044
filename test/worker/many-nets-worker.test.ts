/**
 * A worker with more nets than Node's default of ten listeners per signal: every net used to wait on the
 * worker's stopping signal while it set up, so on Mongo a worker of ten nets printed Node's
 * MaxListenersExceededWarning ("possible EventTarget memory leak") at every start — a warning a user reads
 * as a leak. The worker now waits for the connection once for all nets, on the signal's default bound, so
 * a per-net listener on it coming back fails here. Run on the test Mongo, where set-up waits for the
 * connection; and with every net's set-up failing, where each net waits to retry.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { defineLease, defineNet, type LeaseDefinition, type NetDefinition } from '../../src/index.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'

const NETS = 14

/** What the nets did: set-up calls and passes, per net. */
interface NetsSeen {
  setups: Map<string, number>
  passes: Map<string, number>
}

function manyNets(
  seen: NetsSeen,
  setup: () => undefined = () => undefined,
): {
  nets: NetDefinition[]
  leases: LeaseDefinition[]
} {
  const count = (counts: Map<string, number>, name: string) => counts.set(name, (counts.get(name) ?? 0) + 1)
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
        setup: () => {
          count(seen.setups, lease.name)
          return setup()
        },
        term: () => async () => {
          count(seen.passes, lease.name)
        },
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

  /**
   * Starts a worker of NETS nets on the test Mongo, waits until every net did `enough` (a pass, or a
   * retried set-up), stops it; the leak warnings Node printed.
   */
  async function leakWarnings(
    setup: (() => undefined) | undefined,
    enough: { what: string; count: (seen: NetsSeen) => Map<string, number>; atLeast: number },
  ): Promise<string[]> {
    process.on('warning', onWarning)
    const seen: NetsSeen = { setups: new Map(), passes: new Map() }
    const env = {
      MONGO_URI: mongoServer().url,
      MONGO_DB: database.db.databaseName,
      LOG_LEVEL: 'silent',
      PORT: '0',
    }
    worker = createWorker({ ...manyNets(seen, setup), env })
    await worker.start()
    const done = () => [...enough.count(seen).values()].filter((n) => n >= enough.atLeast).length
    await vi.waitFor(() => expect(done(), `not every one of the ${NETS} nets ${enough.what}`).toBe(NETS), {
      timeout: 30_000,
      interval: 50,
    })
    await worker.stop()
    worker = undefined
    // Node emits process warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
    return warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)
  }

  it('starts and stops on Mongo without a listener-leak warning', async () => {
    const leaks = await leakWarnings(undefined, { what: 'ran a pass', count: (s) => s.passes, atLeast: 1 })
    expect(leaks, `a worker of ${NETS} nets tells its user it leaks listeners`).toEqual([])
  })

  it('retries every net’s failing set-up without a listener-leak warning', async () => {
    const failing = () => {
      throw new Error('the net’s dependency is down')
    }
    // A second call of each set-up comes after its wait to retry, which all of them wait at once.
    const leaks = await leakWarnings(failing, {
      what: 'retried its set-up',
      count: (s) => s.setups,
      atLeast: 2,
    })
    expect(leaks, `${NETS} nets waiting to retry their set-up tell their user they leak`).toEqual([])
  })
})
