/**
 * lease.run: campaign for a named lease, serve terms while it is held, step down fail-closed.
 *
 * What it is: the election that makes a periodic, idempotent net cost one replica's worth of work. A
 * holder keeps its lease term after term while healthy (sticky), renews every ttl/3, and ends its term
 * before the store could hand the lease to a successor: at once when a renewal is refused, or when no
 * renewal it can prove has succeeded within ttl − ttl/6 of being sent.
 *
 * What it is not: mutual exclusion. A holder whose event loop stalls past its deadline, or whose clock is
 * skewed by more than ttl/6, can overlap its successor for the length of the stall. Work that must never
 * run twice needs a claim on the item itself.
 */
import { type Clock, MAX_TIMER_MS, systemClock, type TimerHandle } from './clock.js'
import { LeaseLostError, type LeaseStore, MAX_LEASE_NAME_LENGTH, MAX_OWNER_LENGTH } from './store.js'

/** Where run() reports term transitions; pino's logger fits (`info(obj, msg)` is also accepted). */
export interface LeaseLog {
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
}

export interface RunSpec {
  /** The lease name (see leases.ts: one registry, so two nets never share one). */
  name: string
  /** This candidate's identity: host name plus a random suffix, unique per process. */
  owner: string
  /** How long a grant or renewal holds the lease, in ms (≥ 1, ≤ 2³¹−1). */
  ttlMs: number
  /** Pause between campaign attempts; ttlMs/3 by default. Jittered by up to +20%. */
  retryMs?: number
  /** Ends the campaign: the term (if any) is aborted, its work awaited, the lease released. */
  signal?: AbortSignal
  log?: LeaseLog
  /** Time source; the process clock by default. */
  clock?: Clock
  /** Random source in [0, 1) for the retry jitter; Math.random by default. */
  random?: () => number
}

/** What a term's work can ask about the term, besides its abort signal. */
export interface TermInfo {
  /** The monotonic instant (clock.monotonic scale) at which the term steps down unless a renewal lands. */
  stepDownAt(): number
  /**
   * Whether the term is still live right now: not aborted and before its step-down instant. Checked
   * synchronously, so work about to start can refuse even when a blocked event loop kept the step-down
   * timer from firing.
   */
  live(): boolean
}

/** Why a term ended, as logged and counted. */
export type TermEnd = 'returned' | 'lost' | 'stepped-down' | 'stopped'

/** Thrown (as a rejection of run) for a spec it cannot campaign with. */
export class LeaseSpecError extends Error {
  override readonly name = 'LeaseSpecError'
  readonly code = 'LEASE_INVALID_SPEC'
  readonly component = 'lease.run'
  readonly lease: string | undefined

  constructor(lease: string | undefined, detail: string) {
    super(`lease.run${lease ? ` (lease "${lease}")` : ''}: ${detail}`)
    this.lease = lease
  }
}

const RELEASE_BOUND_MS = 5_000
/**
 * Node's timers run on a whole-millisecond loop clock: one can fire up to a millisecond before the
 * monotonic clock reached its delay, and none waits less than 1 ms. The step-down timer therefore aims this
 * far ahead of the deadline, and the term steps down once no more than this is left, so a term never
 * outlives its deadline — re-arming for a remainder under 1 ms would overshoot it by up to 1 ms.
 */
const TIMER_GRAIN_MS = 1
const JITTER = 0.2
const quietLog: LeaseLog = { info: () => {}, warn: () => {} }

/**
 * Campaigns for `spec.name` until `spec.signal` aborts, running `work(termSignal, term)` during each term.
 *
 * Resolves once the signal aborted, the term (if any) ended, its work settled and its release finished.
 * Rejects only for an unusable spec (no store, blank name or owner, ttl out of range). A throwing `work`
 * is logged and the campaign goes on; a store that cannot answer elects nobody.
 */
export async function run(
  store: LeaseStore,
  spec: RunSpec,
  work: (term: AbortSignal, info: TermInfo) => unknown,
): Promise<void> {
  const checked = checkSpec(store, spec)
  await new Campaign(store, checked, work).run()
}

interface CheckedSpec {
  name: string
  owner: string
  ttlMs: number
  retryMs: number
  signal: AbortSignal
  log: LeaseLog
  clock: Clock
  random: () => number
}

