/**
 * lease.run: campaign for a named lease, serve terms while it is held, step down fail-closed.
 *
 * What it is: the election that makes a periodic, idempotent net cost one replica's worth of work. A
 * holder keeps its lease term after term while healthy (sticky), renews every ttl/3, and ends its term
 * before the store could hand the lease to a successor (see term.ts). Every term carries the store's fence
 * and token (TermInfo), and every release names its own term, so a late or resent release of an earlier
 * term never ends a later one. Each transition is a typed TermEvent (`onEvent`); the log lines are one
 * subscriber of those (`log`).
 *
 * What it is not: mutual exclusion. A holder whose event loop stalls past its deadline, or whose clock is
 * skewed by more than ttl/6, can overlap its successor for the length of the stall. Work that must never
 * run twice claims its item (the run ledger claims each schedule slot) or writes the fence with its results.
 */
import { randomUUID } from 'node:crypto'
import { type Answer, boundedCall } from './bounded-call.js'
import { termCallBoundMs } from './call-bound.js'
import { type Clock, MAX_TIMER_MS, systemClock } from './clock.js'
import {
  type LeaseGrant,
  LeaseLostError,
  type LeaseStore,
  MAX_LEASE_NAME_LENGTH,
  MAX_OWNER_LENGTH,
} from './store.js'
import { Term, type TermEnd, type TermInfo } from './term.js'
import type { TermEvent } from './term-event.js'
import type { AcquireTurnTaker } from './acquire-turns.js'
import { type NextDue, untilDueLookMs } from './due-look.js'
import type { Logger } from '../logger.js'
import { renewalWindowMs } from './renewal-batch.js'
import { termEventLog } from './term-event-log.js'
import { waitFor } from './wait.js'

export type { TermEnd, TermInfo } from './term.js'

export interface RunSpec {
  /** The lease name (see leases.ts: one registry, so two nets never share one). */
  name: string
  /** This candidate's identity: host name plus a random suffix, unique per process. */
  owner: string
  /** How long a grant or renewal holds the lease, in ms (≥ 1, ≤ 2³¹−1). */
  ttlMs: number
  /**
   * Pause between campaign attempts; ttlMs/3 by default, also when ≤ 0, and never under ttlMs/30 (a
   * smaller pause would campaign in a hot loop). Jittered by up to +20%. A standby that read the holder's
   * expiry and finds it nearer than the pause tries at that expiry instead (plus up to a fifth of a retry).
   */
  retryMs?: number
  /** Ends the campaign: the term (if any) is aborted, its work awaited, the lease released. */
  signal?: AbortSignal
  /**
   * The term events as log lines (through `termEventLog`), in pino's `(fields, msg)` shape: a pino logger
   * fits as is. A throwing log is ignored.
   */
  log?: Logger
  /** Every term event, typed (metrics subscribe here). A throwing subscriber is ignored. */
  onEvent?: (event: TermEvent) => void
  /**
   * Called each time an acquire or a renewal settles, answered or not (a store that does not answer
   * still counts: the campaign moved on). A campaign that stops calling it for several retry periods is
   * stuck — a heartbeat for liveness checks. A throwing hook is ignored.
   */
  onAttempt?: (operation: CampaignAttempt) => void
  /**
   * Asked before every acquire: `false` holds this attempt back (nothing is sent; `onAttempt('withheld')`
   * is called, and the campaign tries again after the retry pause). The worker's clock guard and fair
   * share decide here. Never asked during a term: it does not end one. A throwing gate withholds.
   */
  mayCampaign?: () => boolean
  /**
   * Turns shared by the campaigns of one replica (acquire-turns.ts): each acquire, and the release of one
   * that got no answer, waits for a turn before it is sent, so a replica campaigning for many leases does
   * not queue them all ahead of its terms' renewals. None by default: every acquire is sent at once.
   */
  acquireTurns?: AcquireTurnTaker
  /**
   * The work's next due instant after a given one (the worker: its net's next slot). A standby also reads
   * the lease shortly before each (due-look.ts), whatever expiry it last read, so a lease a clean stop
   * released is taken before the work falls due, not at that expiry. None by default: a standby reads at
   * the expiry it saw or its retry. A function that throws is taken as "no next instant".
   */
  nextDue?: NextDue
  /** Time source; the process clock by default. */
  clock?: Clock
  /** Random source in [0, 1) for the retry jitter; Math.random by default. */
  random?: () => number
}

