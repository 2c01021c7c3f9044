/**
 * MIN_DURATION and MAX_DURATION through `once` (runOnceOnRuntime, as `leasecron once` runs a slot), on the
 * in-memory runtime and on the test Mongo: the ledger record the pass leaves reads `slow` or `too-fast`
 * (net-state.ts over the record, as every status view reads it), and on Mongo `leasecron status`'s own
 * snapshot (storeStatusSnapshot, a process that is not a replica) says so too. The worker's `run` path is
 * the Prometheus end-to-end test's (LeasecronNetSlow) and the browser test's (`too fast`).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { storeStatusSnapshot } from '../../src/cli/store-status-snapshot.js'
import { loadConfig } from '../../src/index.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import { netState } from '../../src/status/net-state.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { netPlans } from '../../src/worker/status/worker-status.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const opened: PassRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})

/** One `once` of tick-net (every second) whose pass takes `passMs`, under `bounds`; its config and runtime. */
async function onceWith(store: 'memory' | 'mongo', passMs: number, bounds: Record<string, string>) {
  const recording = recordingNet({ passMs: () => passMs })
  const env: Record<string, string> = { LEASECRON_FORGE: 'sandbox', ...bounds }
  if (store === 'mongo') {
    const database = await useTestDatabase('once_duration')
    Object.assign(env, { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
  }
  const loaded = loadConfig(env, [recording.net], TEST_LEASES, { needsForge: false })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  const config = loaded.config
  const runtime = await openRuntime({ config, log })
  opened.push(runtime)
  const net = config.nets[0]!
  const slot = new Date(Math.floor(Date.now() / 1000) * 1000)
  const signal = new AbortController().signal
  const owner = ownerId('duration-once')
  const result = await runOnceOnRuntime({ runtime, config, net, slot, owner, log, signal })
  expect(result.outcome, 'the once did not run its slot').toBe('ran')
  return { config, runtime }
}

/**
 * The state the net's ledger record reads as the status views compute it, at the pass's end (not the
 * test's clock: a loaded machine's pause would make the every-second net late instead).
 */
async function stateOf({ config, runtime }: Awaited<ReturnType<typeof onceWith>>) {
  const runs = await runtime.ledger.history('tick-net', 5)
  expect(
    runs.map((r) => r.outcome),
    'the pass did not succeed',
  ).toEqual(['ok'])
  return netState(runs, netPlans(config.nets)[0]!, runs[0]!.finishedAt!)
}

describe.each(['memory', 'mongo'] as const)('duration bounds through once, on the %s store', (store) => {
  it('reads slow when the success took longer than MAX_DURATION', async () => {
    const ran = await onceWith(store, 300, { LEASECRON_NET_TICK_NET_MAX_DURATION: '100ms' })
    expect(await stateOf(ran)).toBe('slow')
    if (store === 'mongo') {
      const [run] = await ran.runtime.ledger.history('tick-net', 1)
      const snapshot = await storeStatusSnapshot(ran.config, run!.finishedAt!)
      expect(snapshot.nets.find((n) => n.name === 'tick-net')?.state, 'leasecron status says otherwise').toBe(
        'slow',
      )
    }
  })

  it('reads too-fast when the success took less than MIN_DURATION', async () => {
    const ran = await onceWith(store, 0, { LEASECRON_NET_TICK_NET_MIN_DURATION: '5s' })
    expect(await stateOf(ran)).toBe('too-fast')
  })

  it('reads ok within both bounds', async () => {
    const ran = await onceWith(store, 50, {
      LEASECRON_NET_TICK_NET_MIN_DURATION: '10ms',
      LEASECRON_NET_TICK_NET_MAX_DURATION: '5s',
    })
    expect(await stateOf(ran)).toBe('ok')
  })
})
