/**
 * A simulated world for model-based tests of lease.run: one true time line, one real MemoryStore behind a
 * simulated network, and candidate processes that each run the real run() on a Clock of their own.
 *
 * Each process has its own event loop, modelled as a queue of timers and I/O deliveries:
 * - its monotonic clock is true time plus a private origin; its wall clock is true time plus its slot's
 *   skew (a host's clock), so skew moves the stamps sent to the store and nothing else;
 * - its timers behave as Node's do: a delay below 1 ms (or above 2³¹−1) becomes 1 ms, and a timer fires when
 *   the process's millisecond loop clock has moved by the delay — up to 1 ms early or late against the
 *   fractional monotonic clock;
 * - a stall blocks its loop: nothing of it runs (no timer, no answer, no abort) until the stall ends; then
 *   its overdue events run at once, in a per-stall order (timers first, as Node's timers phase does, or by
 *   due time), and its monotonic clock has jumped by the stall;
 * - a crash drops its queue: it runs nothing more and never releases, but its requests in flight still
 *   land.
 *
 * Store calls travel a network with 0–2 ms of latency each way; a fault armed for a process's next call of
 * an operation delays the request or the answer, loses the answer (the write lands), fails it at once,
 * swallows it, or replays it (the store applies the same request twice). An outage applies one fault to
 * every call for a while. Between two events every microtask is drained, as Node does between callbacks.
 *
 * After every instant at which something happened, the world checks the invariants of lease.run and throws,
 * naming the consequence, at the first one broken; `finish` heals every fault, checks that a holder is
 * elected in time, stops everyone, and checks how terms overlapped.
 */
import {
  type AcquireOptions,
  type Clock,
  type LeaseCallOptions,
  type LeaseGrant,
  type LeaseRecord,
  type LeaseStore,
  type LeaseTerm,
  MemoryStore,
  run,
  type TermInfo,
} from '../../src/index.js'
import { MAX_TIMER_MS, type TimerHandle } from '../../src/lease/clock.js'

export type SimOp = 'acquire' | 'renew' | 'release'

export type SimFault =
  /** The request reaches the store `ms` late. */
  | { kind: 'delay-request'; ms: number }
  /** The store answers at once; the answer arrives `ms` late. */
  | { kind: 'delay-answer'; ms: number }
  /** The write lands; the answer never arrives. */
  | { kind: 'lose-answer' }
  /** The call fails at once; nothing reaches the store. */
  | { kind: 'fail' }
  /** Nothing reaches the store and nothing comes back. */
  | { kind: 'hang' }
  /** The request lands, is answered, and lands a second time `ms` later (a resent request). */
  | { kind: 'replay'; ms: number }

export interface WorldConfig {
  /** Candidate slots (hosts); each runs one process at a time. */
  slots: number
  ttlMs: number
  /** Wall-clock skew per slot in ms, at the start. */
  skews: number[]
  /** Seeds the world's own randomness: latencies, clock origins, retry jitter, how long work runs. */
  seed: number
  /** Longest one-way latency of a call without fault, ms. */
  maxLatencyMs?: number
}

/** Counts of what a world saw, summed over runs for the printed summary and the sanity checks. */
export interface WorldStats {
  runs: number
  terms: number
  handovers: number
  stalls: number
  faults: Record<string, number>
  crashes: number
  aborts: number
  /** Terms that overlapped a successor because their holder stalled past its deadline. */
  stallOverlaps: number
  stallOverlapMaxMs: number
  /** Overlap of a stalled holder, as a share of the stall that caused it (≤ 1). */
  stallOverlapMaxShare: number
  /** Terms whose lease a release sent before the term began deleted (a late or resent release). */
  staleReleaseTerms: number
  staleReleaseOverlaps: number
  staleReleaseOverlapMaxMs: number
  /** Overlaps while two wall clocks disagreed by ttl/6 or more (only injected by the scenario test). */
  skewOverlaps: number
  skewOverlapMaxMs: number
  /** Grants that landed after a release the same owner sent later (the ADR's residual case). */
  lateGrants: number
  /** The longest time from healed faults to an elected holder, ms, and the bound it was checked against. */
  takeoverMaxMs: number
  takeoverBoundMs: number
  /** Clean stops of a holder with a candidate waiting, and the longest time until it took over, ms. */
  cleanHandOvers: number
  cleanHandOverMaxMs: number
  cleanHandOverBoundMs: number
}

export function emptyStats(): WorldStats {
  return {
    runs: 0,
    terms: 0,
    handovers: 0,
    stalls: 0,
    faults: {},
    crashes: 0,
    aborts: 0,
    stallOverlaps: 0,
    stallOverlapMaxMs: 0,
    stallOverlapMaxShare: 0,
    staleReleaseTerms: 0,
    staleReleaseOverlaps: 0,
    staleReleaseOverlapMaxMs: 0,
    skewOverlaps: 0,
    skewOverlapMaxMs: 0,
    lateGrants: 0,
    takeoverMaxMs: 0,
    takeoverBoundMs: 0,
    cleanHandOvers: 0,
    cleanHandOverMaxMs: 0,
    cleanHandOverBoundMs: 0,
  }
}

