/**
 * LedgerBatch over a real MongoRunLedger, counted through the driver's command monitoring on the run's
 * server: slots due at one instant are claimed in one `insert` command, where the ledger alone sends one
 * per slot, and every caller still gets its own answer. Finishes go one `update` each (mongo-run-ledger.ts
 * says why: FerretDB stalls on update commands of many statements).
 */
import { randomBytes } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { systemClock } from '../../src/lease/clock.js'
import { batchLedgerCalls } from '../../src/runs/ledger-batch.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import type { RunClaim, RunFinish, RunLedger } from '../../src/runs/run-ledger.js'
import { mongoServer } from '../support/mongo.js'

const server = mongoServer()
const client = new MongoClient(server.url, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 })
const db = client.db(`t_ledger_batch_${randomBytes(4).toString('hex')}`)
afterAll(async () => {
  await db.dropDatabase().catch(() => undefined)
  await client.close()
})

/** The commands sent on `collection`, by name (`insert`, `update`, `delete`, `find`). */
const sent = new Map<string, Map<string, number>>()
client.on('commandStarted', (event) => {
  const target = event.command[event.commandName]
  if (typeof target !== 'string') return
  const counts = sent.get(target) ?? new Map<string, number>()
  counts.set(event.commandName, (counts.get(event.commandName) ?? 0) + 1)
  sent.set(target, counts)
})
let collections = 0

async function ledgerOn(): Promise<{ ledger: MongoRunLedger; commands: () => Record<string, number> }> {
  const collection = `net_runs_${++collections}`
  const ledger = new MongoRunLedger(db, { collection })
  await ledger.ensureIndexes()
  sent.delete(collection)
  return { ledger, commands: () => Object.fromEntries(sent.get(collection) ?? []) }
}

const N = 20
const slot = new Date('2026-09-30T15:00:00.000Z')
const claimOf = (net: number, extra: Partial<RunClaim> = {}): RunClaim => ({
  net: `net-${net}`,
  slot,
  owner: 'host-a-1',
  fence: 3,
  startedAt: slot,
  ...extra,
})
const ok: RunFinish = { finishedAt: new Date(slot.getTime() + 1_000), outcome: 'ok', attempts: 1 }

/** N claims of N nets' slot at once, and a duplicate of net-0's from another term among them. */
function claimTogether(ledger: RunLedger): Promise<boolean[]> {
  const claims = Array.from({ length: N }, (_, i) => claimOf(i))
  claims.splice(N / 2, 0, claimOf(0, { owner: 'host-b-2', fence: 4 }))
  return Promise.all(claims.map((c) => ledger.claim(c)))
}

/** N finishes at once, net-1's with a wrong fence. */
function finishTogether(ledger: RunLedger): Promise<boolean[]> {
  return Promise.all(
    Array.from({ length: N }, (_, i) => ledger.finish(`net-${i}`, slot, 'host-a-1', i === 1 ? 2 : 3, ok)),
  )
}

const expectedClaims = [
  ...Array.from({ length: N / 2 }, () => true),
  false,
  ...Array.from({ length: N / 2 }, () => true),
]
const expectedFinishes = Array.from({ length: N }, (_, i) => i !== 1)

describe(`LedgerBatch on ${server.description}, counted by command monitoring`, () => {
  it(`claims ${N} slots due together in one insert command, finishes each alone, each caller answered`, async () => {
    const { ledger, commands } = await ledgerOn()
    const batch = batchLedgerCalls(ledger, systemClock)
    const missed = { net: 'net-5', slot, owner: 'host-z-9', fence: 2, at: slot, outcome: 'missed' as const }
    expect(await ledger.account(missed)).toBe(true)
    const accounts = () =>
      db.collection<{ _id: string }>(`net_runs_${collections}`).countDocuments({ _id: { $regex: /#unrun$/ } })
    expect(await accounts(), 'the missed slot’s account was not written').toBe(1)
    const before = commands()
    expect(await claimTogether(batch), 'a caller got another’s answer, or the duplicate won').toEqual(
      expectedClaims,
    )
    expect((commands().insert ?? 0) - (before.insert ?? 0), 'the claims were not sent in one write').toBe(1)
    expect(commands().delete, 'the superseded accounts were not deleted in one command').toBe(1)
    expect(await accounts(), 'the account of a slot claimed since was left beside its run').toBe(0)
    expect(await finishTogether(batch), 'a finish with a wrong fence was answered true').toEqual(
      expectedFinishes,
    )
    expect(commands().update, 'the finishes were sent together: FerretDB stalls on that').toBe(N)
    expect(await ledger.get('net-0', slot)).toMatchObject({ owner: 'host-a-1', fence: 3, outcome: 'ok' })
    expect((await ledger.get('net-1', slot))?.outcome, 'the wrong fence’s finish was written').toBeUndefined()
    expect((await ledger.get(`net-${N - 1}`, slot))?.outcome).toBe('ok')
  })

  it('sends one insert and one update per slot without the batch: the count the batch saves', async () => {
    const { ledger, commands } = await ledgerOn()
    // Unbatched, the 21 inserts race over the pool's connections, so either of net-0's two claims may land
    // first: exactly one of them wins, and every other net's claim wins.
    const claims = await claimTogether(ledger)
    expect(claims[0] !== claims[N / 2], 'both or neither of net-0’s two claims won').toBe(true)
    expect(claims.filter((won) => won).length, 'a claim of an unclaimed slot lost').toBe(N)
    const finishes = await finishTogether(ledger)
    expect(finishes[0], 'net-0’s finish disagrees with which of its claims won').toBe(claims[0])
    expect(finishes.slice(1), 'a finish was answered wrongly').toEqual(expectedFinishes.slice(1))
    expect(commands()).toMatchObject({ insert: N + 1, update: N })
  })
})
