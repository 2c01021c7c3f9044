/**
 * One term of a net's lease as the work inside it sees it: the one object that holds what every step of
 * the term reads — its fence, liveness and step-down instant, its signals, the net's ledger, clock and
 * log, and the bound of every store call it makes, computed once (termCallBoundMs) as whole milliseconds.
 *
 * Before it, each file the term's work went through rebuilt that bound from the TTL on its own, and two of
 * them passed a fraction on (ttl/3 of 4000 ms): `AbortSignal.timeout` threw, every control read failed open
 * and a pause never took effect (#36, #38). Now the bound is a field, and nothing below computes it.
 *
 * What it is not: the lease's own term (lease/term.ts renews and steps down), nor the scheduler.
 */
import { followAny } from '../lease/follow-abort.js'
import type { TermInfo } from '../lease/run.js'
import { termCallBoundMs } from '../lease/call-bound.js'
import type { Pass, PassReason } from '../nets/net.js'
import type { Logger } from '../observe/logger.js'
import { OlderClaimsLook } from './older-claims-look.js'
import { type PassSetting, type PassTerm, type SlotPassSpec, slotPassSpec } from './slot-pass.js'
import { callBoundSignal } from './term-call-bound.js'
import { RunMemory } from './run-memory.js'

/** What the net's campaign hands each of its terms: the lease's term, the built pass, the signals. */
export interface ServedTermParts {
  setting: PassSetting
  info: Pick<TermInfo, 'fence' | 'live' | 'stepDownAt'>
  /** The lease's term signal: aborts passes and bounds calls. */
  signal: AbortSignal
  /** Aborted by a step-down the worker asked for (the fair share): no new work starts, the pass in flight ends. */
  stepDown?: AbortSignal | undefined
  /** The net's pass for this term (nets/net-term.ts's openTerm). */
  pass: Pass
}

/** How a pass of the term runs (ServedTerm.withPass). */
export interface PassOptions {
  manual?: boolean
  jobAbort?: AbortSignal | undefined
  retake?: number | undefined
  reason?: PassReason
}

/** A term of a net's lease, with everything its work shares; see the module's doc. */
export class ServedTerm {
  /** What the net's passes share, with the term's ledger (`runs`) in the setting's place. */
  readonly setting: PassSetting
  /**
   * The term's ledger: every read and write of the term goes through it, so it knows the net's runs from
   * the election's read on, and tells each pass its history without a read of its own (run-memory.ts).
   */
  readonly runs: RunMemory
  readonly fence: number
  /** The lease's term signal. */
  readonly signal: AbortSignal
  /** The term's signal or a step-down: no new work starts once it aborted. */
  readonly serving: AbortSignal
  /** The bound of one store call made within the term (whole ms): a third of the TTL. */
  readonly boundMs: number
  /** Bound to the net and owner; the fence is added where a line is the term's (`termLog`). */
  readonly log: Logger
  readonly termLog: Logger
  readonly #info: ServedTermParts['info']
  readonly #pass: Pass
  #passNumber = 0
  readonly #olderClaims: OlderClaimsLook

  constructor(parts: ServedTermParts) {
    const countRuns = parts.setting.net.maxRuns !== undefined
    this.runs = new RunMemory(parts.setting.ledger, { countRuns })
    this.setting = { ...parts.setting, ledger: this.runs }
    this.#info = parts.info
    this.#pass = parts.pass
    this.fence = parts.info.fence
    this.signal = parts.signal
    this.serving = parts.stepDown ? AbortSignal.any([parts.signal, parts.stepDown]) : parts.signal
    this.boundMs = termCallBoundMs(parts.setting.net.pacing.ttlMs)
    this.log = parts.setting.log
    this.termLog = this.log.child({ fence: this.fence })
    this.#olderClaims = new OlderClaimsLook(parts.setting.clock, this.boundMs)
  }

  /** The ledger's name of the net (`<net>:<installation>` for one installation's copy). */
  get net(): string {
    return this.setting.net.definition.name
  }

  /** Whether the term is live right now (checked synchronously: see lease/term.ts). */
  live(): boolean {
    return this.#info.live()
  }

  /** The term's step-down deadline (monotonic). */
  stepDownAt(): number {
    return this.#info.stepDownAt()
  }

  /** Whether the term may start new work: not ended, not stepped down, live. */
  going(): boolean {
    return !this.serving.aborted && this.live()
  }

  /** Whether the term may go on with work already begun (a step-down lets it finish). */
  working(): boolean {
    return !this.signal.aborted && this.live()
  }

  /**
   * The signal of one store call: the term's bound, and also the end of the term (`term`), of its serving
   * (`serving`: a step-down too), or nothing more (`none`: a write that must be let answer).
   */
  callSignal(endsWith: 'term' | 'serving' | 'none' = 'term'): AbortSignal {
    if (endsWith === 'none') return callBoundSignal(this.boundMs)
    return callBoundSignal(this.boundMs, endsWith === 'term' ? this.signal : this.serving)
  }

  /** The term as a pass sees it, under `signal` (the term's, or one that also ends with the pass's job). */
  #passTerm(signal: AbortSignal): PassTerm {
    return {
      fence: this.fence,
      term: signal,
      live: () => this.live(),
      stepDownAt: () => this.stepDownAt(),
      nextPassNumber: () => ++this.#passNumber,
      looksForOlderClaims: (number) => this.#olderClaims.due(number),
      boundMs: this.boundMs,
      runs: this.runs,
    }
  }

  /**
   * Runs `run` with the spec of the pass for `slot` (a manual run's when `manual`; with `retake`, the n-th
   * run again of a pass an older term's holder left unfinished: retake.ts), numbered within the term;
   * `reason` is what the pass is told (a tick's when absent); `jobAbort` also ends the pass (a pause with
   * --abort). The pass's signal follows the term and the job only until `run` settles (follow-abort.ts:
   * `AbortSignal.any` would leave an entry on the term's signal for every pass). Answers what `run` does.
   */
  async withPass<R>(slot: Date, options: PassOptions, run: (spec: SlotPassSpec) => Promise<R>): Promise<R> {
    const link = options.jobAbort ? followAny([this.signal, options.jobAbort]) : undefined
    try {
      const spec = slotPassSpec(this.setting, this.#passTerm(link?.signal ?? this.signal), this.#pass, slot)
      return await run({
        ...spec,
        ...(options.manual ? { manual: true } : {}),
        ...(options.retake ? { retake: options.retake } : {}),
        ...(options.reason ? { reason: options.reason } : {}),
      })
    } finally {
      link?.unfollow()
    }
  }
}
