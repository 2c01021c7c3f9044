import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MemoryStore, run } from '../../src/index.js'
import { systemClock } from '../../src/lease/clock.js'
import type { LeaseStore } from '../../src/lease/store.js'
import { MemoryReplicaStore } from '../../src/lease/memory-replica-store.js'
import { netCampaignGate } from '../../src/share/campaign-gate.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { ANNOUNCEMENT_INTERVALS, ShareKeeper } from '../../src/share/share-keeper.js'
import { VacancyWatch } from '../../src/share/vacancy-watch.js'

/** A term in `keeper`'s share whose step-down calls `onStepDown` (as the runner's serving listens to it). */
function termOf(keeper: ShareKeeper, onStepDown: () => void, orphaned?: boolean) {
  const share = keeper.onTerm(orphaned)
  // The keeper may ask the new term to step down at once (it rebalances as the term joins).
  if (share.stepDown.aborted) onStepDown()
  else share.stepDown.addEventListener('abort', onStepDown, { once: true })
  return share
}

const TTL = 3000
const RETRY = 1000
const LEASES = Array.from({ length: 10 }, (_, i) => `net-${i}`)

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-12-01T21:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

/** The real MemoryStore, with every call this replica sends counted by method. */
function counted(store: MemoryStore): { store: LeaseStore; calls: Map<string, number> } {
  const calls = new Map<string, number>()
  const counting = <T>(name: string, answer: T): T => {
    calls.set(name, (calls.get(name) ?? 0) + 1)
    return answer
  }
  const wrapped: LeaseStore = {
    acquire: (...a) => counting('acquire', store.acquire(...a)),
    renew: (...a) => counting('renew', store.renew(...a)),
    release: (...a) => counting('release', store.release(...a)),
    list: (...a) => counting('list', store.list(...a)),
    get: (...a) => counting('get', store.get(...a)),
    vacant: (...a) => counting('vacant', store.vacant(...a)),
    expiries: (...a) => counting('expiries', store.expiries(...a)),
  }
  return { store: wrapped, calls }
}

