/**
 * The store calls that would hold FerretDB's pool, against the real test server. On FerretDB 1.24 over
 * PostgreSQL a server cursor holds one of FerretDB's pool connections between round trips, and each update
 * of a command holds one until the whole command ends; enough of either at once stalled every call (the
 * installations bench's 100 × 3 cell). So reads longer than one default batch (101 documents) come back in
 * their first reply (store-call.ts, FIND_BATCH), and the forge meter's many rows go one update per command.
 * Each case seeds 150 documents through the store's own API.
 */
import { type CommandStartedEvent, MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MongoNetControlStore } from '../../src/control/mongo-net-control-store.js'
import { MongoForgeHourStore } from '../../src/forge/meter/mongo-forge-hour-store.js'
import { MongoReplicaStore } from '../../src/lease/mongo-replica-store.js'
import { MongoStore } from '../../src/lease/mongo-store.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { mongoServer } from '../support/mongo.js'

const MANY = 150
const server = mongoServer()
const sent: CommandStartedEvent[] = []
const client = new MongoClient(server.url, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 })
client.on('commandStarted', (event) => sent.push(event))
const db = client.db(`one_batch_${Date.now().toString(36)}`)
const now = new Date('2026-12-06T03:00:00Z')
const names = Array.from({ length: MANY }, (_, i) => `net-${String(i).padStart(3, '0')}`)

/** Runs `seed` in parallel over the names, a few at a time (the shared server serves other files too). */
async function seedAll(seed: (name: string, i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < MANY; i += 25) await Promise.all(names.slice(i, i + 25).map((n, j) => seed(n, i + j)))
}

/** The commands `read` sent: its finds and any getMore. */
async function commandsOf(read: () => Promise<unknown[]>): Promise<{ answered: number; commands: string[] }> {
  sent.length = 0
  const answered = (await read()).length
  return { answered, commands: sent.map((e) => e.commandName).filter((c) => c !== 'endSessions') }
}

const leases = new MongoStore(db)
const ledger = new MongoRunLedger(db)
const controls = new MongoNetControlStore(db)
const hours = new MongoForgeHourStore(db)
const replicas = new MongoReplicaStore(db)
const hour = (i: number) => now.getTime() - i * 3_600_000

beforeAll(async () => {
  await seedAll((name) => leases.acquire(name, 'owner-1', now, 60_000))
  await seedAll((_, i) =>
    ledger.claim({ net: 'many', slot: new Date(hour(i)), owner: 'owner-1', fence: 1, startedAt: now }),
  )
  await seedAll((name) => controls.pause(name, { reason: 'one batch' }, now))
  await hours.put(
    'owner-1',
    names.map((_, i) => ({ hour: hour(i), lane: 'core', requests: 1, notModified: 0, points: 1 })),
  )
  await seedAll((name) => replicas.announce(name, now, 60_000))
}, 120_000)

afterAll(async () => {
  await db.dropDatabase().catch(() => undefined)
  await client.close()
})

describe(`a read of ${MANY} documents on ${server.description}`, () => {
  const window = { since: new Date(hour(MANY)), until: now }
  it.each([
    ['the lease list', () => leases.list()],
    ['a net’s run history', () => ledger.history('many', MANY)],
    ['the controls of many nets', () => controls.getMany(names, now)],
    ['the controls list', () => controls.list(now)],
    ['the forge meter’s hours', () => hours.read(window)],
    ['the live replicas', () => replicas.live(now)],
  ] as const)('%s comes back in one reply: no cursor left waiting for a getMore', async (_, read) => {
    const { answered, commands } = await commandsOf(read as () => Promise<unknown[]>)
    expect(answered, 'the read did not return what was seeded').toBeGreaterThanOrEqual(MANY)
    expect(commands, 'a cursor waited between round trips (on FerretDB it holds a pool connection)').toEqual([
      'find',
    ])
  })
})

describe(`a write of ${MANY} rows on ${server.description}`, () => {
  it('the forge meter’s hours go one update per command (each update of a command holds a FerretDB connection)', async () => {
    sent.length = 0
    const rows = names.map((_, i) => ({
      hour: hour(i),
      lane: 'search',
      requests: 2,
      notModified: 0,
      points: 2,
    }))
    await hours.put('owner-2', rows)
    const updates = sent.filter((e) => e.commandName === 'update')
    expect(
      updates.map((e) => e.command.updates.length),
      'one command carried many updates',
    ).toEqual(updates.map(() => 1))
    expect(updates.length, 'not every row was written').toBe(MANY)
    const read = await hours.read({ since: new Date(hour(MANY)), until: now })
    expect(read.filter((r) => r.lane === 'search').length, 'a row written is not read back').toBe(MANY)
  })
})
