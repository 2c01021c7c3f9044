import { describe, expect, it } from 'vitest'
import { MongoGateRunStore } from '../../../src/nets/merge-gate/mongo-gate-run-store.js'
import { useTestDatabase } from '../../support/mongo.js'
import { gateRunStoreConformance } from './gate-run-store-conformance.js'

const mongo = await useTestDatabase('gate_run_store')
let collections = 0

gateRunStoreConformance(
  'MongoGateRunStore',
  async () => {
    const name = `gate_runs_${++collections}`
    const store = new MongoGateRunStore(mongo.db, { collection: name })
    await store.ensureIndexes()
    return {
      store,
      insertDocument: async (doc) => {
        await mongo.db.collection(name).insertOne(doc as { _id: never })
      },
    }
  },
  mongo.isFerretDb
    ? {
        raceMayElectTwo:
          'FerretDB applies an update as read-then-write, so two marks on one run can both match',
      }
    : {},
)

describe('MongoGateRunStore on the run’s real server', () => {
  it('stores the documented shape, nulls for absent optionals, and the sweep index', async () => {
    const store = new MongoGateRunStore(mongo.db, { collection: 'gate_runs_shape' })
    await store.ensureIndexes()
    await store.ensureIndexes()
    const updatedAt = new Date('2026-09-30T15:00:00.123Z')
    await store.record({
      id: 'r-1',
      repo: 'acme/widgets',
      pull: 3,
      headSha: 'b'.repeat(40),
      state: 'running',
      updatedAt,
    })
    expect(await mongo.db.collection('gate_runs_shape').find({}).toArray()).toEqual([
      {
        _id: 'r-1',
        repo: 'acme/widgets',
        pull: 3,
        headSha: 'b'.repeat(40),
        gateContext: null,
        installation: null,
        state: 'running',
        reason: null,
        updatedAt,
        settledAt: null,
        relaunchRequestedAt: null,
      },
    ])
    const indexes = await mongo.db.collection('gate_runs_shape').indexes()
    expect(indexes.find((i) => i.name === 'sweep')?.key).toEqual({ settledAt: 1, updatedAt: -1, _id: -1 })
  })

  it('defaults to the gate_runs collection', async () => {
    const store = new MongoGateRunStore(mongo.db)
    const updatedAt = new Date('2026-09-30T15:00:00.000Z')
    await store.record({
      id: 'r-9',
      repo: 'acme/widgets',
      pull: 3,
      headSha: 'c'.repeat(40),
      state: 'died',
      updatedAt,
    })
    expect(await mongo.db.collection('gate_runs').countDocuments({ _id: 'r-9' as never })).toBe(1)
  })

  it('wraps a driver failure in GATE_RUN_STORE_FAILED naming the operation, with the cause', async () => {
    const store = new MongoGateRunStore(mongo.client.db('x'.repeat(70)))
    const error = await store.get('r-1').catch((e: unknown) => e)
    expect(error).toMatchObject({
      name: 'GateRunError',
      code: 'GATE_RUN_STORE_FAILED',
      operation: 'get',
      runId: 'r-1',
    })
    expect((error as Error).cause).toBeInstanceOf(Error)
  })
})
