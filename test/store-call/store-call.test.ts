import { createServer, type Socket } from 'node:net'
import { type CommandStartedEvent, MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { MongoForgeCacheStore } from '../../src/forge/cache/mongo-forge-cache-store.js'
import { MongoForgeHourStore } from '../../src/forge/meter/mongo-forge-hour-store.js'
import { MongoStore } from '../../src/lease/mongo-store.js'
import { MongoBoardStore } from '../../src/nets/board-sync/mongo-board-store.js'
import { MongoGateRunStore } from '../../src/nets/merge-gate/mongo-gate-run-store.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { describeError } from '../../src/store-call/describe-error.js'
import { plainStoreError, StoreCollection } from '../../src/store-call/store-call.js'
import { StoreError } from '../../src/store-call/store-error.js'
import { freePort } from '../support/free-port.js'
import { mongoServer } from '../support/mongo.js'

// A client that records every command it sends, on the real test server.
const sent: CommandStartedEvent[] = []
const client = new MongoClient(mongoServer().url, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 })
client.on('commandStarted', (event) => sent.push(event))
const db = client.db('store_call')
// A client whose server never answers: nothing listens on the port.
const nowhere = new MongoClient(`mongodb://127.0.0.1:${await freePort()}/`, {
  serverSelectionTimeoutMS: 300,
  connectTimeoutMS: 300,
})
// A server that accepts connections and never says a word: the driver waits on it until its own timeouts.
const silentSockets = new Set<Socket>()
const silent = createServer((socket) => silentSockets.add(socket))
await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
const silentPort = (silent.address() as { port: number }).port
const mute = new MongoClient(`mongodb://127.0.0.1:${silentPort}/?directConnection=true`, {
  serverSelectionTimeoutMS: 30_000,
  connectTimeoutMS: 30_000,
})
afterAll(async () => {
  await client.close()
  await nowhere.close()
  for (const socket of silentSockets) socket.destroy()
  await mute.close()
  silent.close()
})

const error = plainStoreError({ component: 'Probe', operation: 'probe' })

describe('a store call through store-call', () => {
  it('sends the server-side bounds: maxTimeMS on reads, maxTimeMS and the majority wtimeout on writes', async () => {
    const probes = new StoreCollection<{ _id: string; n: number }>(db, 'probes', {
      component: 'Probe',
      majority: true,
      callTimeoutMs: 1_234,
    })
    sent.length = 0
    await probes.call({ error }, (c, bounds) => c.insertOne({ _id: 'a', n: 1 }, bounds.write))
    await probes.call({ error, timeoutMs: 777 }, (c, bounds) => c.findOne({ _id: 'a' }, bounds.read))
    const [insert, find] = sent
    expect(insert?.commandName).toBe('insert')
    expect(insert?.command.maxTimeMS, 'a write could run past the store’s bound').toBe(1_234)
    expect(insert?.command.writeConcern).toMatchObject({ w: 'majority', wtimeout: 1_234 })
    expect(find?.commandName).toBe('find')
    expect(find?.command.maxTimeMS, 'a read ignored the call’s own bound').toBe(777)
  })

  it('sends nothing when the signal is already aborted, and rejects with the store’s own error', async () => {
    const probes = new StoreCollection<{ _id: string }>(db, 'probes', { component: 'Probe' })
    const reason = new Error('the term ended')
    sent.length = 0
    const call = probes.call({ error, signal: AbortSignal.abort(reason) }, (c) => c.findOne({}))
    await expect(call).rejects.toMatchObject({
      name: 'StoreError',
      code: 'STORE_CALL_ABORTED',
      component: 'Probe',
      operation: 'probe',
      cause: reason,
      message: 'Probe: probe: the call was aborted before it was sent',
    })
    expect(sent, 'an aborted call reached the server').toEqual([])
  })

  it('rejects at once when the signal aborts in flight, though the driver is still waiting', async () => {
    const probes = new StoreCollection<{ _id: string }>(mute.db('x'), 'probes', { component: 'Probe' })
    const stop = new AbortController()
    const started = performance.now()
    const call = probes.call({ error, signal: stop.signal }, (c) => c.findOne({}))
    setTimeout(() => stop.abort(new Error('stopping')), 20)
    await expect(call).rejects.toMatchObject({ code: 'STORE_CALL_ABORTED' })
    expect(performance.now() - started, 'the caller waited for the driver past its abort').toBeLessThan(5_000)
  })

  it('turns a driver failure into the store’s error, described in one line, with the driver’s error as cause', async () => {
    const probes = new StoreCollection<{ _id: string }>(nowhere.db('x'), 'probes', { component: 'Probe' })
    const failure = await probes.call({ error }, (c) => c.findOne({})).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(StoreError)
    const { cause, code, message } = failure as StoreError
    expect(code).toBe('STORE_CALL_FAILED')
    expect(cause).toBeInstanceOf(Error)
    expect(message).toBe(`Probe: probe: the store did not answer: ${describeError(cause)}`)
    expect(describeError(cause), 'the driver error lost its name').toMatch(/^Mongo\w+Error: /)
  })

  it('refuses a Db that is not one, and a bound that is not a whole number of ms', () => {
    expect(() => new StoreCollection({} as never, 'x', { component: 'Probe' })).toThrow(
      'Probe: expected a mongodb Db as its first argument',
    )
    expect(() => new StoreCollection(db, 'x', { component: 'Probe', callTimeoutMs: 0.5 })).toThrow(
      'Probe: callTimeoutMs must be a whole number of ms ≥ 1, got 0.5',
    )
  })
})