export function addStats(into: WorldStats, from: WorldStats): void {
  into.runs += from.runs
  into.terms += from.terms
  into.handovers += from.handovers
  into.stalls += from.stalls
  for (const [k, v] of Object.entries(from.faults)) into.faults[k] = (into.faults[k] ?? 0) + v
  into.crashes += from.crashes
  into.aborts += from.aborts
  into.stallOverlaps += from.stallOverlaps
  into.stallOverlapMaxMs = Math.max(into.stallOverlapMaxMs, from.stallOverlapMaxMs)
  into.stallOverlapMaxShare = Math.max(into.stallOverlapMaxShare, from.stallOverlapMaxShare)
  into.staleReleaseTerms += from.staleReleaseTerms
  into.staleReleaseOverlaps += from.staleReleaseOverlaps
  into.staleReleaseOverlapMaxMs = Math.max(into.staleReleaseOverlapMaxMs, from.staleReleaseOverlapMaxMs)
  into.skewOverlaps += from.skewOverlaps
  into.skewOverlapMaxMs = Math.max(into.skewOverlapMaxMs, from.skewOverlapMaxMs)
  into.lateGrants += from.lateGrants
  into.takeoverMaxMs = Math.max(into.takeoverMaxMs, from.takeoverMaxMs)
  into.takeoverBoundMs = Math.max(into.takeoverBoundMs, from.takeoverBoundMs)
  into.cleanHandOvers += from.cleanHandOvers
  into.cleanHandOverMaxMs = Math.max(into.cleanHandOverMaxMs, from.cleanHandOverMaxMs)
  into.cleanHandOverBoundMs = Math.max(into.cleanHandOverBoundMs, from.cleanHandOverBoundMs)
}

/** Thrown at the first broken invariant; the message says the consequence, then the world's recent trace. */
export class InvariantError extends Error {
  override readonly name = 'InvariantError'
}

const EPOCH = Date.UTC(2026, 8, 30, 15, 0, 0)
const LEASE = 'net-model'
/** Node's loop clock ticks in whole ms; origins are multiples of 1/1024 ms so sums stay exact. */
const TICK_FRACTIONS = 1024

interface ProcEvent {
  at: number
  seq: number
  timer: boolean
  fn: () => void
}

interface StoreEvent {
  at: number
  seq: number
  /** Whose request this is. */
  proc: Proc
  fn: () => void
}

interface Stall {
  start: number
  end: number
}

interface Call {
  proc: Proc
  op: SimOp
  sentAt: number
  /** Send order, world-wide: two calls sent in one instant are still ordered. */
  sentSeq: number
  faulty: boolean
  arrivalsDue: number
  settled: boolean
}

export interface Term {
  proc: Proc
  start: number
  end: number | undefined
  info: TermInfo
  /** A release this owner sent before the term began deleted the term's lease. */
  staleRelease: boolean
}

export class Proc {
  readonly events: ProcEvent[] = []
  readonly stalls: Stall[] = []
  readonly stop = new AbortController()
  stallEnd = Number.NEGATIVE_INFINITY
  timersFirst = true
  crashed = false
  /** run() resolved. */
  done = false
  /** An acquire went unanswered and no release has been sent since. */
  owesRelease = false
  /** The latest send order of this owner's acquires that landed true, and of its releases that landed. */
  lastGrantSentSeq = -1
  lastReleaseSentSeq = -1
  /** The store holds this owner's lease through a grant that landed after a later release (ADR residual). */
  heldByLateGrant = false
  /** When the store's refusal of one of this owner's renewals reached it. */
  renewRefusedAt = Number.NEGATIVE_INFINITY
  /** A stale release deleted this owner's lease and no grant has landed since. */
  leaseDeletedByStaleRelease = false
  term: Term | undefined
  readonly clock: Clock

  constructor(
    readonly world: World,
    readonly slot: number,
    readonly owner: string,
    /** Origin of the monotonic clock, and phase of the ms loop clock against true time. */
    readonly monoOrigin: number,
    readonly phase: number,
    /** How long this process's work runs before it returns on its own; undefined: until its term ends. */
    readonly workMs: number | undefined,
  ) {
    this.clock = {
      now: () => new Date(EPOCH + world.now + world.skews[slot]!),
      monotonic: () => world.now + monoOrigin,
      setTimeout: (fn, ms) => world.setTimer(this, fn, ms),
      clearTimeout: (handle) => world.clearTimer(this, handle),
    }
  }

  get live(): boolean {
    return !this.crashed && !this.stop.signal.aborted
  }

  stalledAt(t: number): boolean {
    return t < this.stallEnd
  }
}

