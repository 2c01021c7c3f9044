/**
 * A stopping holder sends its release only once its renewal in flight has been answered. On a store that
 * applies an update read-then-write (FerretDB), a renewal read before the release and written after it
 * holds the lease again for a process that is gone, and its successor waits out the TTL: the clean stop
 * no longer hands over. Through lease.run on the real memory store, whose renewals the test holds in
 * flight as a slow server would (the request is answered later whatever the caller gave up on).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type LeaseCallOptions, type LeaseTerm, MemoryStore, run } from '../../src/index.js'
import { quietLog } from '../support/log-capture.js'

const TTL = 3000
/** How long each renewal is with the store before it is answered. */
const RENEWAL_MS = 200

/** The real memory store, with its renewals answered RENEWAL_MS late and every call's moment recorded. */
class SlowRenewals extends MemoryStore {
  readonly events: string[] = []

  override async renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions) {
    this.events.push('renewal sent')
    await new Promise((resolve) => setTimeout(resolve, RENEWAL_MS))
    const renewed = await super.renew(grant, now, ttlMs, { ...options, signal: undefined })
    this.events.push('renewal answered')
    return renewed
  }

  override async release(grant: LeaseTerm, options?: LeaseCallOptions) {
    this.events.push('release sent')
    return super.release(grant, options)
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-09-30T15:00:00.000Z'))
})
afterEach(() => {
  vi.useRealTimers()
})

describe('a holder stopped while a renewal is in flight', () => {
  it('sends its release after the renewal’s answer, and leaves the lease free', async () => {
    const store = new SlowRenewals()
    const stop = new AbortController()
    const spec = { name: 'net-a', owner: 'alpha', ttlMs: TTL, retryMs: 1000, signal: stop.signal }
    const done = run(
      store,
      { ...spec, log: quietLog() },
      (signal) => new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
    )
    for (let i = 0; i < 100 && !store.events.includes('renewal sent'); i++)
      await vi.advanceTimersByTimeAsync(50)
    expect(store.events, 'the holder never renewed: the test stops nothing in flight').toContain(
      'renewal sent',
    )
    stop.abort()
    await vi.advanceTimersByTimeAsync(RENEWAL_MS * 2)
    await done
    const sent = store.events.lastIndexOf('renewal sent')
    expect(
      store.events.slice(sent),
      'the release went while the renewal could still land after it: on FerretDB the lease stays held',
    ).toEqual(['renewal sent', 'renewal answered', 'release sent'])
    const lease = await store.get('net-a')
    expect(lease?.owner, 'the stopped holder still holds the lease').toBeUndefined()
  })
})
