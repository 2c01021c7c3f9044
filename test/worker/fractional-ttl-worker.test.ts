/**
 * A net whose TTL is not a multiple of 3 ms (TTL_MS=4000: a call bound of 1333.33… ms), through `run`
 * (createWorker in-process) on the test Mongo (issue #36). `AbortSignal.timeout` throws for a fraction, so
 * the holder's control read failed open at every tick — a pause answered "paused" and the ledger kept
 * recording `ok` — and the election's catch-up could not read the ledger, so no slot was ever recorded
 * `missed`. The call bound is now whole milliseconds (term/term-call-bound.ts).
 *
 * Real time, every-second slots, generous bounds: the worker's clock guard measures against the server,
 * which a driven clock's frozen wall time would fail.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MongoNetControlStore } from '../../src/control/mongo-net-control-store.js'
import { MongoRunLedger } from '../../src/index.js'
import type { RunRecord } from '../../src/runs/run-ledger.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { useTestDatabase, workerMongoEnv } from '../support/mongo.js'
import { OTHER_LEASE, recordingNet, TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'

const mongo = await useTestDatabase('fractional_ttl')
const ledger = new MongoRunLedger(mongo.db)
let worker: Worker | undefined

afterEach(async () => {
  await worker?.stop()
  worker = undefined
})

/** A worker on the test Mongo running `net` alone, with TTL_MS=4000 and the given CATCH_UP. */
async function startWorker(net: ReturnType<typeof recordingNet>['net'], prefix: string, catchUp: string) {
  worker = createWorker({
    nets: [net],
    leases: TEST_LEASES,
    env: {
      ...workerMongoEnv(mongo),
      [`LEASECRON_NET_${prefix}_TTL_MS`]: '4000',
      [`LEASECRON_NET_${prefix}_CATCH_UP`]: catchUp,
    },
  })
  await worker.start()
}

/** The net's runs once at least `count` have an outcome (newest first); fails after 30 s. */
async function finishedRuns(net: string, count: number): Promise<RunRecord[]> {
  let runs: RunRecord[] = []
  await expect
    .poll(
      async () => {
        runs = (await ledger.history(net, 1000)).filter((r) => r.outcome !== undefined)
        return runs.length
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBeGreaterThanOrEqual(count)
  return runs
}

describe('a net with TTL_MS=4000 run by the worker on the test Mongo', () => {
  it('is paused: its slots are recorded paused and none runs', { timeout: 60_000 }, async () => {
    const controls = new MongoNetControlStore(mongo.db)
    await controls.pause(TICK_LEASE.name, { by: 'ann', reason: 'forge maintenance' }, new Date())
    const { net, passes } = recordingNet()
    await startWorker(net, 'TICK_NET', 'latest')
    const runs = await finishedRuns(TICK_LEASE.name, 3)
    expect(passes, 'a paused net ran its passes: the pause never took effect').toEqual([])
    expect(
      runs.map((r) => [r.outcome, r.error]),
      'a slot of a paused net was not recorded paused',
    ).toEqual(runs.map(() => ['paused', 'paused by ann: forge maintenance']))
  })

  it('records the slots its catch-up lets go missed', { timeout: 60_000 }, async () => {
    // The net last ran 20 s ago; every-second slots since are due at the election, and `latest` runs
    // only the newest of them.
    const last = new Date(Math.floor(Date.now() / 1000) * 1000 - 20_000)
    await ledger.claim({ net: OTHER_LEASE.name, slot: last, owner: 'before', fence: 1, startedAt: last })
    await ledger.finish(OTHER_LEASE.name, last, 'before', 1, { finishedAt: last, outcome: 'ok' })
    const { net } = recordingNet({ name: OTHER_LEASE.name, lease: OTHER_LEASE.name })
    await startWorker(net, 'OTHER_NET', 'latest')
    const runs = await finishedRuns(OTHER_LEASE.name, 20)
    const missed = runs.filter((r) => r.outcome === 'missed')
    expect(
      missed.length,
      'the catch-up recorded no slot missed: it could not read the ledger',
    ).toBeGreaterThanOrEqual(15)
    expect(missed.every((r) => r.slot.getTime() > last.getTime())).toBe(true)
  })
})