type TraceEntry = [time: number, what: string]

export class World {
  readonly store = new MemoryStore()
  readonly ttlMs: number
  readonly retryMs: number
  readonly holdMs: number
  readonly skews: number[]
  readonly slots: (Proc | undefined)[]
  readonly procs: Proc[] = []
  readonly terms: Term[] = []
  readonly stats: WorldStats = { ...emptyStats(), runs: 1 }
  readonly #trace: TraceEntry[] = []
  readonly #storeEvents: StoreEvent[] = []
  readonly #openFaultyCalls = new Set<Call>()
  readonly #armed = new Map<string, SimFault>()
  readonly #random: () => number
  readonly #maxLatencyMs: number
  #t = 0
  #seq = 0
  #generation = 0
  #outage: { until: number; fault: SimFault } | undefined
  #lastHolder: Proc | undefined
  /** Widest spread between two wall clocks seen, ms. */
  #skewSpreadMax = 0
  #violation: InvariantError | undefined

  constructor(readonly config: WorldConfig) {
    this.ttlMs = config.ttlMs
    this.retryMs = config.ttlMs / 3
    this.holdMs = Math.trunc(config.ttlMs) - config.ttlMs / 6
    this.skews = Array.from({ length: config.slots }, (_, i) => config.skews[i] ?? 0)
    this.slots = Array.from({ length: config.slots }, () => undefined)
    this.#random = mulberry32(config.seed)
    this.#maxLatencyMs = config.maxLatencyMs ?? 2
    this.#noteSkew()
  }

  /** True time, ms since the world began. */
  get now(): number {
    return this.#t
  }

  /** Starts a process in every slot and lets the first instant play out. */
  async begin(): Promise<void> {
    for (let slot = 0; slot < this.slots.length; slot++) this.#start(slot)
    await this.#settle()
  }

  async advance(ms: number): Promise<void> {
    await this.#runUntil(this.#t + ms)
  }

  /**
   * Arms `fault` for the next `op` call ('any': the next call whatever it is) of the process in `slot`, or
   * of the process serving a term when `slot` is 'holder' (nobody: no fault).
   */
  async arm(slot: number | 'holder', op: SimOp | 'any', fault: SimFault): Promise<void> {
    const proc = slot === 'holder' ? this.holder : this.slots[slot]
    if (!proc?.live) return
    this.#armed.set(`${proc.owner}:${op}`, fault)
    this.#note(`arm ${proc.owner} ${op}: ${describeFault(fault)}`)
  }

  /** The process serving a term now, if any. */
  get holder(): Proc | undefined {
    return this.procs.find((p) => p.live && p.term !== undefined && p.term.end === undefined)
  }

  /** Every call made within the next `ms` suffers `fault`. */
  async outage(ms: number, fault: SimFault): Promise<void> {
    this.#outage = { until: this.#t + ms, fault }
    this.#note(`outage ${ms} ms: ${describeFault(fault)}`)
  }

