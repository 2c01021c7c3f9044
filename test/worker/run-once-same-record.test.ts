/**
 * One pass, two commands: a net's pass run by a worker (`run`, createWorker in-process) and by `once`
 * (the CLI in-process), for the same slot, against the test Mongo and the local sandbox forge each
 * process starts, leaves the same run record. Both open through worker/runtime.ts and build the pass's
 * spec with slotPassSpec; this is what that buys. What legitimately differs (owner, fence, times) is
 * compared by shape.
 */
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import type { NetDefinition } from '../../src/index.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import type { RunRecord } from '../../src/runs/run-ledger.js'
import { createWorker } from '../../src/worker/worker.js'
import nets, { FAILURE, failingNet, okNet } from './fixtures/same-pass-nets.js'
import { mongoServer } from '../support/mongo.js'

const NETS = fileURLToPath(new URL('./fixtures/same-pass-nets.ts', import.meta.url))
const RUN_ID = Date.now().toString(36)
let client: MongoClient
const databases: string[] = []

beforeAll(async () => {
  client = await new MongoClient(mongoServer().url).connect()
})
afterAll(async () => {
  for (const db of databases)
    await client
      ?.db(db)
      .dropDatabase()
      .catch(() => undefined)
  await client?.close()
})

function environment(db: string): Record<string, string> {
  databases.push(db)
  // No GitHub App: each process opens the local sandbox forge (the same seeded data) through its runtime.
  return { MONGO_URI: mongoServer().url, MONGO_DB: db, LEASECRON_FORGE: 'sandbox', LOG_LEVEL: 'silent' }
}

async function finishedRun(db: string, net: string, timeoutMs: number): Promise<RunRecord | undefined> {
  const ledger = new MongoRunLedger(client.db(db))
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const [last] = await ledger.history(net, 10)
    if (last?.outcome !== undefined) return last
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return undefined
}

/** The worker's first pass: at election, for the schedule's most recent slot. */
async function throughRun(net: NetDefinition, db: string): Promise<RunRecord | undefined> {
  const worker = createWorker({ nets: [net], leases: nets.leases, env: { ...environment(db), PORT: '0' } })
  try {
    await worker.start()
    return await finishedRun(db, net.name, 30_000)
  } finally {
    await worker.stop()
  }
}

async function throughOnce(net: NetDefinition, slot: string, db: string) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(['once', net.name, '--slot', slot, '--json', '--config', NETS], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: environment(db),
  })
  return { code, out, err, record: await finishedRun(db, net.name, 5_000) }
}

/** A record with what must be equal kept as it is, and what legitimately differs reduced to its shape. */
function comparable(record: RunRecord | undefined) {
  if (!record) return undefined
  const { owner, fence, startedAt, finishedAt, ...same } = record
  return {
    ...same,
    slot: record.slot.toISOString(),
    owner: typeof owner === 'string' && owner.length > 0 ? 'an owner id' : owner,
    fence: Number.isInteger(fence) && fence > 0 ? 'a fence' : fence,
    startedAt: startedAt instanceof Date ? 'a time' : startedAt,
    finishedAt:
      finishedAt instanceof Date && finishedAt.getTime() >= startedAt.getTime()
        ? 'a time at or after the start'
        : finishedAt,
  }
}

const ROWS = [
  { name: 'a net whose pass succeeds', net: okNet, outcome: 'ok', exit: 0, error: undefined },
  {
    name: 'a net whose pass fails with an error',
    net: failingNet,
    outcome: 'failed',
    exit: 1,
    // The ledger keeps the error's first line as the pass threw it (name and message), scrubbed.
    error: `Error: ${FAILURE}`,
  },
] as const

describe('a pass through `run` and through `once`', () => {
  it.each(ROWS)(
    '$name leaves the same ledger record for the same slot',
    { timeout: 90_000 },
    async ({ net, outcome, exit, error }) => {
      const byRun = await throughRun(net, `same_run_${RUN_ID}_${net.name}`)
      expect(byRun, 'the worker recorded no finished pass within 30 s').toBeDefined()
      const slot = byRun!.slot.toISOString()
      const byOnce = await throughOnce(net, slot, `same_once_${RUN_ID}_${net.name}`)
      expect(byOnce.code, `once exited otherwise: ${byOnce.err.join('\n')}`).toBe(exit)
      expect(byOnce.record, 'once recorded no finished pass').toBeDefined()
      expect(byRun!.outcome).toBe(outcome)
      expect(byRun!.error).toBe(error)
      expect(
        byRun!.requests?.[net.name],
        'the pass’s forge requests were not counted in its lane',
      ).toBeGreaterThan(0)
      expect(
        comparable(byOnce.record),
        'run and once ran one pass differently: the same slot left different records',
      ).toEqual(comparable(byRun))
    },
  )
})
