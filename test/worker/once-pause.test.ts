/**
 * A pause holds back `once` and serverless triggers as it holds back the worker's tick: runOnceOnRuntime
 * (the one path of `leasecron once` and of a serverless trigger) records a paused net's scheduled slot
 * `paused`, with who and why, and runs nothing; a manual run still runs; after a resume the same slot runs.
 * On the in-memory runtime and on the test Mongo.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { recordingNet } from '../support/test-nets.js'
import { closeTickRuntimes, openTickRuntime } from '../support/tick-runtime.js'

const log = createLogger({ level: 'silent' })
afterAll(closeTickRuntimes)

async function open(store: 'memory' | 'mongo') {
  const recording = recordingNet({ schedule: '* * * * *' })
  const opened = await openTickRuntime(store, 'once_pause', recording.net, {}, log)
  return { ...opened, passes: recording.passes }
}

describe.each(['memory', 'mongo'] as const)('once while the net is paused, on the %s store', (store) => {
  it('records the scheduled slot paused with who and why, runs nothing, and runs it once resumed', async () => {
    const { config, runtime, net, passes } = await open(store)
    const now = new Date()
    const slot = new Date(Math.floor(now.getTime() / 60_000) * 60_000)
    await runtime.controls.pause('tick-net', { reason: 'forge maintenance', by: 'ann' }, now)
    const once = (manual = false) =>
      runOnceOnRuntime({
        ...{ runtime, config, net, log, signal: new AbortController().signal },
        slot: manual ? new Date() : slot,
        owner: ownerId('once-pause'),
        ...(manual ? { manual: true } : {}),
      })

    const paused = await once()
    expect(paused.outcome, 'a paused net’s scheduled slot ran through once').toBe('paused')
    expect(paused.error).toMatch(/paused by ann.*forge maintenance/)
    expect(passes, 'the pass ran while the net was paused').toEqual([])
    const [record] = await runtime.ledger.history('tick-net', 5)
    expect(record, 'the slot was not recorded paused').toMatchObject({ outcome: 'paused', slot })

    expect((await once(true)).outcome, 'a pause held back a manual run').toBe('ran')
    await runtime.controls.resume('tick-net', {}, new Date())
    expect((await once()).outcome, 'the paused slot did not run once the net was resumed').toBe('ran')
    expect(passes.map((p) => p.slot)).toContain(slot.toISOString())
  })
})
