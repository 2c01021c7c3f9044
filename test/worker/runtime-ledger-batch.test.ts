/**
 * Which runtimes batch their ledger's claims and finishes (ledger-batch.ts): a campaigning worker's (the
 * lease lane open), whose nets' slots fall due together; not a one-shot command's, whose one pass has
 * nothing to wait for, nor the in-memory ledger's, which has no round trip to save.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
import { createLogger } from '../../src/observe/logger.js'
import { LedgerBatch } from '../../src/runs/ledger-batch.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { openRuntime, type StoreRuntime } from '../../src/worker/runtime.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const opened: StoreRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})
const database = await useTestDatabase('runtime_ledger_batch')

async function runtimeOn(store: 'memory' | 'mongo', leaseLane: boolean): Promise<StoreRuntime> {
  const env: Record<string, string> = { LEASECRON_FORGE: 'sandbox' }
  if (store === 'mongo')
    Object.assign(env, { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
  const loaded = loadConfig(env, [recordingNet({}).net], TEST_LEASES, { needsForge: false })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  const runtime = await openRuntime({ config: loaded.config, log, parts: 'pass', leaseLane })
  opened.push(runtime)
  return runtime
}

describe('the runtime’s run ledger', () => {
  it('batches a campaigning worker’s claims on Mongo, each still answered on its own', async () => {
    const runtime = await runtimeOn('mongo', true)
    expect(runtime.ledger, 'the worker’s ledger calls were not batched').toBeInstanceOf(LedgerBatch)
    const slot = new Date('2026-09-30T15:00:00.000Z')
    const claim = { net: 'tick-net', slot, owner: 'host-a-1', fence: 1, startedAt: slot }
    const answers = await Promise.all([
      runtime.ledger.claim(claim),
      runtime.ledger.claim({ ...claim, owner: 'host-b-2', fence: 2 }),
      runtime.ledger.claim({ ...claim, net: 'other-net' }),
    ])
    expect(answers).toEqual([true, false, true])
  })

  it('leaves a one-shot command’s ledger and the in-memory ledger as they are', async () => {
    expect((await runtimeOn('mongo', false)).ledger).toBeInstanceOf(MongoRunLedger)
    expect((await runtimeOn('memory', true)).ledger).not.toBeInstanceOf(LedgerBatch)
  })
})
