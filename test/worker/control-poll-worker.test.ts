/**
 * A worker reads its nets' controls with one poll for all of them (term/control-poll.ts): three daily nets
 * held by one in-memory worker cost one `getMany` of three nets per interval, and no poll of their own —
 * where each net polling for itself costs three reads per interval; and nets whose slots fall due at the
 * same instant read their pause checks together, none with a `get` of its own. Real time: about 16 s.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { NetControlStore } from '../../src/control/net-control-store.js'
import { defineLease, defineNet, type NetDefinition } from '../../src/index.js'
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

/**
 * Starts an in-memory worker holding `held`, whose controls count their reads: `getMany` calls with their
 * sizes, and `get` calls (a net reading its own).
 */
async function startCounting(held: NetDefinition[]) {
  const reads: number[] = []
  let gets = 0
  const options = { nets: held, leases, env: { LOG_LEVEL: 'silent', PORT: '0', LEASECRON_FORGE: 'sandbox' } }
  worker = assembleWorker(options, setUpWorker(options), async (runtimeOptions) => {
    const runtime = await openRuntime(runtimeOptions)
    const controls = runtime.controls
    const counting: NetControlStore = Object.assign(Object.create(controls), {
      getMany: (nets: readonly string[], now: Date) => {
        reads.push(nets.length)
        return controls.getMany(nets, now)
      },
      get: (net: string, now: Date) => {
        gets++
        return controls.get(net, now)
      },
    })
    return Object.assign(Object.create(runtime), { controls: counting })
  })
  await worker.start()
  return { reads, ownReads: () => gets }
}

describe('a worker holding several nets', () => {
  it('reads all their controls in one call per interval, none polling on its own', async () => {
    const { reads, ownReads } = await startCounting(nets)
    await new Promise((resolve) => setTimeout(resolve, 2 * CONTROL_POLL_MS + 1_000))
    expect(ownReads(), 'a net read its controls on its own').toBe(0)
    // Each new net's election runs its newest due slot, whose pause check is read with the others'
    // (once, or split on a loaded machine); then one poll of all three per interval. Each net polling for
    // itself would be three reads an interval.
    const polls = reads.filter((n) => n === nets.length)
    expect(
      polls.length,
      `the nets’ controls were not read together: ${JSON.stringify(reads)}`,
    ).toBeGreaterThanOrEqual(2)
    expect(reads.length, `each net polled for itself: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(
      2 + nets.length,
    )
  }, 30_000)
  it('reads the pause of nets whose slots fall due together in one call, none on its own', async () => {
    const everySecond = leases.map((lease) =>
      defineNet({
        name: lease.name,
        lease: lease.name,
        schedule: '* * * * * *',
        description: 'a net due every second that does nothing',
        options: {},
        setup: () => ({}),
        term: () => async () => {},
      }),
    )
    const { reads, ownReads } = await startCounting(everySecond)
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    expect(ownReads(), 'a slot read its net’s pause on its own').toBe(0)
    // About four ticks of three nets, and a poll: one read of all three each, where each net reading its
    // own pause costs three. A loaded machine may split a tick's three in two.
    expect(reads.length, 'the ticks’ pause checks were not read').toBeGreaterThanOrEqual(3)
    expect(
      reads.filter((n) => n === nets.length).length,
      `the three nets’ checks were read apart: ${JSON.stringify(reads)}`,
    ).toBeGreaterThanOrEqual(reads.length / 2)
  }, 30_000)
})