describe('every Mongo twin fails with a StoreError of its own name and code', () => {
  const down = nowhere.db('x')
  const slot = new Date('2026-09-30T15:00:00Z')
  const cases: [string, () => Promise<unknown>, { name: string; code: string }][] = [
    [
      'MongoStore',
      () => new MongoStore(down).list(),
      { name: 'LeaseStoreError', code: 'LEASE_STORE_FAILED' },
    ],
    [
      'MongoRunLedger',
      () => new MongoRunLedger(down).get('net-a', slot),
      { name: 'RunLedgerError', code: 'RUN_LEDGER_FAILED' },
    ],
    [
      'MongoGateRunStore',
      () => new MongoGateRunStore(down).get('run-1'),
      { name: 'GateRunError', code: 'GATE_RUN_STORE_FAILED' },
    ],
    [
      'MongoBoardStore',
      () => new MongoBoardStore(down).getCard('card-1'),
      { name: 'BoardStoreError', code: 'BOARD_STORE_FAILED' },
    ],
    [
      'MongoForgeCacheStore',
      () => new MongoForgeCacheStore(down).get('GET /x'),
      { name: 'StoreError', code: 'STORE_CALL_FAILED' },
    ],
    [
      'MongoForgeHourStore',
      () => new MongoForgeHourStore(down).read({ since: slot, until: slot }),
      { name: 'StoreError', code: 'STORE_CALL_FAILED' },
    ],
    [
      // One update per row: a put whose rows all fail still rejects, so its writer remembers none of them.
      'MongoForgeHourStore',
      () =>
        new MongoForgeHourStore(down).put('replica-1', [
          { hour: slot.getTime(), lane: 'a', requests: 1, notModified: 0, points: 1 },
          { hour: slot.getTime(), lane: 'b', requests: 1, notModified: 0, points: 1 },
        ]),
      { name: 'StoreError', code: 'STORE_CALL_FAILED' },
    ],
  ]
  it.each(cases)('%s', async (component, call, expected) => {
    const failure = await call().catch((e: unknown) => e)
    expect(failure, `${component} let a driver error through unnamed`).toBeInstanceOf(StoreError)
    expect(failure).toMatchObject({ ...expected, component, cause: expect.any(Error) })
  })

  it.each([
    [
      'MongoGateRunStore',
      () => new MongoGateRunStore(db).page(pageQuery(), aborted()),
      'GATE_RUN_STORE_ABORTED',
    ],
    ['MongoBoardStore', () => new MongoBoardStore(db).listCards(undefined, aborted()), 'BOARD_STORE_ABORTED'],
    ['MongoRunLedger', () => new MongoRunLedger(db).history('net-a', 5, aborted()), 'RUN_LEDGER_ABORTED'],
    ['MongoStore', () => new MongoStore(db).list(aborted()), 'LEASE_CALL_ABORTED'],
  ] as const)('%s takes the caller’s signal', async (_component, call, code) => {
    await expect(call()).rejects.toMatchObject({ code })
  })
})

function aborted(): { signal: AbortSignal } {
  return { signal: AbortSignal.abort(new Error('the pass was aborted')) }
}

function pageQuery() {
  return { from: new Date(0), to: new Date('2026-09-30T15:00:00Z'), limit: 10 }
}
