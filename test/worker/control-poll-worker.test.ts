/**
 * A worker reads its nets' controls with one poll for all of them (term/control-poll.ts), woken by the
 * notice an operator's write leaves on the lease (worker/noticing-controls.ts) and heard at the holder's
 * next renewal: three daily nets held by one in-memory worker are not read on a timer at rest, and a run
 * request is read — with the other nets', in one `getMany` — and run within a renewal or two; and nets
 * whose slots fall due at the same instant read their pause checks together, none with a `get` of its
 * own. Real time: about 10 s.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { NetControlStore } from '../../src/control/net-control-store.js'
import { defineLease, defineNet, type NetDefinition, requestRun } from '../../src/index.js'
import { NOTICED_CONTROL_POLL_MS } from '../../src/term/control-poll.js'
import { noticingControls } from '../../src/worker/noticing-controls.js'
import { assembleWorker } from '../../src/worker/worker.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
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
async function startCounting(
  held: NetDefinition[],
  env: Record<string, string> = {},
  prepare?: (runtime: PassRuntime) => Promise<unknown>,
) {
  const reads: number[] = []
  let gets = 0
  let opened: PassRuntime | undefined
  const options = {
    nets: held,
    leases,
    env: { LOG_LEVEL: 'silent', PORT: '0', LEASECRON_FORGE: 'sandbox', ...env },
  }
  worker = assembleWorker(options, setUpWorker(options), async (runtimeOptions) => {
    const runtime = await openRuntime(runtimeOptions)
    opened = runtime
    await prepare?.(runtime)
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
  if (!opened) throw new Error('the worker started without opening its runtime')
  return { reads, ownReads: () => gets, runtime: opened }
}

/** Waits (real time, polling the ledger) until `net` has a manual run; false when `ms` passed first. */
async function manualRunWithin(runtime: PassRuntime, net: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    const runs = await runtime.ledger.history(net, 5)
    if (runs.some((run) => run.manual)) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

describe('a worker holding several nets', () => {
  it('reads their controls when an operator’s write is heard, all in one call, not on a timer', async () => {
    // A 3 s TTL: the holder renews every second, so a notice is heard within about one.
    const fast = Object.fromEntries(
      leases.map((l) => [`LEASECRON_NET_${l.name.replace('-', '_').toUpperCase()}_TTL_MS`, '3000']),
    )
    const { reads, ownReads, runtime } = await startCounting(nets, fast)
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    expect(ownReads(), 'a net read its controls on its own').toBe(0)
    // Each new net's election reads its newest due slot's pause check (with the others'), and the first
    // renewals' notices one read of all three; a read per renewal would be about twelve.
    expect(
      reads.length,
      `the controls were read on a timer at rest: ${JSON.stringify(reads)}`,
    ).toBeLessThanOrEqual(2 + nets.length)
    const atRest = reads.length
    const operator = noticingControls(runtime.controls, { store: runtime.store, leaseOf: (net) => net })
    await requestRun(operator, 'daily-b', { by: 'test' }, new Date())
    expect(
      await manualRunWithin(runtime, 'daily-b', 5_000),
      `a run request waited for the fallback poll (${NOTICED_CONTROL_POLL_MS} ms), not the notice`,
    ).toBe(true)
    expect(reads.slice(atRest), 'the notice’s read was not one read of every held net').toContain(nets.length)
  }, 30_000)
  it('runs a request left before its term began at the term’s start, not at the fallback poll', async () => {
    const { runtime } = await startCounting(nets, {}, (opened) =>
      opened.controls.request('daily-c', 'run', { by: 'test' }, new Date()),
    )
    expect(
      await manualRunWithin(runtime, 'daily-c', 5_000),
      `a request left before the election waited for the fallback poll (${NOTICED_CONTROL_POLL_MS} ms)`,
    ).toBe(true)
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