/**
 * What `onAttempt` reports: a store call settled — an acquire, a renewal, or the read that found the
 * holder seen before still holding (no acquire sent) — or an attempt the gate (`mayCampaign`) held back.
 */
export type CampaignAttempt = 'acquire' | 'renew' | 'read' | 'withheld'

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
const JITTER = 0.2
const MIN_RETRY_SHARE = 1 / 30

/**
 * Campaigns for `spec.name` until `spec.signal` aborts, running `work(termSignal, term)` during each term.
 *
 * Resolves once the signal aborted, the term (if any) ended, its work settled and its release finished.
 * Rejects only for an unusable spec (no store, blank name or owner, ttl or retry out of range). A throwing
 * `work`, log or event subscriber is reported (or ignored) and the campaign goes on; a store that cannot
 * answer elects nobody; an attempt that throws anything else is reported (`attempt-failed`) and followed
 * by the next one.
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
  subscribers: Array<(event: TermEvent) => void>
  onAttempt: (operation: CampaignAttempt) => void
  mayCampaign: () => boolean
  acquireTurns: AcquireTurnTaker
  nextDue: NextDue | undefined
  clock: Clock
  random: () => number
}

/** Every caller's turn at once: a campaign given no turns sends its acquire when it is ready. */
const EVERY_TURN: AcquireTurnTaker = { take: () => Promise.resolve(() => undefined) }

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
      `ttlMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${givenMs(ttlMs)}`,
    )
  }
  return {
    name,
    owner,
    ttlMs,
    retryMs: checkRetry(name, ttlMs, spec.retryMs),
    signal: spec.signal ?? new AbortController().signal,
    subscribers: [spec.onEvent, spec.log && termEventLog(spec.log)].filter((s) => s !== undefined),
    onAttempt: ignoringThrows(spec.onAttempt),
    mayCampaign: gateOf(spec.mayCampaign),
    acquireTurns: spec.acquireTurns ?? EVERY_TURN,
    nextDue: spec.nextDue,
    clock: spec.clock ?? systemClock,
    random: spec.random ?? Math.random,
  }
}

/** The hook, or nothing; a hook that throws must not end the campaign. */
function ignoringThrows(hook: RunSpec['onAttempt']): CheckedSpec['onAttempt'] {
  return (operation) => {
    try {
      hook?.(operation)
    } catch {
      // A liveness hook that throws is the hook's problem, never the campaign's.
    }
  }
}

/** The gate, or always-yes; a gate that throws withholds (fail-closed: the gate exists to hold back). */
function gateOf(gate: RunSpec['mayCampaign']): CheckedSpec['mayCampaign'] {
  if (!gate) return () => true
  return () => {
    try {
      return gate() === true
    } catch {
      return false
    }
  }
}

/** A retry ≤ 0 (or none) means the default ttl/3; any retry is floored at ttl/30. */
function checkRetry(name: string, ttlMs: number, retry: unknown): number {
  const retryMs =
    retry === undefined || (typeof retry === 'number' && retry <= 0) ? termCallBoundMs(ttlMs) : retry
  if (typeof retryMs !== 'number' || !Number.isFinite(retryMs) || retryMs * (1 + JITTER) > MAX_TIMER_MS) {
    throw new LeaseSpecError(
      name,
      `retryMs must be a number of milliseconds up to ${Math.floor(MAX_TIMER_MS / (1 + JITTER))} (≤ 0 for the default ttl/3), got ${givenMs(retry)}`,
    )
  }
  return Math.max(retryMs, ttlMs * MIN_RETRY_SHARE)
}

