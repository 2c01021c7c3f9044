import { describe, expect, it } from 'vitest'
import { MongoStore } from '../../src/index.js'
import { useTestDatabase } from '../support/mongo.js'
import { storeConformance } from '../../src/testing.js'

const mongo = await useTestDatabase('mongo_store').catch((error: unknown) => error as Error)
let collections = 0
const makeStore = () => {
  if (mongo instanceof Error) throw mongo
  return new MongoStore(mongo.db, { collection: `leases_${++collections}` })
}

describe('MongoStore on the run’s real server', () => {
  it('has a real MongoDB-wire server behind it', () => {
    if (mongo instanceof Error) throw mongo
    console.log(`MongoStore conformance runs against ${mongo.kind}`)
    expect(mongo.db.databaseName).toMatch(/^[A-Za-z0-9_-]{1,63}$/)
  })

  it('keeps a released lease as one free document, which a late renewal does not take back', async () => {
    if (mongo instanceof Error) throw mongo
    const store = makeStore()
    const t0 = new Date('2026-09-30T15:00:00.000Z')
    const grant = await store.acquire('net-a', 'alpha', t0, 3000)
    if (!grant) throw new Error('the acquire of an absent lease was refused')
    await store.release(grant)
    expect(await store.renew(grant, new Date(t0.getTime() + 1000), 3000)).toBe(false)
    expect(
      await mongo.db.collection(`leases_${collections}`).find({}).toArray(),
      'the late renewal took the released lease back',
    ).toEqual([
      { _id: 'net-a', owner: 'alpha', token: null, fence: 1, expiresAt: new Date(0), renewedAt: t0 },
    ])
  })

  it('stores one document per lease with the documented fields', async () => {
    if (mongo instanceof Error) throw mongo
    const store = makeStore()
    const t0 = new Date('2026-09-30T15:00:00.000Z')
    const grant = await store.acquire('net-a', 'alpha', t0, 3000)
    const docs = await mongo.db.collection(`leases_${collections}`).find({}).toArray()
    expect(docs).toEqual([
      {
        _id: 'net-a',
        owner: 'alpha',
        token: grant ? grant.token : undefined,
        fence: 1,
        expiresAt: new Date(t0.getTime() + 3000),
        renewedAt: t0,
      },
    ])
  })

  it('refuses a call timeout that is not a whole number of ms', () => {
    if (mongo instanceof Error) throw mongo
    expect(() => new MongoStore(mongo.db, { callTimeoutMs: 0 })).toThrow(/callTimeoutMs/)
  })
})

if (!(mongo instanceof Error) && mongo.isFerretDb) {
  console.log(
    'MongoStore conformance: skipping "concurrent takeover of an expired lease has exactly one winner" on FerretDB ' +
      '(it applies an update as read-then-write); the fresh-lease race still runs',
  )
}

storeConformance('MongoStore', makeStore, {
  expiredTakeoverRaceUnsupported:
    !(mongo instanceof Error) && mongo.isFerretDb
      ? 'FerretDB applies an update as read-then-write, so two takeovers of one expired lease can both match; MongoDB and MemoryStore run it'
      : undefined,
})
