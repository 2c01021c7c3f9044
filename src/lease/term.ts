/**
 * One term of a campaign: the step-down deadline, the renewal cadence and the term's end, on the
 * campaign's Clock.
 *
 * The term steps down before the store could hand the lease to a successor: at once when a renewal is
 * refused, or when no renewal it can prove has succeeded within ttl − ttl/6 of being sent. It is not the
 * campaign (acquiring, releasing, reporting): run.ts drives it.
 */
import { createHash } from 'node:crypto'
import type { Answer } from './bounded-call.js'
import { termCallBoundMs } from './call-bound.js'
import type { Clock, TimerHandle } from './clock.js'
import type { LeaseGrant } from './store.js'

/**
 * Node's timers run on a whole-millisecond loop clock: one can fire up to a millisecond before the
 * monotonic clock reached its delay, and none waits less than 1 ms. The step-down timer therefore aims this
 * far ahead of the deadline, and the term steps down once no more than this is left, so a term never
 * outlives its deadline — re-arming for a remainder under 1 ms would overshoot it by up to 1 ms.
 */
const TIMER_GRAIN_MS = 1

/** How many renewal phases a replica's terms of one ttl are spread over (see #scheduleRenewal). */
export const RENEWAL_GROUPS = 10

/**
 * The phase of `lease`'s renewals within a cadence of `everyMs`: its group (a hash of the name, the same
 * on every replica and in every term) times a RENEWAL_GROUPS-th of the cadence, in whole milliseconds.
 */
export function renewalPhaseMs(lease: string, everyMs: number): number {
  const group = createHash('sha256').update(lease).digest().readUInt32BE(0) % RENEWAL_GROUPS
  return Math.floor((group * everyMs) / RENEWAL_GROUPS)
}

/** What a term's work can ask about the term, besides its abort signal. */
export interface TermInfo {
  /** The term's fence: strictly greater than every earlier term's of this lease in this store. */
  readonly fence: number
  /** The term's token, as the store granted it. */
  readonly token: string
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

export interface TermOptions {
  clock: Clock
  ttlMs: number
  grant: LeaseGrant
  /** The monotonic instant the grant's acquire was sent. */
  grantSentAt: number
  /**
   * One renewal of the grant, bounded by `ms` alone: not ended with the term, so the campaign can wait for
   * its answer before it releases (lease/run.ts). The term ignores an answer that comes after its end.
   */
  renew(ms: number): Promise<Answer<boolean>>
  /** Every renewal's outcome, with the time then left before the step-down; called before the term acts. */
  onRenewal(answer: Answer<boolean>, stepDownInMs: number): void
  /** The term ended (called once, after its signal aborted). */
  onEnd(why: TermEnd): void
}

/** The timers and state of one term; `begin()` starts it, `finish()` ends it (once). */
export class Term {
  readonly info: TermInfo
  readonly #options: TermOptions
  readonly #controller = new AbortController()
  /** ttl − ttl/6 from the truncated ttl the store stamps: the deadline falls before the stored expiry. */
  readonly #holdMs: number
  readonly #renewEveryMs: number
  /** Where in each ttl/3 this term's renewals go: its group's share of the cadence (renewalPhaseMs). */
  readonly #phaseMs: number
  #provenSentAt: number
  /** Renewals keep a cadence of ttl/3 between sends, so a slow store does not stretch it by a round trip. */
  #lastSentAt: number
  #end: TermEnd | undefined
  #stepDownTimer: TimerHandle | undefined
  #renewTimer: TimerHandle | undefined
  /** The latest renewal sent: settled once it was answered or ran out its bound. */
  #renewing: Promise<unknown> = Promise.resolve()

  constructor(options: TermOptions) {
    this.#options = options
    this.#holdMs = Math.trunc(options.ttlMs) - options.ttlMs / 6
    this.#renewEveryMs = termCallBoundMs(options.ttlMs)
    this.#phaseMs = renewalPhaseMs(options.grant.name, this.#renewEveryMs)
    this.#provenSentAt = options.grantSentAt
    this.#lastSentAt = options.grantSentAt
    const { clock, grant } = options
    this.info = {
      fence: grant.fence,
      token: grant.token,
      stepDownAt: () => this.#stepDownAt(),
      live: () => !this.signal.aborted && clock.monotonic() < this.#stepDownAt(),
    }
  }