/**
 * A milliseconds field's value as given: a string quoted and named as one, as `ttlMs: '6s'` (the worker's
 * variables take durations with a unit) read "got 6s", as if 6s were a number out of range.
 */
function givenMs(value: unknown): string {
  return typeof value === 'string'
    ? `the string ${JSON.stringify(value)} (write the number of milliseconds, e.g. 6000 for 6 s)`
    : String(value)
}

/** The holder this candidate last saw while waiting, to say so once per term. */
interface SeenHolder {
  holder: string
  fence: number
  expiresAtMs: number
}

class Campaign {
  readonly #store: LeaseStore
  readonly #spec: CheckedSpec
  readonly #work: (term: AbortSignal, info: TermInfo) => unknown
  /** Wall-clock start of the current store outage, when one is going on. */
  #failingSince: number | undefined
  #seen: SeenHolder | undefined

  constructor(store: LeaseStore, spec: CheckedSpec, work: (term: AbortSignal, info: TermInfo) => unknown) {
    this.#store = store
    this.#spec = spec
    this.#work = work
  }

  async run(): Promise<void> {
    const { signal, clock } = this.#spec
    while (!signal.aborted) {
      await this.#attemptOrReport()
      if (signal.aborted) break
      await waitFor(this.#pauseMs(), signal, clock)
    }
  }

  /**
   * The pause before the next attempt: the retry, jittered by up to +20%; but when the holder last seen
   * has its term expire sooner, until that expiry and a jitter after it (never longer than the retry), so a
   * dead holder's lease is tried as it frees, not up to a retry later, and standbys that saw the same
   * expiry do not all send their acquire in the same millisecond. A live holder's expiry is always about a
   * TTL away (it renews every ttl/3), so while it lives this changes nothing: no call is added. With
   * `nextDue`, the pause also ends shortly before the work's next due instant: one read per instant.
   */
  #pauseMs(): number {
    const { retryMs, random, clock, nextDue } = this.#spec
    const nowMs = clock.now().getTime()
    const pause = this.#expiryPauseMs(nowMs, retryMs * (1 + JITTER * random()))
    // A clean stop's release is then seen before the slot it would otherwise delay (due-look.ts).
    const look = untilDueLookMs(nextDue, nowMs, retryMs)
    return look !== undefined && look < pause ? look : pause
  }

  #expiryPauseMs(nowMs: number, retry: number): number {
    const untilExpiry = (this.#seen?.expiresAtMs ?? Number.NaN) - nowMs
    if (!(untilExpiry > 0 && untilExpiry < retry)) return retry
    return Math.min(retry, untilExpiry + 1 + this.#spec.retryMs * JITTER * this.#spec.random())
  }

  /**
   * One attempt, never ending the campaign: whatever it throws (a bug, a store answering outside its
   * contract) is reported as `attempt-failed`, and the loop tries again after the retry pause.
   */
  async #attemptOrReport(): Promise<void> {
    try {
      await this.#attempt()
    } catch (error) {
      this.#emit({ type: 'attempt-failed', error })
    }
  }