  /** Blocks the event loop of the process in `slot` for `ms`. */
  async stall(slot: number, ms: number, timersFirst: boolean): Promise<void> {
    const proc = this.slots[slot]
    if (!proc || proc.crashed) return
    const end = Math.max(proc.stallEnd, this.#t + ms)
    if (proc.stalledAt(this.#t)) proc.stalls[proc.stalls.length - 1]!.end = end
    else proc.stalls.push({ start: this.#t, end })
    proc.stallEnd = end
    proc.timersFirst = timersFirst
    this.stats.stalls++
    this.#note(`stall ${proc.owner} until ${fmt(end)} (${timersFirst ? 'timers first' : 'by due time'})`)
  }

  /** Stops the process in `slot` the way SIGTERM does: its campaign's signal aborts, when its loop runs. */
  async abort(slot: number): Promise<void> {
    const proc = this.slots[slot]
    if (!proc?.live) return
    this.stats.aborts++
    this.#note(`abort ${proc.owner}`)
    this.#deliver(proc, this.#t, () => proc.stop.abort(new Error('stopped by the model')))
    await this.#settle()
  }

  /** Kills the process in `slot` (if any) and starts a new process, with a new owner, in its place. */
  async restart(slot: number): Promise<void> {
    const old = this.slots[slot]
    if (old && !old.crashed) this.#crash(old)
    this.#start(slot)
    await this.#settle()
  }

  /** Steps the wall clock of `slot` to `skewMs` ahead of true time. */
  async skew(slot: number, skewMs: number): Promise<void> {
    this.skews[slot] = skewMs
    this.#noteSkew()
    this.#note(`skew slot ${slot} to ${skewMs} ms`)
    await this.#check()
  }

  /**
   * Heals every fault (disarms faults, ends the outage, waits out stalls and every faulty call still open),
   * starts a process when none is live, then checks that a holder is elected within ttl + the skew spread +
   * one jittered retry + round trips; then stops everyone and checks that every campaign finished and
   * released, and how terms overlapped.
   */
  async finish(): Promise<void> {
    this.#armed.clear()
    if (this.#outage) this.#outage.until = Math.min(this.#outage.until, this.#t)
    for (let i = 0; ; i++) {
      const stallEnds = this.procs.filter((p) => !p.crashed && p.stalledAt(this.#t)).map((p) => p.stallEnd)
      if (!stallEnds.length && this.#openFaultyCalls.size === 0) break
      const target = Math.min(
        this.#nextEvent()?.time ?? Number.POSITIVE_INFINITY,
        stallEnds.length ? Math.max(...stallEnds) : Number.POSITIVE_INFINITY,
      )
      if (!Number.isFinite(target) || i > 100_000) {
        throw this.#fail(
          'faults never healed: a call stayed open with nothing left to answer or time it out, so a ' +
            `caller waits forever (${[...this.#openFaultyCalls].map((c) => `${c.proc.owner} ${c.op}`).join(', ')})`,
        )
      }
      await this.#runUntil(target)
    }
    const healedAt = this.#t
    this.#note('healed')
    if (!this.slots.some((p) => p?.live)) {
      const slot = this.slots.findIndex((p) => !p || p.crashed || p.stop.signal.aborted)
      this.#start(Math.max(0, slot))
      await this.#settle()
    }
    // A dead holder's stamp may come from a wall clock since stepped: count the widest spread seen.
    const maxSpread = this.#skewSpreadMax
    const bound = this.ttlMs + maxSpread + this.retryMs * 1.2 + 4 * this.#maxLatencyMs + 2
    this.stats.takeoverBoundMs = bound
    const elected = () => this.terms.some((t) => t.proc.live && (t.end === undefined || t.start >= healedAt))
    while (!elected() && this.#t <= healedAt + bound) {
      const next = this.#nextEvent()
      await this.#runUntil(Math.min(next?.time ?? Number.POSITIVE_INFINITY, healedAt + bound + 1))
    }
    if (!elected()) {
      throw this.#fail(
        `no holder was elected within ${fmt(bound)} ms of the faults healing (ttl ${this.ttlMs} + skew ` +
          `${maxSpread} + jittered retry + round trips): the lease stays leaderless and the net stops running`,
      )
    }
    const first = this.terms.filter((t) => t.proc.live && t.start >= healedAt).map((t) => t.start)
    this.stats.takeoverMaxMs = first.length ? Math.min(...first) - healedAt : 0

    // A clean stop hands over within one jittered retry (plus the release's and the grant's round trips),
    // once no request of a stopped or dead process is in flight: one landing after the holder's release
    // would be a late grant (the ADR's residual case) and keep the lease a ttl.
    // It needs one term only: two can still coexist after a stale release (the second ends by its deadline).
    const liveTerms = () => this.procs.filter((p) => p.live && p.term && p.term.end === undefined).length
    const quietBy = this.#t + this.ttlMs
    while ((this.#storeEvents.some((e) => !e.proc.live) || liveTerms() > 1) && this.#t < quietBy) {
      await this.#runUntil(Math.min(this.#nextEvent()?.time ?? quietBy, quietBy))
    }
    const holder = liveTerms() === 1 && !this.#storeEvents.some((e) => !e.proc.live) ? this.holder : undefined
    if (holder && this.procs.some((p) => p.live && p !== holder)) {
      const stoppedAt = this.#t
      const handOverBound = this.retryMs * 1.2 + 5 * this.#maxLatencyMs + 2
      this.#note(`abort ${holder.owner} (the holder: hand-over)`)
      this.#deliver(holder, this.#t, () => holder.stop.abort(new Error('stopped by the model')))
      const handedOver = () => this.terms.some((t) => t.proc !== holder && t.start >= stoppedAt)
      while (!handedOver() && this.#t <= stoppedAt + handOverBound) {
        const next = this.#nextEvent()
        await this.#runUntil(Math.min(next?.time ?? Number.POSITIVE_INFINITY, stoppedAt + handOverBound + 1))
      }
      if (!handedOver()) {
        throw this.#fail(
          `nobody took over within ${fmt(handOverBound)} ms of the holder's clean stop (one jittered retry ` +
            'and round trips): a rollout leaves the net unserved for longer than a retry',
        )
      }
      const took = Math.min(
        ...this.terms.filter((t) => t.proc !== holder && t.start >= stoppedAt).map((t) => t.start),
      )
      this.stats.cleanHandOvers++
      this.stats.cleanHandOverMaxMs = took - stoppedAt
      this.stats.cleanHandOverBoundMs = handOverBound
    }

    const stopping = this.procs.filter((p) => p.live)
    for (const p of stopping) {
      this.#note(`abort ${p.owner}`)
      this.#deliver(p, this.#t, () => p.stop.abort(new Error('stopped by the model')))
    }
    const stopBy = this.#t + this.ttlMs
    while (this.procs.some((p) => !p.crashed && !p.done) && this.#t < stopBy) {
      const next = this.#nextEvent()
      await this.#runUntil(Math.min(next?.time ?? stopBy, stopBy))
    }
    const hung = this.procs.filter((p) => !p.crashed && !p.done)
    if (hung.length) {
      throw this.#fail(
        `run() of ${hung.map((p) => p.owner).join(', ')} did not resolve within a ttl of its stop, with the ` +
          'store healthy: a worker shutdown would hang',
      )
    }
    // A grant that lands after its owner's release keeps the lease one ttl (the ADR's residual case).
    const left = (await this.store.list()).filter((r) =>
      stopping.some((p) => p.owner === r.owner && !p.heldByLateGrant),
    )
    if (left.length) {
      throw this.#fail(
        `${left[0]!.owner} stopped cleanly but left its lease behind: a successor waits out the ttl`,
      )
    }
    this.#checkOverlaps()
    this.stats.terms = this.terms.length
  }

  /** The recorded trace, one line per entry, for failure messages and debugging. */
  trace(last = 80): string {
    return this.#trace
      .slice(-last)
      .map(([t, what]) => `  t=${fmt(t)} ${what}`)
      .join('\n')
  }

  // ——— processes ———

  #start(slot: number): Proc {
    const gen = ++this.#generation
    const owner = `c${slot}.${gen}`
    const r = this.#random
    const proc = new Proc(
      this,
      slot,
      owner,
      1_000 * Math.floor(r() * 1_000) + Math.floor(r() * TICK_FRACTIONS) / TICK_FRACTIONS,
      Math.floor(r() * TICK_FRACTIONS) / TICK_FRACTIONS,
      r() < 0.3 ? 1 + Math.floor(r() * 3 * this.ttlMs) : undefined,
    )
    this.slots[slot] = proc
    this.procs.push(proc)
    this.#note(`start ${owner}${proc.workMs === undefined ? '' : ` (work returns after ${proc.workMs} ms)`}`)
    const store = new SimStore(this, proc)
    const done = run(
      store,
      {
        name: LEASE,
        owner,
        ttlMs: this.ttlMs,
        signal: proc.stop.signal,
        clock: proc.clock,
        random: () => this.#random(),
      },
      (signal, info) => this.#work(proc, signal, info),
    )
    done.then(
      () => {
        proc.done = true
        this.#note(`${owner} finished`)
      },
      (error) => {
        proc.done = true
        this.#note(`${owner} run() rejected: ${String(error)}`)
      },
    )
    return proc
  }

  #crash(proc: Proc): void {
    proc.crashed = true
    proc.events.length = 0
    this.stats.crashes++
    if (proc.term && proc.term.end === undefined) this.#endTerm(proc.term, 'crash')
    for (const call of this.#openFaultyCalls) if (call.proc === proc) this.#maybeClose(call)
    this.#note(`crash ${proc.owner}`)
  }

  /** The work of a term: runs until its term signal aborts, or returns after the process's workMs. */
  #work(proc: Proc, signal: AbortSignal, info: TermInfo): Promise<void> {
    const term: Term = { proc, start: this.#t, end: undefined, info, staleRelease: false }
    if (proc.leaseDeletedByStaleRelease) {
      term.staleRelease = true
      this.stats.staleReleaseTerms++
    }
    proc.term = term
    this.terms.push(term)
    if (this.#lastHolder && this.#lastHolder !== proc) this.stats.handovers++
    this.#lastHolder = proc
    this.#note(`term of ${proc.owner} starts (steps down at t=${fmt(info.stepDownAt() - proc.monoOrigin)})`)
    if (!info.live()) {
      this.#violate(`${proc.owner}'s work started on a term that was not live: it would run unelected`)
    }
    return new Promise<void>((resolve) => {
      let timer: TimerHandle | undefined
      const end = (why: string) => {
        if (term.end !== undefined) return resolve()
        this.#endTerm(term, why)
        if (timer) proc.clock.clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => end('signal')
      signal.addEventListener('abort', onAbort, { once: true })
      if (proc.workMs !== undefined) timer = proc.clock.setTimeout(() => end('returned'), proc.workMs)
    })
  }

  #endTerm(term: Term, why: string): void {
    term.end = this.#t
    this.#note(`term of ${term.proc.owner} ends (${why})`)
  }

  // ——— time and events ———

  setTimer(proc: Proc, fn: () => void, ms: number): TimerHandle {
    // Node: a delay outside [1, 2³¹−1] becomes 1 ms; a timer fires once the ms loop clock moved by the delay.
    let after = ms * 1
    if (!(after >= 1 && after <= MAX_TIMER_MS)) after = 1
    const at = Math.floor(this.#t + proc.phase) + Math.ceil(after) - proc.phase
    const event: ProcEvent = { at, seq: this.#seq++, timer: true, fn }
    if (!proc.crashed) proc.events.push(event)
    return event as unknown as TimerHandle
  }

  clearTimer(proc: Proc, handle: TimerHandle): void {
    const i = proc.events.indexOf(handle as unknown as ProcEvent)
    if (i >= 0) proc.events.splice(i, 1)
  }

  #deliver(proc: Proc, at: number, fn: () => void): void {
    if (!proc.crashed) proc.events.push({ at, seq: this.#seq++, timer: false, fn })
  }

  #atStore(proc: Proc, at: number, fn: () => void): void {
    this.#storeEvents.push({ at, seq: this.#seq++, proc, fn })
  }

  /** The next event to run: its effective time (a stalled process's events wait for its stall's end). */
  #nextEvent(): { time: number; fire: () => void } | undefined {
    let best: { time: number; rank: number; at: number; seq: number; fire: () => void } | undefined
    const better = (time: number, rank: number, at: number, seq: number) =>
      !best ||
      time < best.time ||
      (time === best.time &&
        (rank < best.rank || (rank === best.rank && (at < best.at || (at === best.at && seq < best.seq)))))
    for (const e of this.#storeEvents) {
      if (better(e.at, 0, e.at, e.seq)) {
        best = {
          time: e.at,
          rank: 0,
          at: e.at,
          seq: e.seq,
          fire: () => {
            this.#storeEvents.splice(this.#storeEvents.indexOf(e), 1)
            e.fn()
          },
        }
      }
    }
    for (const proc of this.procs) {
      if (proc.crashed) continue
      for (const e of proc.events) {
        const held = e.at < proc.stallEnd
        const time = held ? proc.stallEnd : e.at
        const rank = held && proc.timersFirst && !e.timer ? 1 : 0
        if (better(time, rank, e.at, e.seq)) {
          best = {
            time,
            rank,
            at: e.at,
            seq: e.seq,
            fire: () => {
              proc.events.splice(proc.events.indexOf(e), 1)
              e.fn()
            },
          }
        }
      }
    }
    return best && { time: Math.max(best.time, this.#t), fire: best.fire }
  }

  async #runUntil(target: number): Promise<void> {
    for (;;) {
      const next = this.#nextEvent()
      if (!next || next.time > target) break
      this.#t = next.time
      next.fire()
      await drain()
      const following = this.#nextEvent()
      if (!following || following.time > this.#t) await this.#check()
    }
    if (target > this.#t) {
      this.#t = target
      await this.#check()
    }
  }

  async #settle(): Promise<void> {
    await drain()
    await this.#runUntil(this.#t)
    await this.#check()
  }

  // ——— the network ———

  call<T>(proc: Proc, op: SimOp, signal: AbortSignal | undefined, exec: () => Promise<T>): Promise<T> {
    if (proc.owesRelease) {
      if (op !== 'release') {
        this.#violate(
          `${proc.owner} sent ${op} after an unanswered acquire without releasing first: a grant that landed ` +
            'unseen stays held by a candidate that does not serve it',
        )
      }
      proc.owesRelease = false
    }
    let fault: SimFault | undefined
    for (const key of [`${proc.owner}:${op}`, `${proc.owner}:any`]) {
      fault = this.#armed.get(key)
      if (fault) {
        this.#armed.delete(key)
        break
      }
    }
    if (!fault && this.#outage && this.#t < this.#outage.until) fault = this.#outage.fault
    const call: Call = {
      proc,
      op,
      sentAt: this.#t,
      sentSeq: this.#seq++,
      faulty: !!fault,
      arrivalsDue: 0,
      settled: false,
    }
    if (fault) {
      this.stats.faults[fault.kind] = (this.stats.faults[fault.kind] ?? 0) + 1
      this.#openFaultyCalls.add(call)
    }
    const latency = () => Math.floor(this.#random() * (this.#maxLatencyMs + 1))
    return new Promise<T>((resolve, reject) => {
      const settle = (ok: boolean, value: unknown) => {
        if (call.settled) return
        call.settled = true
        signal?.removeEventListener('abort', onAbort)
        if (!ok && op === 'acquire' && !proc.crashed) proc.owesRelease = true
        if (ok && op === 'renew' && value === false) proc.renewRefusedAt = this.#t
        this.#maybeClose(call)
        if (ok) resolve(value as T)
        else reject(value)
      }
      const onAbort = () => settle(false, new Error(`${op}: no answer before the caller gave up`))
      this.#note(`${proc.owner} sends ${op}${fault ? ` [${describeFault(fault)}]` : ''}`)
      if (signal?.aborted) return settle(false, new Error(`${op}: aborted before it was sent`))
      signal?.addEventListener('abort', onAbort, { once: true })
      if (fault?.kind === 'fail') return settle(false, new Error(`${op}: injected failure`))
      if (fault?.kind === 'hang') return
      const arrive = (first: boolean) => {
        this.#arrive(call, exec).then((answer) => {
          call.arrivalsDue--
          this.#maybeClose(call)
          if (!first || fault?.kind === 'lose-answer') return
          const delay = latency() + (fault?.kind === 'delay-answer' ? fault.ms : 0)
          this.#deliver(proc, this.#t + delay, () => settle(answer.ok, answer.value))
        })
      }
      const requestAt = this.#t + latency() + (fault?.kind === 'delay-request' ? fault.ms : 0)
      call.arrivalsDue++
      this.#atStore(proc, requestAt, () => arrive(true))
      if (fault?.kind === 'replay') {
        call.arrivalsDue++
        this.#atStore(proc, requestAt + fault.ms, () => arrive(false))
      }
    })
  }

  /** Applies a call at the store and classifies what it did: stale releases and late grants. */
  async #arrive<T>(call: Call, exec: () => Promise<T>): Promise<{ ok: boolean; value: unknown }> {
    const { proc, op } = call
    const holderBefore = op === 'release' ? (await this.store.get(LEASE))?.owner : undefined
    let answer: { ok: boolean; value: unknown }
    try {
      answer = { ok: true, value: await exec() }
    } catch (error) {
      answer = { ok: false, value: error }
    }
    const shown = answer.ok && typeof answer.value === 'object' && answer.value !== null
    this.#note(
      `store: ${op} of ${proc.owner} sent t=${fmt(call.sentAt)} lands: ${shown ? `grant (fence ${(answer.value as LeaseGrant).fence})` : String(answer.value)}`,
    )
    if (op === 'acquire' && answer.ok && answer.value !== false) {
      if (call.sentSeq < proc.lastReleaseSentSeq) {
        this.stats.lateGrants++
        proc.heldByLateGrant = true
        this.#note(`late grant: ${proc.owner}'s acquire landed after its later release (ADR residual)`)
      }
      if (call.sentSeq >= proc.lastGrantSentSeq) proc.leaseDeletedByStaleRelease = false
      proc.lastGrantSentSeq = Math.max(proc.lastGrantSentSeq, call.sentSeq)
    }
    if (op === 'release') proc.lastReleaseSentSeq = Math.max(proc.lastReleaseSentSeq, call.sentSeq)
    // A release freed the lease only when its owner held it before and nobody does after.
    const freed =
      op === 'release' &&
      answer.ok &&
      holderBefore === proc.owner &&
      (await this.store.get(LEASE))?.owner === undefined
    if (freed) {
      proc.heldByLateGrant = false
      if (call.sentSeq < proc.lastGrantSentSeq) {
        this.#note(`stale release: ${proc.owner}'s release sent t=${fmt(call.sentAt)} ended a later grant`)
        proc.leaseDeletedByStaleRelease = true
        const term = proc.term
        if (term && term.end === undefined && !term.staleRelease) {
          term.staleRelease = true
          this.stats.staleReleaseTerms++
        }
      }
    }
    return answer
  }

  #maybeClose(call: Call): void {
    if (call.faulty && call.arrivalsDue === 0 && (call.settled || call.proc.crashed)) {
      this.#openFaultyCalls.delete(call)
    }
  }

  // ——— invariants ———

  async #check(): Promise<void> {
    if (this.#violation) throw this.#violation
    let record: LeaseRecord | undefined
    let listed = false
    for (const proc of this.procs) {
      if (proc.crashed) continue
      if (proc.owesRelease) {
        throw this.#fail(
          `${proc.owner}'s acquire went unanswered and no release followed: a grant that landed unseen keeps ` +
            'the lease from everyone for a ttl',
        )
      }
      const term = proc.term
      if (!term || term.end !== undefined || proc.stalledAt(this.#t)) continue
      if (proc.renewRefusedAt >= term.start) {
        throw this.#fail(
          `${proc.owner} goes on serving after the store refused its renewal: it works on a lease another ` +
            'candidate may hold',
        )
      }
      const mono = this.#t + proc.monoOrigin
      const stepDownAt = term.info.stepDownAt()
      if (!(mono < stepDownAt)) {
        throw this.#fail(
          `${proc.owner}'s term is still running ${fmt(mono - stepDownAt)} ms past its step-down deadline ` +
            'though its loop was free: it works on when the store may already have handed the lease on',
        )
      }
      if (!listed) {
        record = (await this.store.list()).find((r) => r.name === LEASE)
        listed = true
      }
      if (!this.#heldBy(record, proc) && !term.staleRelease && this.#skewSpreadMax < this.ttlMs / 6) {
        throw this.#fail(
          `${proc.owner} runs its work outside a held term (store: ${
            record?.owner
              ? `${record.owner} until ${fmt((record.expiresAt?.getTime() ?? EPOCH) - EPOCH)}`
              : 'no lease'
          }): another candidate could be elected while it works`,
        )
      }
    }
  }

  /** Whether no other slot could take the lease from `proc` right now, by the store's own rule. */
  #heldBy(record: LeaseRecord | undefined, proc: Proc): boolean {
    if (!record?.expiresAt || record.owner !== proc.owner) return false
    const expires = record.expiresAt.getTime()
    return this.skews.every(
      (skew, slot) => slot === proc.slot || expires > Math.trunc(EPOCH + this.#t + skew),
    )
  }

  #noteSkew(): void {
    this.#skewSpreadMax = Math.max(this.#skewSpreadMax, Math.max(...this.skews) - Math.min(...this.skews))
  }

