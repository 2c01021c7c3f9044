import { MongoClient } from 'mongodb'
import { describe, expect, it } from 'vitest'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { runLedgerConformance } from './run-ledger-conformance.js'

const mongo = await useTestDatabase('run_ledger')
let collections = 0

runLedgerConformance(
  'MongoRunLedger',
  async () => {
    const ledger = new MongoRunLedger(mongo.db, { collection: `net_runs_${++collections}` })
    await ledger.ensureIndexes()
    return ledger
  },
  mongo.isFerretDb ? { racingRetakesMayBothWin: 'FerretDB applies an update as read-then-write' } : {},
)

describe('MongoRunLedger on the run’s real server', () => {
  it('stores the documented shape in net_runs, keyed "<net>@<slot ISO>", with the history index', async () => {
    const ledger = new MongoRunLedger(mongo.db)
    await ledger.ensureIndexes()
    await ledger.ensureIndexes()
    const slot = new Date('2026-09-30T15:00:00.000Z')
    const startedAt = new Date('2026-09-30T15:00:00.250Z')
    await ledger.claim({ net: 'board-issue-sync', slot, owner: 'host-a-1', fence: 12, startedAt })
    expect(await mongo.db.collection('net_runs').find({}).toArray()).toEqual([
      {
        _id: 'board-issue-sync@2026-09-30T15:00:00.000Z',
        net: 'board-issue-sync',
        slot,
        owner: 'host-a-1',
        fence: 12,
        startedAt,
        finishedAt: null,
        outcome: null,
        error: null,
        requests: null,
        attempts: null,
      },
    ])
    const indexes = await mongo.db.collection('net_runs').indexes()
    expect(indexes.find((i) => i.name === 'history')?.key).toEqual({ net: 1, slot: -1 })
  })

  it('reads a finished run written before attempts were kept as one attempt', async () => {
    const collection = `net_runs_${++collections}`
    const ledger = new MongoRunLedger(mongo.db, { collection })
    const slot = new Date('2026-09-30T15:00:00.000Z')
    // The shape 0.4.0 wrote: no `attempts` field at all.
    await mongo.db.collection<Record<string, unknown> & { _id: string }>(collection).insertOne({
      _id: `n@${slot.toISOString()}`,
      net: 'n',
      slot,
      owner: 'a',
      fence: 1,
      startedAt: slot,
      finishedAt: slot,
      outcome: 'failed',
      error: 'boom',
      requests: null,
    })
    expect(await ledger.get('n', slot)).toMatchObject({ outcome: 'failed', attempts: 1 })
  })

  it('skips and reports once a malformed run, never failing history or get (one the query leaves out, get reports)', async () => {
    const collection = `net_runs_${++collections}`
    const bad: Array<{ collection: string; id: string; problem: string }> = []
    const ledger = new MongoRunLedger(mongo.db, { collection, onBadDocument: (b) => bad.push(b) })
    const slot = (minute: number) => new Date(Date.UTC(2026, 8, 30, 15, minute))
    for (const minute of [1, 2, 3])
      await ledger.claim({ net: 'n', slot: slot(minute), owner: 'a', fence: 1, startedAt: slot(minute) })
    const runs = mongo.db.collection<{ _id: string }>(collection)
    // Written through the driver, as another program (or a hand edit) could.
    await runs.updateOne({ _id: `n@${slot(2).toISOString()}` }, { $set: { finishedAt: 'later' } })
    await runs.updateOne({ _id: `n@${slot(3).toISOString()}` }, { $set: { startedAt: '15:03' } })
    for (let read = 0; read < 3; read++) {
      const history = await ledger.history('n', 10)
      expect(
        history.map((r) => r.id),
        'a malformed run reached history',
      ).toEqual([`n@${slot(1).toISOString()}`])
    }
    expect(await ledger.get('n', slot(3)), 'a malformed run was answered as a record').toBeUndefined()
    expect(bad, 'each malformed run must be reported once, naming it and what is wrong').toEqual([
      { collection, id: `n@${slot(2).toISOString()}`, problem: 'finishedAt: expected date, received string' },
      { collection, id: `n@${slot(3).toISOString()}`, problem: 'startedAt: expected date, received string' },
    ])
  })

  it('reports what its query left out when a view asks (reportLeftOut), and not on a pass’s read', async () => {
    const collection = `net_runs_${++collections}`
    const bad: Array<{ id: string; problem: string }> = []
    const ledger = new MongoRunLedger(mongo.db, { collection, onBadDocument: (b) => bad.push(b) })
    const slot = new Date(Date.UTC(2026, 8, 30, 15, 1))
    await ledger.claim({ net: 'n', slot, owner: 'a', fence: 1, startedAt: slot })
    const runs = mongo.db.collection<Record<string, unknown> & { _id: string }>(collection)
    // Written through the driver, as another program (or a hand edit) could: a slot the query cannot sort.
    await runs.insertOne({
      _id: 'n@yesterday',
      net: 'n',
      slot: 'yesterday',
      owner: 'a',
      fence: 1,
      startedAt: slot,
    })
    expect((await ledger.history('n', 10)).map((r) => r.id)).toEqual([`n@${slot.toISOString()}`])
    expect(bad, 'a pass’s read made a second query to report the left-out run').toEqual([])
    const viewed = await ledger.history('n', 10, { reportLeftOut: true })
    expect(
      viewed.map((r) => r.id),
      'the left-out run reached a view',
    ).toEqual([`n@${slot.toISOString()}`])
    expect(
      bad.map((b) => b.id),
      'a corrupt run the query leaves out went unreported on a view: no metric, no warning',
    ).toEqual(['n@yesterday'])
  })

  it('leaves malformed and future-dated runs out in its query, so they never push the real runs out of history', async () => {
    const collection = `net_runs_${++collections}`
    const ledger = new MongoRunLedger(mongo.db, { collection })
    await ledger.ensureIndexes()
    const slot = (minute: number) => new Date(Date.UTC(2026, 8, 30, 15, minute))
    for (const minute of [1, 2, 3])
      await ledger.claim({ net: 'n', slot: slot(minute), owner: 'a', fence: 1, startedAt: slot(minute) })
    const runs = mongo.db.collection<Record<string, unknown> & { _id: string }>(collection)
    // Newer than every real run but before `until`: only the type conditions keep these out.
    const newer = (i: number) => new Date(Date.UTC(2026, 8, 30, 15, 10, i))
    const doc = (i: number, kind: string, fields: Record<string, unknown>) => ({
      _id: `n@${newer(i).toISOString()}#${kind}`,
      net: 'n',
      slot: newer(i),
      owner: 'x',
      fence: 1,
      startedAt: newer(i),
      finishedAt: null,
      outcome: 'ok',
      error: null,
      requests: null,
      ...fields,
    })
    // Written through the driver, as another program (or a hand edit) could: 30 of each wrong type (the
    // issue's numeric owner among them), more than `limit` and the slack together.
    const wrong: Array<[string, Record<string, unknown>]> = [
      ['numeric-owner', { owner: 42 }],
      ['text-slot', { slot: '2030-01-01' }],
      ['text-fence', { fence: '1' }],
      ['negative-fence', { fence: -1 }],
      ['text-start', { startedAt: 'soon' }],
      ['unknown-outcome', { outcome: 'done' }],
    ]
    for (const [kind, fields] of wrong)
      await runs.insertMany(Array.from({ length: 30 }, (_, i) => doc(i, kind, fields)))
    await runs.insertMany(Array.from({ length: 30 }, (_, i) => ({ ...doc(i, 'id', {}), _id: i as never })))
    // And 30 well-formed runs dated 2030: only `until` keeps those out.
    const ahead = (i: number) => new Date(Date.UTC(2030, 0, 1, 0, i))
    await runs.insertMany(
      Array.from({ length: 30 }, (_, i) => ({
        ...doc(i, 'ahead', {}),
        _id: `n@${ahead(i).toISOString()}`,
        slot: ahead(i),
        startedAt: ahead(i),
      })),
    )
    const until = new Date(Date.UTC(2026, 8, 30, 16))
    const history = await ledger.history('n', 3, { until })
    expect(
      history.map((r) => r.slot),
      'a malformed or future-dated run took a real run’s place',
    ).toEqual([slot(3), slot(2), slot(1)])
  })

  it('gives one slot to exactly one of concurrent claims from separate connections', async () => {
    const clients = await Promise.all(
      Array.from({ length: 4 }, () => new MongoClient(mongoServer().url).connect()),
    )
    try {
      const ledgers = clients.map(
        (c) => new MongoRunLedger(c.db(mongo.db.databaseName), { collection: 'net_runs_race' }),
      )
      const slot = new Date('2026-09-30T16:00:00.000Z')
      const answers = await Promise.all(
        ledgers.flatMap((ledger, i) =>
          [0, 1, 2].map((j) =>
            ledger.claim({ net: 'n', slot, owner: `host-${i}-${j}`, fence: i, startedAt: slot }),
          ),
        ),
      )
      expect(answers.filter((a) => a).length, 'a slot claimed twice would run twice').toBe(1)
    } finally {
      await Promise.all(clients.map((c) => c.close()))
    }
  })

  it('wraps a driver failure in RUN_LEDGER_FAILED naming the operation and net, with the cause', async () => {
    const ledger = new MongoRunLedger(mongo.client.db('x'.repeat(70)))
    const error = await ledger.history('board-issue-sync', 5).catch((e: unknown) => e)
    expect(error).toMatchObject({
      name: 'RunLedgerError',
      code: 'RUN_LEDGER_FAILED',
      operation: 'history',
      net: 'board-issue-sync',
    })
    expect((error as Error).cause).toBeInstanceOf(Error)
  })
})