describe('campaigns behind the vacancy watch', () => {
  it('send one vacancy read per interval for ten held leases, and take a freed one within an interval and a retry', async () => {
    const shared = new MemoryStore()
    const grants = await Promise.all(LEASES.map((name) => shared.acquire(name, 'holder', new Date(), 60_000)))
    const { store, calls } = counted(shared)
    const watch = new VacancyWatch({
      store,
      leases: LEASES,
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
    })
    const stop = new AbortController()
    const loop = watch.run(RETRY, stop.signal)
    const elected: string[] = []
    const campaigns = LEASES.map((name) => {
      const gate = netCampaignGate(name, TTL, {
        clock: undefined,
        share: () => undefined,
        vacancy: () => watch,
      })
      return run(
        store,
        { name, owner: 'b', ttlMs: TTL, retryMs: RETRY, signal: stop.signal, mayCampaign: gate.mayCampaign },
        async (term) => {
          elected.push(name)
          await new Promise((r) => term.addEventListener('abort', r, { once: true }))
        },
      )
    })
    await vi.advanceTimersByTimeAsync(20 * RETRY)
    // The first attempts precede the first read; after it, nothing but the one read per interval.
    const firstAttempts = calls.get('acquire') ?? 0
    expect(firstAttempts).toBeLessThanOrEqual(LEASES.length)
    calls.clear()
    await vi.advanceTimersByTimeAsync(20 * RETRY)
    expect(
      Object.fromEntries(calls),
      'a replica polled leases it does not hold instead of reading the vacancies once per interval',
    ).toEqual({ expiries: 20 })
    const freed = grants[3]
    if (!freed) throw new Error('the holder was not granted net-3')
    await shared.release(freed)
    const freedAt = Date.now()
    while (!elected.includes('net-3') && Date.now() - freedAt < 10 * RETRY)
      await vi.advanceTimersByTimeAsync(50)
    expect(elected).toEqual(['net-3'])
    expect(
      Date.now() - freedAt,
      'the freed lease was taken later than an interval and a jittered retry',
    ).toBeLessThanOrEqual(RETRY + 1.2 * RETRY)
    stop.abort()
    await Promise.all([loop, ...campaigns])
  })

  it('holds nothing back on a store without vacant(), nor before its first read', async () => {
    const store = new MemoryStore()
    const plain: LeaseStore = {
      acquire: (...a) => store.acquire(...a),
      renew: (...a) => store.renew(...a),
      release: (...a) => store.release(...a),
      list: (...a) => store.list(...a),
      get: (...a) => store.get(...a),
    }
    const watch = new VacancyWatch({
      store: plain,
      leases: LEASES,
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
    })
    expect(watch.mayTry('net-0')).toBe(true)
    await watch.run(RETRY, new AbortController().signal)
    expect(watch.mayTry('net-0'), 'a store without vacant() held a campaign back').toBe(true)
  })

  it('lets survivors at their share take every lease of a killed holder within a TTL and a retry', async () => {
    const shared = new MemoryStore()
    const replicas = new MemoryReplicaStore()
    const log = createLogger({ level: 'silent' })
    const stop = new AbortController()
    const six = LEASES.slice(0, 6)
    // 2/2/2: the holder about to die renewed net-0 and net-1 just now, and announced itself just now.
    for (const name of six.slice(0, 2)) await shared.acquire(name, 'dead', new Date(), TTL)
    for (const owner of ['dead', 'a', 'b'])
      await replicas.announce(owner, new Date(), ANNOUNCEMENT_INTERVALS * RETRY)
    const killedAt = Date.now()
    const elected = new Map<string, string>()
    const loops: Promise<unknown>[] = []
    for (const owner of ['a', 'b']) {
      const keeper = new ShareKeeper({
        ...{ store: replicas, owner, leases: six.length, slack: 0, intervalMs: RETRY, clock: systemClock },
        ...{ log, metrics: createWorkerMetrics() },
      })
      termOf(keeper, () => {})
      termOf(keeper, () => {})
      const watch = new VacancyWatch({ store: shared, leases: six, clock: systemClock, log })
      loops.push(keeper.run(stop.signal), watch.run(RETRY, stop.signal))
      await keeper.firstRead
      expect(keeper.share, 'the dead holder was not counted at first').toBe(2)
      for (const name of six.slice(0, 2)) {
        const gate = netCampaignGate(name, TTL, {
          clock: undefined,
          share: () => keeper,
          vacancy: () => watch,
        })
        const spec = { name, owner, ttlMs: TTL, retryMs: RETRY, signal: stop.signal }
        loops.push(
          run(shared, { ...spec, mayCampaign: gate.mayCampaign, onAttempt: gate.attempted }, async (term) => {
            elected.set(name, `${owner} after ${Date.now() - killedAt} ms`)
            await new Promise((r) => term.addEventListener('abort', r, { once: true }))
          }),
        )
      }
    }
    while (elected.size < 2 && Date.now() - killedAt < 10 * TTL) await vi.advanceTimersByTimeAsync(50)
    const took = [...elected.values()].map((v) => Number(v.split(' ')[2]))
    expect(
      took,
      `not every lease of the killed holder was taken: ${JSON.stringify([...elected])}`,
    ).toHaveLength(2)
    expect(
      Math.max(...took),
      `a killed holder's lease stayed unheld past the TTL and a jittered retry: ${JSON.stringify([...elected])}`,
    ).toBeLessThanOrEqual(TTL + 1.2 * RETRY)
    stop.abort()
    await Promise.all(loops)
  })
})