  /**
   * Two terms of different owners may overlap only when the earlier holder stalled (by at most its stalls
   * during the term), when a stale release deleted its lease (by at most its hold, as it steps down or
   * learns of the loss by then), or when wall clocks disagreed by ttl/6 or more (by at most the excess).
   */
  #checkOverlaps(): void {
    const skewExcess = Math.max(0, this.#skewSpreadMax - this.ttlMs / 6)
    for (const a of this.terms) {
      for (const b of this.terms) {
        if (
          a === b ||
          a.proc === b.proc ||
          b.start < a.start ||
          (b.start === a.start && a.proc.slot > b.proc.slot)
        )
          continue
        const overlap = Math.min(a.end ?? this.#t, b.end ?? this.#t) - b.start
        if (overlap <= 0) continue
        const aEnd = a.end ?? this.#t
        const stalled = a.proc.stalls
          .filter((s) => s.start < aEnd && s.end > a.start)
          .reduce((sum, s) => sum + (s.end - s.start), 0)
        const allowed = stalled + (a.staleRelease ? this.holdMs : 0) + (skewExcess > 0 ? skewExcess + 1 : 0)
        if (overlap > allowed) {
          throw this.#fail(
            `${a.proc.owner} (term from t=${fmt(a.start)}) and ${b.proc.owner} (from t=${fmt(b.start)}) served ` +
              `the lease together for ${fmt(overlap)} ms, beyond what stalls (${fmt(stalled)} ms), stale ` +
              `releases (${a.staleRelease}) and clock skew beyond ttl/6 (${fmt(skewExcess)} ms) explain: the ` +
              'net ran twice where the lease should have elected one',
          )
        }
        if (stalled > 0) {
          this.stats.stallOverlaps++
          this.stats.stallOverlapMaxMs = Math.max(this.stats.stallOverlapMaxMs, overlap)
          if (!a.staleRelease) {
            this.stats.stallOverlapMaxShare = Math.max(this.stats.stallOverlapMaxShare, overlap / stalled)
          }
        } else if (a.staleRelease) {
          this.stats.staleReleaseOverlaps++
          this.stats.staleReleaseOverlapMaxMs = Math.max(this.stats.staleReleaseOverlapMaxMs, overlap)
        } else {
          this.stats.skewOverlaps++
          this.stats.skewOverlapMaxMs = Math.max(this.stats.skewOverlapMaxMs, overlap)
        }
      }
    }
  }