  /** Aborts when the term ends, whatever the reason. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get ended(): TermEnd | undefined {
    return this.#end
  }

  /** Starts the step-down timer and the renewals; steps down at once when the grant cannot be proven. */
  begin(): boolean {
    if (this.#stepDownAt() - this.#options.clock.monotonic() <= TIMER_GRAIN_MS) {
      this.finish('stepped-down')
      return false
    }
    this.#armStepDown()
    this.#scheduleRenewal()
    return true
  }

  /**
   * Settles once no renewal of this term is in flight (at most one renewal's bound after the last was
   * sent). A release waits for it: on a store that applies an update read-then-write (FerretDB), a renewal
   * read before the release and written after it would hold the lease again, and a successor would wait
   * out the TTL.
   */
  renewalSettled(): Promise<void> {
    return this.#renewing.then(() => undefined)
  }

  finish(why: TermEnd): void {
    if (this.#end) return
    this.#end = why
    const { clock, grant } = this.#options
    this.#controller.abort(new Error(`term ${grant.fence} of lease "${grant.name}" ended: ${why}`))
    if (this.#stepDownTimer) clock.clearTimeout(this.#stepDownTimer)
    if (this.#renewTimer) clock.clearTimeout(this.#renewTimer)
    this.#options.onEnd(why)
  }

  #stepDownAt(): number {
    return this.#provenSentAt + this.#holdMs
  }

  #armStepDown(): void {
    const { clock } = this.#options
    if (this.#stepDownTimer) clock.clearTimeout(this.#stepDownTimer)
    this.#stepDownTimer = undefined
    const left = this.#stepDownAt() - clock.monotonic()
    if (left <= TIMER_GRAIN_MS) {
      this.finish('stepped-down')
      return
    }
    this.#stepDownTimer = clock.setTimeout(() => this.#armStepDown(), left - TIMER_GRAIN_MS)
  }

  /**
   * The next renewal goes at the last instant of the term's grid (whole multiples of ttl/3 on the monotonic
   * clock, shifted by its group's phase) that is after the last send and no later than a cadence after it:
   * never later than the cadence asks, and the terms of one ttl and group on a replica renew at the same
   * instants, so renewal-batch.ts sends them in one call (issue #39: at 1,000 leases, terms renewing on
   * their own grant's phase made 58 calls a round). RENEWAL_GROUPS phases, not one: a store that writes
   * each renewed lease on its own (FerretDB, about 6 ms each) answered a replica's thousand renewals in one
   * burst past their bound; spread over ten groups the same work comes in ten small calls a round. A term
   * off its grid costs one early renewal, once, to join it. The instant is taken up to TIMER_GRAIN_MS past
   * the cadence: a timer that fired that much before its instant would otherwise find the same instant
   * still ahead and renew twice.
   */
  #scheduleRenewal(): void {
    const { clock } = this.#options
    const every = this.#renewEveryMs
    const phase = this.#phaseMs
    const onGrid = Math.floor((this.#lastSentAt - phase + every + TIMER_GRAIN_MS) / every) * every + phase
    const wait = Math.max(0, onGrid - clock.monotonic())
    this.#renewTimer = clock.setTimeout(() => void this.#renewOnce(), wait)
  }

  async #renewOnce(): Promise<void> {
    if (this.#end) return
    const { clock } = this.#options
    const sentAt = clock.monotonic()
    this.#lastSentAt = sentAt
    const renewing = this.#options.renew(this.#renewEveryMs)
    this.#renewing = renewing
    const answer = await renewing
    if (this.#end) return
    if (answer.ok && answer.value) this.#provenSentAt = Math.max(this.#provenSentAt, sentAt)
    this.#options.onRenewal(answer, this.#stepDownAt() - clock.monotonic())
    if (this.#end) return
    if (answer.ok && !answer.value) {
      this.finish('lost')
      return
    }
    // An answer that arrives too late to keep the term (after a stall) ends it here.
    if (answer.ok) this.#armStepDown()
    if (!this.#end) this.#scheduleRenewal()
  }
}
