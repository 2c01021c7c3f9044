/**
 * A lease store whose renewals wait a moment for others of the same ttl, then go to the store together in
 * one `renewMany` call: a replica that holds many leases renews them in a few round trips, not one each
 * (issue #39: at 1,000 nets, one renewal per net was a fifth of the calls that saturated the stand-in).
 * Reads that say they may wait (`get` with `gatherMs`: a standby's read of a live holder's lease) go the
 * same way, gathered into one `getMany`.
 *
 * What it is not: a change to what a renewal means. Each caller gets its own answer. A term counts its
 * renewal from the moment it asked (term.ts), so the wait — at most RENEWAL_WINDOW of the ttl, and never
 * more than a second — comes out of that renewal's own ttl/3 bound; it never lengthens a hold. The stored
 * expiry is the batch's latest `now` + ttl, no earlier than any caller's own would have been. A renewal
 * or read whose signal aborts while it waits leaves the batch and rejects at once. Every other call passes
 * straight through, and a store without `renewMany` is used as it is (`batchRenewals`); one without
 * `getMany` reads each lease alone.
 */
import type { Clock } from './clock.js'
import {
  type AcquireOptions,
  checkNames,
  checkNotAborted,
  checkRenewal,
  type LeaseCallOptions,
  type LeaseErrorContext,
  type LeaseExpiry,
  type LeaseGrant,
  type LeaseReadOptions,
  type LeaseRecord,
  type LeaseStore,
  type LeaseTerm,
} from './store.js'

const COMPONENT = 'renewal-batch'

/** The share of a ttl a renewal may wait for others: 1 % (30 ms of a 3 s ttl, 1.8 s of 180 s, capped). */
export const RENEWAL_WINDOW = 1 / 100
/** The longest a renewal waits for others, whatever the ttl. */
export const RENEWAL_WINDOW_CAP_MS = 1_000

/** How long a renewal of a lease of `ttlMs` waits for others before its batch goes. */
export function renewalWindowMs(ttlMs: number): number {
  return Math.min(Math.floor(ttlMs * RENEWAL_WINDOW), RENEWAL_WINDOW_CAP_MS)
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown }

interface Waiting {
  grant: LeaseTerm
  now: Date
  settle(answer: Settled<boolean>): void
}

interface WaitingRead {
  name: string
  settle(answer: Settled<LeaseRecord | undefined>): void
}

/**
 * Adds the call `make` builds to `batch`, answered when the batch is sent (its `settle`), or rejected at
 * once when `signal` aborts first, leaving the batch without it.
 */
function joinBatch<T, W extends { settle(answer: Settled<T>): void }>(
  batch: Set<W>,
  signal: AbortSignal | undefined,
  context: LeaseErrorContext,
  make: (settle: (answer: Settled<T>) => void) => W,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      batch.delete(waiting)
      try {
        checkNotAborted(context, signal)
      } catch (error) {
        reject(error)
      }
    }
    const waiting = make((answer) => {
      signal?.removeEventListener('abort', onAbort)
      if (answer.ok) resolve(answer.value)
      else reject(answer.error)
    })
    batch.add(waiting)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** `store` with its renewals batched, or `store` itself when it cannot renew many in one call. */
export function batchRenewals(store: LeaseStore, clock: Clock): LeaseStore {
  return store.renewMany ? new RenewalBatch(store, clock) : store
}

/** See the module's doc. */
export class RenewalBatch implements LeaseStore {
  readonly #store: LeaseStore
  readonly #clock: Clock
  /** The renewals being gathered for each ttl (their batch goes when its window closes). */
  readonly #open = new Map<number, Set<Waiting>>()
  /** The reads being gathered for each wait (`gatherMs`): their `getMany` goes when the wait ends. */
  readonly #reads = new Map<number, Set<WaitingRead>>()
  /** The store's own, when it has them (optional in the contract, so present here only then). */
  readonly vacant?: (names: readonly string[], now: Date, options?: LeaseCallOptions) => Promise<string[]>
  readonly expiries?: (names: readonly string[], options?: LeaseCallOptions) => Promise<LeaseExpiry[]>
  readonly notify?: (name: string, options?: LeaseCallOptions) => Promise<void>
  readonly onNotice?: (listener: (name: string) => void) => () => void

  constructor(store: LeaseStore, clock: Clock) {
    if (!store.renewMany) throw new TypeError('RenewalBatch: the store has no renewMany')
    this.#store = store
    this.#clock = clock
    if (store.vacant) this.vacant = store.vacant.bind(store)
    if (store.expiries) this.expiries = store.expiries.bind(store)
    if (store.notify) this.notify = store.notify.bind(store)
    if (store.onNotice) this.onNotice = store.onNotice.bind(store)
  }

  acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: AcquireOptions,
  ): Promise<LeaseGrant | false> {
    return this.#store.acquire(name, owner, now, ttlMs, options)
  }

  renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean> {
    const signal = options?.signal
    const context = {
      component: COMPONENT,
      operation: 'renew' as const,
      lease: grant.name,
      owner: grant.owner,
    }
    try {
      // A bad call fails alone, before it joins a batch whose other renewals it would fail with it.
      checkRenewal(COMPONENT, grant, now, ttlMs)
      checkNotAborted(context, signal)
    } catch (error) {
      return Promise.reject(error)
    }
    return joinBatch<boolean, Waiting>(this.#batchFor(ttlMs), signal, context, (settle) => ({
      grant,
      now,
      settle,
    }))
  }

  renewMany(
    grants: readonly LeaseTerm[],
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean[]> {
    return this.#store.renewMany!(grants, now, ttlMs, options)
  }

  getMany(names: readonly string[], options?: LeaseCallOptions): Promise<Array<LeaseRecord | undefined>> {
    return this.#store.getMany
      ? this.#store.getMany(names, options)
      : Promise.all(names.map((n) => this.#store.get(n, options)))
  }

  release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void> {
    return this.#store.release(grant, options)
  }

  list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    return this.#store.list(options)
  }

  get(name: string, options?: LeaseReadOptions): Promise<LeaseRecord | undefined> {
    const gatherMs = Math.floor(options?.gatherMs ?? 0)
    if (!this.#store.getMany || !(gatherMs > 0)) return this.#store.get(name, options)
    const signal = options?.signal
    const context = { component: COMPONENT, operation: 'get' as const, lease: name }
    try {
      checkNames(COMPONENT, 'get', [name])
      checkNotAborted(context, signal)
    } catch (error) {
      return Promise.reject(error)
    }
    return joinBatch<LeaseRecord | undefined, WaitingRead>(
      this.#readsFor(gatherMs),
      signal,
      context,
      (settle) => ({
        name,
        settle,
      }),
    )
  }

  #readsFor(gatherMs: number): Set<WaitingRead> {
    let reads = this.#reads.get(gatherMs)
    if (!reads) {
      reads = new Set<WaitingRead>()
      this.#reads.set(gatherMs, reads)
      this.#clock.setTimeout(() => void this.#sendReads(gatherMs), gatherMs)
    }
    return reads
  }

  /** Sends the reads gathered for one wait in one `getMany` (one alone goes as a plain get). */
  async #sendReads(gatherMs: number): Promise<void> {
    const waiting = [...(this.#reads.get(gatherMs) ?? [])]
    this.#reads.delete(gatherMs)
    if (waiting.length === 0) return
    try {
      const answers =
        waiting.length === 1
          ? [await this.#store.get(waiting[0]!.name)]
          : await this.#store.getMany!(waiting.map((w) => w.name))
      for (const [i, w] of waiting.entries()) w.settle({ ok: true, value: answers[i] })
    } catch (error) {
      for (const w of waiting) w.settle({ ok: false, error })
    }
  }

  #batchFor(ttlMs: number): Set<Waiting> {
    let batch = this.#open.get(ttlMs)
    if (!batch) {
      batch = new Set<Waiting>()
      this.#open.set(ttlMs, batch)
      this.#clock.setTimeout(() => void this.#send(ttlMs), renewalWindowMs(ttlMs))
    }
    return batch
  }

  /** Sends a ttl's gathered renewals in one call (one alone goes as a plain renew) and answers each. */
  async #send(ttlMs: number): Promise<void> {
    const waiting = [...(this.#open.get(ttlMs) ?? [])]
    this.#open.delete(ttlMs)
    if (waiting.length === 0) return
    // The latest `now`: each caller's expiry is then no earlier than its own renewal would have written.
    const now = new Date(Math.max(...waiting.map((w) => w.now.getTime())))
    try {
      const answers =
        waiting.length === 1
          ? [await this.#store.renew(waiting[0]!.grant, now, ttlMs)]
          : await this.#store.renewMany!(
              waiting.map((w) => w.grant),
              now,
              ttlMs,
            )
      for (const [i, w] of waiting.entries()) w.settle({ ok: true, value: answers[i] === true })
    } catch (error) {
      for (const w of waiting) w.settle({ ok: false, error })
    }
  }
}
