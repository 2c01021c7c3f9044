/**
 * The operator's control writes leave a notice on the net's lease (worker/noticing-controls.ts), on the
 * memory twins: only the writes a holder acts on, on the net's own lease, and a notice that fails never
 * fails the write it follows.
 */
import { describe, expect, it } from 'vitest'
import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'
import { MemoryStore } from '../../src/lease/memory-store.js'
import type { LeaseStore } from '../../src/lease/store.js'
import { noticingControls } from '../../src/worker/noticing-controls.js'

const t0 = new Date('2026-12-06T12:00:00.000Z')

/** A held lease `lease-b` (of net `net-b`) whose holder counts the notices its renewals hear. */
async function heldLease() {
  const store = new MemoryStore()
  const grant = await store.acquire('lease-b', 'alpha', t0, 30_000)
  if (!grant) throw new Error('the acquire of an absent lease was refused')
  const heard: string[] = []
  store.onNotice((name) => heard.push(name))
  await store.renew(grant, t0, 30_000)
  heard.length = 0
  /** How many notices the holder hears at its next renewal (0 or 1: notices between renewals count once). */
  const renewAndHear = async () => {
    await store.renew(grant, t0, 30_000)
    return heard.splice(0).length
  }
  return { store, renewAndHear }
}

const leaseOf = (net: string) => (net === 'net-b' ? 'lease-b' : undefined)

describe('the operator’s control writes', () => {
  it('leave a notice on the net’s lease for a pause, a lifted pause and a new request', async () => {
    const { store, renewAndHear } = await heldLease()
    const controls = noticingControls(new MemoryNetControlStore(), { store, leaseOf })
    await controls.pause('net-b', { reason: 'deploy' }, t0)
    expect(await renewAndHear(), 'a pause left the holder no notice').toBe(1)
    await controls.resume('net-b', { catchUp: true }, t0)
    expect(await renewAndHear(), 'a resume with catch-up left the holder no notice').toBe(1)
    await controls.request('net-b', 'run', { by: 'ann' }, t0)
    expect(await renewAndHear(), 'a run request left the holder no notice').toBe(1)
    const slots = [new Date(t0.getTime() - 3_600_000)]
    const { backfill } = await controls.requestBackfill('net-b', { from: slots[0]!, to: t0, slots }, t0)
    expect(await renewAndHear(), 'a backfill request left the holder no notice').toBe(1)
    await controls.advanceBackfill('net-b', { id: backfill.id, index: 0, end: 'ok', owner: 'alpha' }, t0)
    expect(await renewAndHear(), 'the holder’s own progress word woke it').toBe(0)
    await controls.requestBackfill('net-b', { from: slots[0]!, to: t0, slots }, t0)
    await controls.cancelBackfill('net-b', { by: 'ann' }, t0)
    expect(await renewAndHear(), 'a backfill request and its cancel left the holder no notice').toBe(1)
  })

  it('leave none for a backfill asked while one runs, nor a cancel with none running', async () => {
    const { store, renewAndHear } = await heldLease()
    const inner = new MemoryNetControlStore()
    const controls = noticingControls(inner, { store, leaseOf })
    const slots = [new Date(t0.getTime() - 3_600_000)]
    await inner.requestBackfill('net-b', { from: slots[0]!, to: t0, slots }, t0)
    expect((await controls.requestBackfill('net-b', { from: slots[0]!, to: t0, slots }, t0)).created).toBe(
      false,
    )
    await inner.cancelBackfill('net-b', {}, t0)
    expect(await controls.cancelBackfill('net-b', {}, t0)).toBeUndefined()
    expect(await renewAndHear(), 'a backfill write with nothing new for the holder woke it').toBe(0)
  })

  it('leave none for what the holder need not act on: a pending request asked again, a resume of nothing, another net', async () => {
    const { store, renewAndHear } = await heldLease()
    const inner = new MemoryNetControlStore()
    const controls = noticingControls(inner, { store, leaseOf })
    await inner.request('net-b', 'run', {}, t0)
    expect((await controls.request('net-b', 'run', {}, t0)).created).toBe(false)
    expect(await controls.resume('net-b', {}, t0)).toBeUndefined()
    await controls.pause('net-other', {}, t0)
    expect(await renewAndHear(), 'a write with nothing new for the holder woke it').toBe(0)
  })

  it('keep the write when its notice fails, and say so through onUnnoticed', async () => {
    const failing: Pick<LeaseStore, 'notify'> = {
      notify: () => Promise.reject(new Error('the lease store did not answer')),
    }
    const unnoticed: string[] = []
    const inner = new MemoryNetControlStore()
    const controls = noticingControls(inner, {
      store: failing,
      leaseOf,
      onUnnoticed: (net, error) => unnoticed.push(`${net}: ${(error as Error).message}`),
    })
    const pause = await controls.pause('net-b', { reason: 'deploy' }, t0)
    expect(pause.reason).toBe('deploy')
    expect((await inner.get('net-b', t0)).paused?.reason, 'a failed notice undid the pause').toBe('deploy')
    expect(unnoticed).toEqual(['net-b: the lease store did not answer'])
  })

  it('are the store’s own when the lease store takes no notices', () => {
    const inner = new MemoryNetControlStore()
    expect(noticingControls(inner, { store: {}, leaseOf })).toBe(inner)
  })
})