function checkSpec(store: LeaseStore, spec: RunSpec): CheckedSpec {
  const name = typeof spec?.name === 'string' ? spec.name.trim() : ''
  if (!store || typeof store.acquire !== 'function')
    throw new LeaseSpecError(name || undefined, 'a LeaseStore is required')
  if (!name || name.length > MAX_LEASE_NAME_LENGTH) {
    throw new LeaseSpecError(
      undefined,
      `name must be a non-blank string of at most ${MAX_LEASE_NAME_LENGTH} characters`,
    )
  }
  const owner = typeof spec.owner === 'string' ? spec.owner.trim() : ''
  if (!owner || owner.length > MAX_OWNER_LENGTH) {
    throw new LeaseSpecError(
      name,
      `owner must be a non-blank string of at most ${MAX_OWNER_LENGTH} characters`,
    )
  }
  const { ttlMs } = spec
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 1 || ttlMs > MAX_TIMER_MS) {
    throw new LeaseSpecError(
      name,
      `ttlMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${String(ttlMs)}`,
    )
  }
  const retryMs = spec.retryMs ?? ttlMs / 3
  if (
    typeof retryMs !== 'number' ||
    !Number.isFinite(retryMs) ||
    retryMs < 0 ||
    retryMs * (1 + JITTER) > MAX_TIMER_MS
  ) {
    throw new LeaseSpecError(
      name,
      `retryMs must be a number of milliseconds from 0 to ${Math.floor(MAX_TIMER_MS / (1 + JITTER))}, got ${String(retryMs)}`,
    )
  }
  return {
    name,
    owner,
    ttlMs,
    retryMs,
    signal: spec.signal ?? new AbortController().signal,
    log: spec.log ?? quietLog,
    clock: spec.clock ?? systemClock,
    random: spec.random ?? Math.random,
  }
}

type Answer<T> = { ok: true; value: T } | { ok: false; error: unknown }

class Campaign {
  readonly #store: LeaseStore
  readonly #spec: CheckedSpec
  readonly #work: (term: AbortSignal, info: TermInfo) => unknown
  readonly #fields: Record<string, unknown>
  #storeFailing = false

  constructor(store: LeaseStore, spec: CheckedSpec, work: (term: AbortSignal, info: TermInfo) => unknown) {
    this.#store = store
    this.#spec = spec
    this.#work = work
    this.#fields = { lease: spec.name, owner: spec.owner, ttlMs: spec.ttlMs }
  }

