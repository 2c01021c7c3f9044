/**
 * A worker reads its nets' controls with one poll for all of them (term/control-poll.ts): three daily nets
 * held by one in-memory worker cost one `getMany` of three nets per interval, and no poll of their own —
 * where each net polling for itself costs three reads per interval. Each net's own `get` is its election
 * pass's pause check. Real time: two intervals, about 11 s.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { NetControlStore } from '../../src/control/net-control-store.js'
import { defineLease, defineNet } from '../../src/index.js'
import { CONTROL_POLL_MS } from '../../src/term/control-poll.js'
import { assembleWorker } from '../../src/worker/worker.js'
import { openRuntime } from '../../src/worker/runtime.js'
import { setUpWorker } from '../../src/worker/worker-setup.js'
import type { Worker } from '../../src/worker/worker-options.js'

const leases = ['daily-a', 'daily-b', 'daily-c'].map((name) => defineLease(name, `${name} test net`))
const nets = leases.map((lease) =>
  defineNet({
    name: lease.name,
    lease: lease.name,
    // Never due during the test: the reads counted are the polls', not a tick's pause check.
    schedule: '0 3 * * *',
    description: 'a daily net that does nothing',
    options: {},
    setup: () => ({}),
    term: () => async () => {},
  }),
)

let worker: Worker | undefined
afterEach(async () => {
  await worker?.stop()
  worker = undefined
})

describe('a worker holding several nets', () => {
  it('reads all their controls in one call per interval, none polling on its own', async () => {
    const reads: number[] = []
    let ownReads = 0
    const options = { nets, leases, env: { LOG_LEVEL: 'silent', PORT: '0', LEASECRON_FORGE: 'sandbox' } }
    worker = assembleWorker(options, setUpWorker(options), async (runtimeOptions) => {
      const runtime = await openRuntime(runtimeOptions)
      const controls = runtime.controls
      const counting: NetControlStore = Object.assign(Object.create(controls), {
        getMany: (held: readonly string[], now: Date) => {
          reads.push(held.length)
          return controls.getMany(held, now)
        },
        get: (net: string, now: Date) => {
          ownReads++
          return controls.get(net, now)
        },
      })
      return Object.assign(Object.create(runtime), { controls: counting })
    })
    await worker.start()
    await new Promise((resolve) => setTimeout(resolve, 2 * CONTROL_POLL_MS + 1_000))
    // Each new net's election runs its newest due slot, whose pause check is the net's own read.
    expect(ownReads, 'a net polled its controls on its own').toBeLessThanOrEqual(nets.length)
    expect(reads.length, 'the nets’ controls were not read once per interval').toBeGreaterThanOrEqual(1)
    expect(reads.length).toBeLessThanOrEqual(2)
    expect(reads, 'each net polled for itself').toEqual(reads.map(() => 3))
  }, 30_000)
})