  /** One campaign attempt: acquire, then serve the term or note who holds the lease. */
  async #attempt(): Promise<void> {
    if (!this.#spec.mayCampaign()) return this.#spec.onAttempt('withheld')
    if (this.#seen && (await this.#stillHeld())) return
    const sent = await this.#acquireInTurn()
    if (!sent) return
    this.#noteAnswer()
    if (!sent.grant) return this.#noteWaiting()
    this.#seen = undefined
    await this.#serve(sent.grant, sent.sentAt)
  }

  /**
   * The acquire, sent in this replica's turn (`acquireTurns`), and its answer with the instant it was sent.
   * Undefined when the campaign stopped while it waited for the turn, or when the acquire got no answer:
   * then its term is released within the same turn, since the grant may have landed without its answer.
   */
  async #acquireInTurn(): Promise<{ grant: LeaseGrant | false; sentAt: number } | undefined> {
    const { clock, ttlMs, signal, name, owner, acquireTurns } = this.#spec
    let endTurn: () => void
    try {
      endTurn = await acquireTurns.take(signal)
    } catch (error) {
      if (signal.aborted) return undefined
      throw error
    }
    try {
      const sentAt = clock.monotonic()
      // Drawn here, so a grant whose answer was lost can still be released by its own term's identity.
      const token = randomUUID()
      const answer = await this.#call(termCallBoundMs(ttlMs), signal, (s) =>
        this.#store.acquire(name, owner, clock.now(), ttlMs, { signal: s, token }),
      )
      this.#spec.onAttempt('acquire')
      if (answer.ok) return { grant: answer.value, sentAt }
      if (!signal.aborted) this.#noteFailure('acquire', answer.error)
      // Given up so a deaf candidate holds nothing. Landing late, this release finds a later term's token
      // and changes nothing.
      await this.#call(termCallBoundMs(ttlMs), undefined, (s) =>
        this.#store.release({ name, owner, token }, { signal: s }),
      )
      return undefined
    } finally {
      endTurn()
    }
  }

  /** Serves one term: starts it, runs the work until the term ends, then releases its lease. */
  async #serve(grant: LeaseGrant, sentAt: number): Promise<void> {
    const { clock, ttlMs, signal } = this.#spec
    const term = new Term({
      clock,
      ttlMs,
      grant,
      grantSentAt: sentAt,
      renew: (ms) =>
        this.#call(ms, undefined, (bound) => this.#store.renew(grant, clock.now(), ttlMs, { signal: bound })),
      onRenewal: (answer, left) => this.#noteRenewal(grant, answer, left),
      onEnd: (why) => this.#noteEnd(grant, why),
    })
    if (signal.aborted) term.finish('stopped')
    else if (term.begin())
      this.#emit({ type: 'elected', fence: grant.fence, previousHolder: grant.previousHolder })
    const onStop = () => term.finish('stopped')
    signal.addEventListener('abort', onStop, { once: true })
    try {
      if (!term.ended) await this.#runWork(term)
    } finally {
      signal.removeEventListener('abort', onStop)
    }
    await term.renewalSettled()
    await this.#release(grant)
  }

  async #runWork(term: Term): Promise<void> {
    try {
      await this.#work(term.signal, term.info)
    } catch (error) {
      this.#emit({ type: 'work-failed', fence: term.info.fence, error })
    }
    term.finish('returned')
  }

  async #release(grant: LeaseGrant): Promise<void> {
    const answer = await this.#call(RELEASE_BOUND_MS, undefined, (s) =>
      this.#store.release(grant, { signal: s }),
    )
    const { fence } = grant
    if (answer.ok) this.#emit({ type: 'released', fence })
    else if (answer.error instanceof LeaseLostError)
      this.#emit({ type: 'release-lost', fence, holder: answer.error.holder })
    else this.#emit({ type: 'release-failed', fence, error: answer.error })
  }

  /**
   * Reads the lease before acquiring it from a holder seen before (issue #39): while that holder renews,
   * the read answers with its new expiry — one call where a refused acquire and a read were two — and
   * nothing is sent; only a term that stands no longer (expired, released, gone) is acquired. Resolves
   * whether another owner's term stands. A read that fails leaves the acquire to decide. The read may wait
   * a renewal window for the replica's other standbys' reads (one `getMany` through renewal-batch.ts).
   */
  async #stillHeld(): Promise<boolean> {
    const { clock, ttlMs, signal, name, owner } = this.#spec
    const answer = await this.#call(termCallBoundMs(ttlMs), signal, (s) =>
      this.#store.get(name, { signal: s, gatherMs: renewalWindowMs(ttlMs) }),
    )
    this.#spec.onAttempt('read')
    const record = answer.ok ? answer.value : undefined
    const expiresAt = record?.expiresAt
    if (!record?.owner || record.owner === owner || !(expiresAt instanceof Date)) return false
    if (expiresAt.getTime() <= clock.now().getTime()) return false
    this.#noteAnswer()
    this.#noteHolder(record.owner, record.fence, expiresAt)
    return true
  }

  /**
   * Says who holds the lease, once per holder's term. Reads the lease only when the holder is unknown or
   * the expiry last seen has passed, so a waiting candidate adds at most one read per ttl.
   */
  async #noteWaiting(): Promise<void> {
    const { clock, ttlMs, signal, name, owner } = this.#spec
    const seen = this.#seen
    if (seen && seen.expiresAtMs > clock.now().getTime()) return
    const answer = await this.#call(termCallBoundMs(ttlMs), signal, (s) =>
      this.#store.get(name, { signal: s, gatherMs: renewalWindowMs(ttlMs) }),
    )
    const record = answer.ok ? answer.value : undefined
    // A lease without a usable expiry is free (store.ts), and acquire would have taken it: nothing to say.
    if (!record?.owner || !(record.expiresAt instanceof Date) || record.owner === owner) return
    this.#noteHolder(record.owner, record.fence, record.expiresAt)
  }

  /** The holder read: kept for the next pause and read, and said (`waiting`) once per holder's term. */
  #noteHolder(holder: string, fence: number, expiresAt: Date): void {
    const seen = this.#seen
    this.#seen = { holder, fence, expiresAtMs: expiresAt.getTime() }
    if (seen?.holder === holder && seen.fence === fence) return
    this.#emit({ type: 'waiting', holder, fence, expiresAt })
  }

  #noteRenewal(grant: LeaseGrant, answer: Answer<boolean>, stepDownInMs: number): void {
    this.#spec.onAttempt('renew')
    if (answer.ok) {
      this.#noteAnswer()
      return
    }
    this.#noteFailure('renew', answer.error, stepDownInMs)
    this.#emit({ type: 'renew-failed', fence: grant.fence, error: answer.error, stepDownInMs })
  }

  #noteEnd(grant: LeaseGrant, why: TermEnd): void {
    if (why === 'lost') this.#emit({ type: 'lost', fence: grant.fence })
    if (why === 'stepped-down') this.#emit({ type: 'stepped-down', fence: grant.fence })
  }

  #noteFailure(operation: 'acquire' | 'renew', error: unknown, stepDownInMs?: number): void {
    if (this.#failingSince !== undefined) return
    this.#failingSince = this.#spec.clock.now().getTime()
    const holding = stepDownInMs !== undefined
    this.#emit({ type: 'store-failing', operation, error, holding, ...(holding ? { stepDownInMs } : {}) })
  }

  #noteAnswer(): void {
    if (this.#failingSince === undefined) return
    const outageMs = Math.max(0, this.#spec.clock.now().getTime() - this.#failingSince)
    this.#failingSince = undefined
    this.#emit({ type: 'store-recovered', outageMs })
  }

  /** Hands an event to every subscriber; one that throws is ignored, so it cannot end the campaign. */
  #emit(fields: DistributiveOmit<TermEvent, 'lease' | 'owner' | 'ttlMs'>): void {
    const { name, owner, ttlMs, subscribers } = this.#spec
    const event = { ...fields, lease: name, owner, ttlMs } as TermEvent
    for (const subscriber of subscribers) {
      try {
        subscriber(event)
      } catch {
        // A log sink or metrics hook that throws must not crash the process or stop the campaign.
      }
    }
  }

  #call<T>(
    ms: number,
    parent: AbortSignal | undefined,
    call: (s: AbortSignal) => Promise<T>,
  ): Promise<Answer<T>> {
    return boundedCall(this.#spec.clock, ms, parent, call)
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