  async run(): Promise<void> {
    const { signal } = this.#spec
    while (!signal.aborted) {
      const sentAt = this.#spec.clock.monotonic()
      const answer = await this.#bounded(this.#spec.ttlMs / 3, signal, (s) =>
        this.#store.acquire(this.#spec.name, this.#spec.owner, this.#spec.clock.now(), this.#spec.ttlMs, {
          signal: s,
        }),
      )
      if (!answer.ok) {
        if (!signal.aborted) this.#noteFailure('acquire', answer.error)
        // The grant may have landed without its answer: give it up, so a deaf candidate holds nothing.
        await this.#bounded(this.#spec.ttlMs / 3, undefined, (s) =>
          this.#store.release(this.#spec.name, this.#spec.owner, { signal: s }),
        )
      } else {
        this.#noteAnswer()
        if (answer.value) await this.#serveTerm(sentAt)
      }
      if (signal.aborted) break
      await this.#sleep(this.#spec.retryMs * (1 + JITTER * this.#spec.random()), signal)
    }
  }

  async #serveTerm(grantSentAt: number): Promise<void> {
    const { clock, ttlMs, signal } = this.#spec
    // The store stamps truncate(now + ttl); measuring from the send with the same truncation means the
    // deadline falls before the stored expiry however long the answer took.
    const holdMs = Math.trunc(ttlMs) - ttlMs / 6
    const renewEveryMs = ttlMs / 3
    const term = new AbortController()
    let provenSentAt = grantSentAt
    let end: TermEnd | undefined
    const stepDownAt = () => provenSentAt + holdMs
    const info: TermInfo = {
      stepDownAt,
      live: () => !term.signal.aborted && clock.monotonic() < stepDownAt(),
    }
    const finish = (why: TermEnd) => {
      if (end) return
      end = why
      term.abort(new Error(`term of lease "${this.#spec.name}" ended: ${why}`))
      if (stepDownTimer) clock.clearTimeout(stepDownTimer)
      if (renewTimer) clock.clearTimeout(renewTimer)
      if (why === 'lost') this.#spec.log.warn('lost to another owner', { ...this.#fields, event: 'lost' })
      if (why === 'stepped-down') {
        this.#spec.log.warn('stepping down: no renewal it can prove', {
          ...this.#fields,
          event: 'stepping-down',
        })
      }
    }
    let stepDownTimer: TimerHandle | undefined
    const armStepDown = () => {
      if (stepDownTimer) clock.clearTimeout(stepDownTimer)
      stepDownTimer = undefined
      const left = stepDownAt() - clock.monotonic()
      // Abort before logging (finish does): a slow log sink must not delay the step-down.
      if (left <= TIMER_GRAIN_MS) return finish('stepped-down')
      stepDownTimer = clock.setTimeout(armStepDown, left - TIMER_GRAIN_MS)
    }
    let renewTimer: TimerHandle | undefined
    // Renewals keep a cadence of ttl/3 between sends, not between an answer and the next send: on a slow
    // store the latter stretches the gap between proven sends by a round trip each time, until a healthy
    // holder steps down while every call is still answered within its bound.
    let lastSentAt = grantSentAt
    const scheduleRenewal = () => {
      renewTimer = clock.setTimeout(
        () => void renewOnce(),
        Math.max(0, lastSentAt + renewEveryMs - clock.monotonic()),
      )
    }
    const renewOnce = async () => {
      if (end) return
      const sentAt = clock.monotonic()
      lastSentAt = sentAt
      const answer = await this.#bounded(renewEveryMs, term.signal, (s) =>
        this.#store.renew(this.#spec.name, this.#spec.owner, clock.now(), ttlMs, { signal: s }),
      )
      if (end) return
      if (!answer.ok) {
        this.#noteFailure('renew', answer.error)
      } else {
        this.#noteAnswer()
        if (!answer.value) return finish('lost')
        provenSentAt = Math.max(provenSentAt, sentAt)
        // An answer that arrives too late to keep the term (after a stall) ends it here.
        armStepDown()
        if (end) return
      }
      scheduleRenewal()
    }

    if (signal.aborted) {
      finish('stopped')
    } else if (stepDownAt() - clock.monotonic() <= TIMER_GRAIN_MS) {
      // The grant took so long to arrive that it cannot be proven any more.
      finish('stepped-down')
    } else {
      this.#spec.log.info('elected', { ...this.#fields, event: 'elected' })
      armStepDown()
      scheduleRenewal()
    }
    const onStop = () => finish('stopped')
    signal.addEventListener('abort', onStop, { once: true })
    try {
      if (!end) {
        try {
          await this.#work(term.signal, info)
        } catch (error) {
          this.#spec.log.warn('term work failed', { ...this.#fields, event: 'work-failed', err: error })
        }
        finish('returned')
      }
    } finally {
      signal.removeEventListener('abort', onStop)
    }
    await this.#release()
  }

  async #release(): Promise<void> {
    const answer = await this.#bounded(RELEASE_BOUND_MS, undefined, (s) =>
      this.#store.release(this.#spec.name, this.#spec.owner, { signal: s }),
    )
    if (answer.ok) {
      this.#spec.log.info('released', { ...this.#fields, event: 'released' })
    } else if (answer.error instanceof LeaseLostError) {
      this.#spec.log.info('had already lost it', {
        ...this.#fields,
        event: 'release-lost',
        holder: answer.error.holder,
      })
    } else {
      this.#spec.log.warn('could not release: a successor waits out the TTL', {
        ...this.#fields,
        event: 'release-failed',
        err: answer.error,
      })
    }
  }

  #noteFailure(operation: string, error: unknown): void {
    if (this.#storeFailing) return
    this.#storeFailing = true
    this.#spec.log.warn('lease store not answering: nobody is elected until it does', {
      ...this.#fields,
      event: 'store-failing',
      operation,
      err: error,
    })
  }

  #noteAnswer(): void {
    if (!this.#storeFailing) return
    this.#storeFailing = false
    this.#spec.log.info('lease store answering again', { ...this.#fields, event: 'store-recovered' })
  }

  /**
   * Calls the store with a signal that aborts after `ms` or when `parent` aborts, and races the call
   * against that signal, so a store that ignores it still cannot hold the campaign up.
   */
  async #bounded<T>(
    ms: number,
    parent: AbortSignal | undefined,
    call: (s: AbortSignal) => Promise<T>,
  ): Promise<Answer<T>> {
    const { clock } = this.#spec
    const bound = new AbortController()
    const timer = clock.setTimeout(() => bound.abort(new Error(`no answer within ${Math.round(ms)} ms`)), ms)
    const onParent = () => bound.abort(parent?.reason)
    parent?.addEventListener('abort', onParent, { once: true })
    if (parent?.aborted) onParent()
    try {
      const pending = Promise.resolve().then(() => call(bound.signal))
      pending.catch(() => undefined)
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(bound.signal.reason)
        if (bound.signal.aborted) fail()
        else bound.signal.addEventListener('abort', fail, { once: true })
      })
      aborted.catch(() => undefined)
      return { ok: true, value: await Promise.race([pending, aborted]) }
    } catch (error) {
      return { ok: false, error }
    } finally {
      clock.clearTimeout(timer)
      parent?.removeEventListener('abort', onParent)
    }
  }

  #sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve()
      const done = () => {
        this.#spec.clock.clearTimeout(timer)
        signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = this.#spec.clock.setTimeout(done, ms)
      signal.addEventListener('abort', done, { once: true })
    })
  }
}
