/**
 * RenewalBatch over a real MemoryStore (counted, not replaced), on fake timers: renewals asked within a
 * ttl's window go to the store in one renewMany, each caller gets its own answer, and a renewal that
 * cannot wait (aborted) or cannot go (a bad grant) fails alone.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MemoryStore, run } from '../../src/index.js'
import { systemClock } from '../../src/lease/clock.js'
import { batchRenewals, RenewalBatch, renewalWindowMs } from '../../src/lease/renewal-batch.js'
import { RENEWAL_GROUPS, renewalPhaseMs } from '../../src/lease/term.js'
import type {
  LeaseGrant,
  LeaseReadOptions,
  LeaseRecord,
  LeaseStore,
  LeaseTerm,
} from '../../src/lease/store.js'

const TTL = 3_000
const WINDOW = renewalWindowMs(TTL)

/** A MemoryStore that counts the renewal and read calls it was sent. */
class CountedStore extends MemoryStore {
  readonly sent: Array<{ kind: 'renew' | 'renewMany' | 'get' | 'getMany'; leases: string[] }> = []
  failNext = false

  /** MemoryStore's renewMany renews each grant through renew: those are not calls of their own. */
  #inMany = false

  override renew(grant: LeaseTerm, now: Date, ttlMs: number): Promise<boolean> {
    if (!this.#inMany) this.sent.push({ kind: 'renew', leases: [grant.name] })
    return super.renew(grant, now, ttlMs)
  }

  override get(name: string, options?: LeaseReadOptions): Promise<LeaseRecord | undefined> {
    this.sent.push({ kind: 'get', leases: [name] })
    return super.get(name, options)
  }

  override getMany(names: readonly string[]): Promise<Array<LeaseRecord | undefined>> {
    this.sent.push({ kind: 'getMany', leases: [...names] })
    return super.getMany(names)
  }

  override async renewMany(grants: readonly LeaseTerm[], now: Date, ttlMs: number): Promise<boolean[]> {
    this.sent.push({ kind: 'renewMany', leases: grants.map((g) => g.name) })
    if (this.failNext) throw new Error('the store did not answer')
    this.#inMany = true
    try {
      return await super.renewMany(grants, now, ttlMs)
    } finally {
      this.#inMany = false
    }
  }
}

let store: CountedStore
let batch: LeaseStore
const t0 = new Date('2026-09-30T15:00:00.000Z')

async function held(name: string, ttlMs = TTL): Promise<LeaseGrant> {
  const grant = await store.acquire(name, 'alpha', t0, ttlMs)
  if (!grant) throw new Error(`${name} was not granted on an empty store`)
  return grant
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(t0)
  store = new CountedStore()
  batch = batchRenewals(store, systemClock)
})
afterEach(() => {
  vi.useRealTimers()
})

