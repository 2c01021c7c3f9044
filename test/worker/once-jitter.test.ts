/**
 * `once` under JITTER (runOnceOnRuntime with `waitForJitter`, as `leasecron once` runs it for a scheduled
 * slot), on the in-memory runtime and on the test Mongo: it waits for the slot's jittered start (the
 * offset the worker's ticker uses), then claims the schedule's slot; a stop during the wait claims
 * nothing; the serverless path (no `waitForJitter`) does not wait.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import { jitteredStart } from '../../src/term/slot-spread.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { recordingNet } from '../support/test-nets.js'
import { closeTickRuntimes, openTickRuntime } from '../support/tick-runtime.js'

const log = createLogger({ level: 'silent' })
afterAll(closeTickRuntimes)

/** tick-net every second with a JITTER of 900 ms: its offset is 659 ms (its name's hash). */
async function open(store: 'memory' | 'mongo') {
  const recording = recordingNet()
  const opened = await openTickRuntime(
    store,
    'once_jitter',
    recording.net,
    { LEASECRON_NET_TICK_NET_JITTER: '900ms' },
    log,
  )
  return { ...opened, passes: recording.passes }
}

/** A slot at least a second ahead, on the schedule's whole seconds: its jittered start is still to come. */
const slotAhead = () => new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000)

describe.each(['memory', 'mongo'] as const)('once under JITTER, on the %s store', (store) => {
  it('waits for the slot’s jittered start, then runs the schedule’s slot', async () => {
    const { config, runtime, net, passes } = await open(store)
    const slot = slotAhead()
    const startAt = jitteredStart(net, slot)
    expect(startAt.getTime() - slot.getTime(), 'tick-net’s offset under a 900 ms JITTER').toBe(659)
    const signal = new AbortController().signal
    const owner = ownerId('jitter-once')
    const result = await runOnceOnRuntime({
      runtime,
      config,
      net,
      slot,
      owner,
      log,
      signal,
      waitForJitter: true,
    })
    expect(result.outcome).toBe('ran')
    const [record] = await runtime.ledger.history('tick-net', 1)
    expect(record?.slot.toISOString(), 'the record is not the schedule’s slot').toBe(slot.toISOString())
    expect(record!.startedAt.getTime(), 'the pass started before its jittered start').toBeGreaterThanOrEqual(
      startAt.getTime(),
    )
    expect(passes.map((p) => p.slot)).toEqual([slot.toISOString()])
  })

  it('claims nothing when stopped during the wait', async () => {
    const { config, runtime, net, passes } = await open(store)
    const slot = slotAhead()
    const stop = new AbortController()
    setTimeout(() => stop.abort(new Error('SIGTERM: once stopping')), 200)
    const owner = ownerId('jitter-stopped')
    const result = await runOnceOnRuntime({
      ...{ runtime, config, net, slot, owner, log },
      signal: stop.signal,
      waitForJitter: true,
    })
    expect(result).toMatchObject({ outcome: 'aborted', fence: null, slot: slot.toISOString() })
    expect(await runtime.ledger.history('tick-net', 10), 'a slot was claimed after the stop').toEqual([])
    expect(passes).toEqual([])
  })

  it('does not wait on the serverless path (no waitForJitter)', async () => {
    const { config, runtime, net } = await open(store)
    const slot = slotAhead()
    const signal = new AbortController().signal
    const owner = ownerId('jitter-trigger')
    const result = await runOnceOnRuntime({ runtime, config, net, slot, owner, log, signal })
    expect(result.outcome).toBe('ran')
    const [record] = await runtime.ledger.history('tick-net', 1)
    expect(record!.startedAt.getTime(), 'the trigger waited for the jittered start').toBeLessThan(
      jitteredStart(net, slot).getTime(),
    )
  })
})
