/**
 * A clean stop of the holder does not delay the next slot (issue #39), through `run` (createWorker
 * in-process, twice) on the test Mongo. The net's lease lasts 60 s and its standby retries every 60 s, so
 * a standby that read the holder's expiry would not read again for most of a minute; the slots come every
 * 10 s. The worker tells each campaign its net's next slot (lease.run's `nextDue`), so the standby looks
 * shortly before it, finds the lease released, and runs the slot on time.
 *
 * Real time, generous bounds: the worker's clock guard measures against the server.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MongoRunLedger } from '../../src/index.js'
import type { RunRecord } from '../../src/runs/run-ledger.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { useTestDatabase, workerMongoEnv } from '../support/mongo.js'
import { recordingNet, TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'

const SLOT_MS = 10_000
const mongo = await useTestDatabase('clean_stop_before_slot')
const ledger = new MongoRunLedger(mongo.db)
const workers: Worker[] = []

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()))
})

async function startWorker(): Promise<Worker> {
  const worker = createWorker({
    nets: [recordingNet({ schedule: '*/10 * * * * *' }).net],
    leases: TEST_LEASES,
    env: {
      ...workerMongoEnv(mongo),
      LEASECRON_NET_TICK_NET_TTL_MS: '60000',
      LEASECRON_NET_TICK_NET_RETRY_MS: '60000',
    },
  })
  workers.push(worker)
  await worker.start()
  return worker
}

/** The ledger's record of `slot`, once it has one (or undefined after `timeoutMs`). */
async function runOf(slot: Date, timeoutMs: number): Promise<RunRecord | undefined> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const run = (await ledger.history(TICK_LEASE.name, 50)).find((r) => r.slot.getTime() === slot.getTime())
    if (run) return run
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return undefined
}

describe('a clean stop of a net’s holder, with a standby whose last read saw a 60 s lease', () => {
  it('is followed by the next slot on time, run by the standby', { timeout: 90_000 }, async () => {
    const holder = await startWorker()
    await expect
      .poll(async () => (await ledger.history(TICK_LEASE.name, 5)).some((r) => r.owner === holder.owner), {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(true)
    // A slot at least 7 s away: the standby reads the holder's expiry at its start, well before it.
    const slot = new Date((Math.floor((Date.now() + 7_000) / SLOT_MS) + 1) * SLOT_MS)
    const standby = await startWorker()
    await new Promise((resolve) => setTimeout(resolve, slot.getTime() - 5_000 - Date.now()))
    await holder.stop()
    const run = await runOf(slot, 20_000)
    expect(run, 'nobody ran the slot after the holder’s clean stop within 20 s').toBeDefined()
    expect(run?.owner, 'the slot was not run by the standby').toBe(standby.owner)
    const lateMs = (run?.startedAt?.getTime() ?? Number.POSITIVE_INFINITY) - slot.getTime()
    expect(
      lateMs,
      'the slot after a clean stop started late: the standby learned of it too late',
    ).toBeLessThan(1_500)
  })
})