  #note(what: string): void {
    this.#trace.push([this.#t, what])
    if (this.#trace.length > 400) this.#trace.splice(0, 200)
  }

  /** Records a violation seen inside a callback run() calls (a throw there would be caught by run()). */
  #violate(consequence: string): void {
    this.#violation ??= this.#fail(consequence)
  }

  #fail(consequence: string): InvariantError {
    return new InvariantError(`at t=${fmt(this.#t)}: ${consequence}\nrecent trace:\n${this.trace()}`)
  }
}

/** One process's handle on the shared store: every call crosses the simulated network. */
class SimStore implements LeaseStore {
  constructor(
    readonly world: World,
    readonly proc: Proc,
  ) {}

  acquire(name: string, owner: string, now: Date, ttlMs: number, options?: AcquireOptions) {
    const token = options?.token
    return this.world.call(this.proc, 'acquire', options?.signal, () =>
      this.world.store.acquire(name, owner, now, ttlMs, token === undefined ? {} : { token }),
    )
  }

  renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions) {
    return this.world.call(this.proc, 'renew', options?.signal, () =>
      this.world.store.renew(grant, now, ttlMs),
    )
  }

  release(grant: LeaseTerm, options?: LeaseCallOptions) {
    return this.world.call(this.proc, 'release', options?.signal, () => this.world.store.release(grant))
  }

  list() {
    return this.world.store.list()
  }

  /** A read for the waiting line only: it crosses no modelled network (its faults would prove nothing). */
  get(name: string) {
    return this.world.store.get(name)
  }
}

/** Lets every queued microtask run: Node drains them all before the next macrotask. */
function drain(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function describeFault(fault: SimFault): string {
  return 'ms' in fault ? `${fault.kind} ${fault.ms} ms` : fault.kind
}

function fmt(ms: number): string {
  return Number.isInteger(ms) ? String(ms) : ms.toFixed(3)
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