describe('RenewalBatch', () => {
  it('is used only over a store that can renew many leases in one call', () => {
    expect(batch, 'a MemoryStore’s renewals were not batched').toBeInstanceOf(RenewalBatch)
    const plain: LeaseStore = new MemoryStore()
    Object.defineProperty(plain, 'renewMany', { value: undefined })
    expect(batchRenewals(plain, systemClock), 'a store without renewMany was wrapped').toBe(plain)
  })

  it('sends the renewals of one ttl asked within its window in one renewMany, answering each', async () => {
    const [a, b, c] = [await held('net-a'), await held('net-b'), await held('net-c')]
    const stranger = { ...c, owner: 'beta' }
    const answers = [batch.renew(a, t0, TTL)]
    await vi.advanceTimersByTimeAsync(WINDOW - 1)
    answers.push(batch.renew(b, t0, TTL), batch.renew(stranger, t0, TTL))
    expect(store.sent, 'a renewal went before its window closed').toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(await Promise.all(answers)).toEqual([true, true, false])
    expect(store.sent).toEqual([{ kind: 'renewMany', leases: ['net-a', 'net-b', 'net-c'] }])
  })

  it('sends a renewal alone as a plain renew, and keeps different ttls apart', async () => {
    const [a, b] = [await held('net-a'), await held('net-b', 2 * TTL)]
    const answers = Promise.all([batch.renew(a, t0, TTL), batch.renew(b, t0, 2 * TTL)])
    await vi.advanceTimersByTimeAsync(renewalWindowMs(2 * TTL))
    expect(await answers).toEqual([true, true])
    expect(store.sent).toEqual([
      { kind: 'renew', leases: ['net-a'] },
      { kind: 'renew', leases: ['net-b'] },
    ])
  })

  it('writes the batch’s latest now, so no caller’s lease expires sooner than its own renewal would make it', async () => {
    const [a, b] = [await held('net-a'), await held('net-b')]
    const answers = Promise.all([
      batch.renew(a, new Date(t0.getTime() + 100), TTL),
      batch.renew(b, new Date(t0.getTime() + 110), TTL),
    ])
    await vi.advanceTimersByTimeAsync(WINDOW)
    await answers
    for (const name of ['net-a', 'net-b'])
      expect((await store.get(name))?.expiresAt).toEqual(new Date(t0.getTime() + 110 + TTL))
  })

  it('lets a renewal whose signal aborts while it waits leave at once, and sends the others', async () => {
    const [a, b] = [await held('net-a'), await held('net-b')]
    const stop = new AbortController()
    const leaving = batch.renew(a, t0, TTL, { signal: stop.signal })
    const staying = batch.renew(b, t0, TTL)
    stop.abort(new Error('the term ended'))
    await expect(leaving).rejects.toMatchObject({ code: 'LEASE_CALL_ABORTED' })
    await vi.advanceTimersByTimeAsync(WINDOW)
    expect(await staying).toBe(true)
    expect(store.sent, 'the aborted renewal was sent').toEqual([{ kind: 'renew', leases: ['net-b'] }])
  })

  it('rejects every renewal of a batch the store did not answer, and a bad grant alone before it joins', async () => {
    const [a, b] = [await held('net-a'), await held('net-b')]
    await expect(batch.renew({ ...a, token: '' }, t0, TTL)).rejects.toMatchObject({
      code: 'LEASE_INVALID_ARGUMENT',
    })
    store.failNext = true
    const answers = [batch.renew(a, t0, TTL), batch.renew(b, t0, TTL)]
    for (const answer of answers) answer.catch(() => undefined)
    await vi.advanceTimersByTimeAsync(WINDOW)
    for (const answer of answers) await expect(answer).rejects.toThrow('the store did not answer')
    expect(store.sent).toEqual([{ kind: 'renewMany', leases: ['net-a', 'net-b'] }])
  })

  it('sends the reads that may wait, asked within their wait, in one getMany; a read that may not goes at once', async () => {
    await held('net-a')
    const reads = [batch.get('net-a', { gatherMs: WINDOW }), batch.get('never-held', { gatherMs: WINDOW })]
    expect(await batch.get('net-a'), 'a read without gatherMs waited').toMatchObject({ owner: 'alpha' })
    expect(store.sent, 'a read that may wait went before its wait ended').toEqual([
      { kind: 'get', leases: ['net-a'] },
    ])
    await vi.advanceTimersByTimeAsync(WINDOW)
    const [a, none] = await Promise.all(reads)
    expect(a?.owner, 'a gathered read got another lease’s answer').toBe('alpha')
    expect(none).toBeUndefined()
    expect(store.sent.slice(1)).toEqual([{ kind: 'getMany', leases: ['net-a', 'never-held'] }])
  })

  it('lets a read whose signal aborts while it waits leave at once', async () => {
    const stop = new AbortController()
    const leaving = batch.get('net-a', { gatherMs: WINDOW, signal: stop.signal })
    const staying = batch.get('net-b', { gatherMs: WINDOW })
    stop.abort(new Error('the campaign stopped'))
    await expect(leaving).rejects.toMatchObject({ code: 'LEASE_CALL_ABORTED' })
    await vi.advanceTimersByTimeAsync(WINDOW)
    expect(await staying).toBeUndefined()
    expect(store.sent, 'the aborted read was sent').toEqual([{ kind: 'get', leases: ['net-b'] }])
  })
})

describe('terms of one ttl on one replica', () => {
  it('renew at the same instants whenever each was granted, so a round of one group’s renewals is one renewMany', async () => {
    const stop = new AbortController()
    // Three names of one renewal group (a hash of the name picks it: see term.ts).
    const group = (name: string) => renewalPhaseMs(name, TTL / 3)
    const names = Array.from({ length: 200 }, (_, i) => `net-${i}`)
      .filter((name) => group(name) === group('net-0'))
      .slice(0, 3)
    for (const [i, name] of names.entries()) {
      // Granted 0.2, 0.45 and 0.7 s apart: on their own grants' phase, they would renew in three calls.
      await vi.advanceTimersByTimeAsync(200 + 250 * i)
      void run(
        batch,
        { name, owner: 'alpha', ttlMs: TTL, signal: stop.signal },
        (signal) => new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
      )
    }
    await vi.advanceTimersByTimeAsync(2 * TTL)
    const rounds = store.sent.filter((call) => call.kind === 'renew' || call.kind === 'renewMany')
    expect(rounds.length, 'the terms renewed in more than one call per round').toBeLessThanOrEqual(
      1 + (2 * TTL) / (TTL / 3),
    )
    expect(names).toHaveLength(3)
    expect(rounds.at(-1), 'the last round did not renew every term together').toEqual({
      kind: 'renewMany',
      leases: names,
    })
    stop.abort()
  })

  it('of different groups renew at different phases, so a replica’s round is at most one call a group', () => {
    const phases = new Set(Array.from({ length: 500 }, (_, i) => renewalPhaseMs(`net-${i}`, 1000)))
    expect(phases.size, 'a thousand leases did not spread over the groups').toBe(RENEWAL_GROUPS)
    for (const phase of phases) expect(phase % (1000 / RENEWAL_GROUPS)).toBe(0)
  })
})