describe('survivors taking a killed holder’s leases', () => {
  it('keep the orphans they took while the dead replica is still counted, so each is taken once and stays held', async () => {
    const shared = new MemoryStore()
    const replicas = new MemoryReplicaStore()
    const log = createLogger({ level: 'silent' })
    const stop = new AbortController()
    const six = LEASES.slice(0, 6)
    // 2/2/2 on six leases: the replica about to die renewed net-0 and net-1 800 ms ago and announced
    // itself just now, so its leases expire before its announcement does (as with real processes).
    for (const name of six.slice(0, 2)) await shared.acquire(name, 'dead', new Date(), TTL)
    await vi.advanceTimersByTimeAsync(800)
    for (const owner of ['dead', 'a', 'b'])
      await replicas.announce(owner, new Date(), ANNOUNCEMENT_INTERVALS * RETRY)
    const killedAt = Date.now()
    const elections: string[] = []
    const stepDowns: string[] = []
    const loops: Promise<unknown>[] = []
    for (const owner of ['a', 'b']) {
      const keeper = new ShareKeeper({
        ...{ store: replicas, owner, leases: six.length, slack: 0, intervalMs: RETRY, clock: systemClock },
        ...{ log, metrics: createWorkerMetrics() },
      })
      // Its own two terms, older than any orphan (never asked to step down here: they are within the share).
      termOf(keeper, () => stepDowns.push(`${owner} from an own term`))
      termOf(keeper, () => stepDowns.push(`${owner} from an own term`))
      const watch = new VacancyWatch({ store: shared, leases: six, clock: systemClock, log })
      loops.push(keeper.run(stop.signal), watch.run(RETRY, stop.signal))
      await keeper.firstRead
      for (const name of six.slice(0, 2)) {
        const gate = netCampaignGate(name, TTL, {
          clock: undefined,
          share: () => keeper,
          vacancy: () => watch,
        })
        const spec = { name, owner, ttlMs: TTL, retryMs: RETRY, signal: stop.signal }
        const campaign = run(
          shared,
          { ...spec, mayCampaign: gate.mayCampaign, onAttempt: gate.attempted },
          async (term) => {
            elections.push(`${name} by ${owner} after ${Date.now() - killedAt} ms`)
            // The worker's term: a step-down ends it (as serveTerm does between passes).
            await new Promise<void>((resolve) => {
              const share = gate.onTerm()
              const ended = () => {
                share?.ended()
                resolve()
              }
              const steppedDown = () => {
                stepDowns.push(`${owner} from ${name}`)
                ended()
              }
              if (share?.stepDown.aborted) steppedDown()
              else share?.stepDown.addEventListener('abort', steppedDown, { once: true })
              term.addEventListener('abort', ended, { once: true })
            })
          },
        )
        loops.push(campaign)
      }
    }
    while (elections.length < 2 && Date.now() - killedAt < 10 * TTL) await vi.advanceTimersByTimeAsync(50)
    const took = elections.map((e) => Number(e.split(' ')[4]))
    expect(
      Math.max(...took),
      `a killed holder's lease stayed unheld past the TTL and a jittered retry: ${JSON.stringify(elections)}`,
    ).toBeLessThanOrEqual(TTL + 1.2 * RETRY)
    // Long enough for the dead replica's announcement to expire and every spare to end.
    await vi.advanceTimersByTimeAsync(3 * TTL)
    expect(
      stepDowns,
      'a survivor stepped down from a lease it had just taken over: the lease waited for a second taker',
    ).toEqual([])
    expect(elections, 'a killed holder’s lease changed hands more than once').toHaveLength(2)
    stop.abort()
    await Promise.all(loops)
  })

  it('follows the lease list: a lease added is tried before a read covers it, a dropped one is never tried', async () => {
    const shared = new MemoryStore()
    await shared.acquire('net-held', 'holder', new Date(), 60_000)
    const { store, calls } = counted(shared)
    const watch = new VacancyWatch({
      store,
      leases: ['net-0', 'net-held'],
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
    })
    const stop = new AbortController()
    const loop = watch.run(RETRY, stop.signal)
    await vi.advanceTimersByTimeAsync(0)
    expect(calls.get('expiries'), 'no first read').toBe(1)
    expect([watch.mayTry('net-0'), watch.mayTry('net-held')]).toEqual([true, false])
    watch.setLeases(['net-held', 'net-new'])
    expect(watch.mayTry('net-new'), 'a lease added since the read waited for the next one').toBe(true)
    watch.tried('net-new')
    expect(watch.mayTry('net-new'), 'a lease added was tried twice before a read').toBe(false)
    expect(watch.mayTry('net-0'), 'a dropped lease was still tried').toBe(false)
    expect(watch.mayTry('never-listed'), 'a lease never listed was tried').toBe(false)
    await vi.advanceTimersByTimeAsync(RETRY)
    expect(calls.get('expiries')).toBe(2)
    expect([watch.mayTry('net-new'), watch.mayTry('net-held'), watch.mayTry('net-0')]).toEqual([
      true,
      false,
      false,
    ])
    stop.abort()
    await loop
  })
})
