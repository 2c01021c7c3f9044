/**
 * A term's pass loop, with its state in one place: the work in flight (a pass, a catch-up round or an
 * operator's request: one at a time), the slot buffered behind it, and whether a look back waits for it to
 * end. It pulls from three sources — the ticker's slots, the recovery's look backs, the controls' notices —
 * and calls the term's declared steps (term-steps.ts) around each slot; no step calls back into it.
 *
 * A tick that finds the term past its step-down instant starts nothing (checked synchronously, so a blocked
 * event loop cannot start a pass late). A tick that finds work in flight follows the net's OVERLAP
 * (nets/net.ts): `skip` records its slot `skipped`; `buffer-one` keeps it (the newest only: the slot it
 * replaces is recorded `skipped`), `buffer-all` keeps each (at most CATCH_UP_MAX, the oldest beyond it
 * recorded `skipped`), and both run what they keep when the work ends; `replace` aborts the scheduled work
 * in flight and keeps its slot to run next (a backfill's slot in flight is not the net's own work: `skip`
 * and `replace` keep the tick, as buffer-one does, to run once that slot ends); `allow` starts the slot's pass at once beside the work. In this
 * term only — a term that ends, or is past its step-down instant, drops what waits for the successor's
 * catch-up. Every slot let go is in the ledger and counted.
 *
 * When the work in flight ends, the oldest buffered slot runs first, then a look back that came due meanwhile,
 * then the next operator's request. A slot's claim, a skip's record or a catch-up's read the ledger did not
 * answer leaves the term owing a look back (ledger-recovery.ts), made as a catch-up round (`recovery`).
 *
 * What it is not: the campaign (net-runner.ts begins and ends terms) or a pass (slot-pass.ts).
 */
import type { NetPause } from '../control/net-control-store.js'
import { describePause } from '../control/net-control-store.js'
import { ControlRequests } from './control-requests.js'
import type { ControlJob } from './term-steps.js'
import type { ServedTerm } from './served-term.js'
import { runSlotPass, type SlotPassResult, skipSlot } from './slot-pass.js'
import type { SlotTicker } from './slot-ticker.js'
import type { LookBack, TermSteps } from './term-steps.js'
import { countUnrun } from './unrun-slot.js'

/** How many more look backs check a lost slot the ledger has no record of yet (its claim may land late). */
const UNSETTLED_LOOK_BACKS = 3

/** How a scheduled slot runs: the job's abort, a catch-up's slot, a recovery's (`again`), a retake's number. */
interface ScheduledSlotHow {
  abort?: AbortSignal | undefined
  /** Run by a catch-up round (the election's or a recovery's): the pass is told `catch-up`. */
  caughtUp?: boolean
  again?: boolean
  retake?: number | undefined
}

/**
 * The work in flight: when it started, its own abort (a pause with --abort ends its passes; OVERLAP=replace
 * a tick's pass), and what it is: only a tick's pass (`slot`) is replaced, never a catch-up round (its
 * slots are inherited, not overlapping) or an operator's request.
 */
interface WorkInFlight {
  at: Date
  abort: AbortController
  done: Promise<void>
  kind: 'slot' | 'catch-up' | 'request' | 'backfill'
}

/** One term's pass loop; see the module's doc. `start` once, `settled` once the term ended. */
export class TermScheduler {
  readonly #term: ServedTerm
  readonly #steps: TermSteps
  readonly #ticker: SlotTicker
  readonly #requests: ControlRequests | undefined
  #work: WorkInFlight | undefined
  /** Slots kept for when the work ends, oldest first (one under buffer-one and replace). */
  #buffered: Date[] = []
  /** OVERLAP=allow's passes running beside the work in flight, each with its own abort (pause --abort). */
  readonly #beside = new Map<Promise<unknown>, { at: Date; abort: AbortController }>()
  /** A look back came due while work was in flight: it starts when that work ends, never starved. */
  #lookBackDue = false
  readonly #skips = new Set<Promise<void>>()
  #loops: Promise<unknown> = Promise.resolve()

  constructor(term: ServedTerm, steps: TermSteps, ticker: SlotTicker) {
    this.#term = term
    this.#steps = steps
    this.#ticker = ticker
    this.#requests = steps.pause ? new ControlRequests(term, steps.pause, steps.backfill) : undefined
  }

  /** The election's catch-up (the slots due at `elected`), then the ticks, look backs and requests. */
  start(elected: Date): void {
    this.#lookBack({ now: elected, occasion: 'election', lost: [] })
    this.#loops = Promise.all([this.#serveTicks(), this.#serveLookBacks(), this.#serveNotices()])
  }

  /** Stops the ticks and look backs; resolves once the work in flight and every skip's record settled. */
  async settled(): Promise<void> {
    this.#ticker.stop()
    this.#steps.recovery.stop()
    // A work's end may start the buffered slot's pass: wait until neither work nor a record is left.
    while (this.#work || this.#skips.size > 0 || this.#beside.size > 0)
      await Promise.all([this.#work?.done, ...this.#skips, ...this.#beside.keys()])
    await this.#loops
  }

  async #serveTicks(): Promise<void> {
    for (let slot = await this.#ticker.next(); slot; slot = await this.#ticker.next()) this.#tick(slot)
  }

  async #serveLookBacks(): Promise<void> {
    const { recovery } = this.#steps
    while (await recovery.due()) {
      if (this.#work) this.#lookBackDue = true
      else this.#lookBackNow()
    }
  }

  async #serveNotices(): Promise<void> {
    const { pause } = this.#steps
    if (!pause) return
    for (let notice = await pause.nextNotice(); notice; notice = await pause.nextNotice()) {
      if (notice.abort) this.#abortWork(notice.abort)
      for (const job of notice.requests) this.#request(job)
    }
  }

  #tick(slot: Date): void {
    const term = this.#term
    if (term.serving.aborted) return
    if (!term.live()) {
      term.setting.metrics?.skippedTicks.inc({ net: term.net, reason: 'deadline' })
      return
    }
    if (this.#work) this.#overlap(slot)
    else this.#occupy((abort) => this.#scheduledSlot(slot, { abort }), 'slot')
  }

  #overlap(slot: Date): void {
    const { overlap, catchUpMax } = this.#term.setting.net
    // A backfill's slot in flight is an operator's extra work, not the net's own: the tick waits for it.
    if (overlap === 'skip' && this.#work?.kind !== 'backfill') {
      this.#skip(slot, 'the previous pass is still running')
      return
    }
    if (overlap === 'allow') {
      this.#runBeside(slot)
      return
    }
    if (overlap === 'replace') this.#replaceWork(slot)
    if (overlap !== 'buffer-all')
      for (const older of this.#buffered.splice(0))
        this.#skip(older, 'a newer tick replaced it while the previous pass runs')
    this.#buffered.push(slot)
    while (this.#buffered.length > Math.max(1, catchUpMax))
      this.#skip(
        this.#buffered.shift()!,
        `OVERLAP=buffer-all keeps at most CATCH_UP_MAX (${catchUpMax}) slots waiting`,
      )
    this.#term.log.debug(
      { slot: slot.toISOString(), waiting: this.#buffered.length },
      'tick buffered: its slot runs when the previous pass ends',
    )
  }

  /** OVERLAP=replace: a tick's pass in flight is aborted for `slot` (see WorkInFlight). */
  #replaceWork(slot: Date): void {
    const work = this.#work
    if (work?.kind !== 'slot' || work.abort.signal.aborted) return
    const why = `replaced: the slot of ${slot.toISOString()} replaces it (OVERLAP=replace)`
    this.#term.log.info({ slot: slot.toISOString() }, `aborting the pass in flight: ${why}`)
    work.abort.abort(new Error(`aborted: ${why}`))
  }

  /** OVERLAP=allow: `slot`'s pass starts now, beside the work in flight (the ledger still claims it once). */
  #runBeside(slot: Date): void {
    const abort = new AbortController()
    const pass: Promise<unknown> = this.#scheduledSlot(slot, { abort: abort.signal }).finally(() =>
      this.#beside.delete(pass),
    )
    this.#beside.set(pass, { at: this.#term.setting.clock.now(), abort })
  }

  /** Runs `work` as the work in flight; when it ends, what waits is served (see the module's doc). */
  #occupy(work: (abort: AbortSignal) => Promise<unknown>, kind: WorkInFlight['kind']): void {
    const abort = new AbortController()
    const at = this.#term.setting.clock.now()
    const done = work(abort.signal)
      .then(() => undefined)
      .finally(() => this.#workEnded())
    this.#work = { at, abort, done, kind }
  }

  #workEnded(): void {
    this.#work = undefined
    if (this.#term.serving.aborted) {
      for (const slot of this.#buffered.splice(0))
        this.#term.log.debug({ slot: slot.toISOString() }, 'buffered slot dropped: the term ended')
      return
    }
    const next = this.#buffered.shift()
    if (next) this.#tick(next)
    else if (this.#term.going()) this.#nextWork()
  }

  #nextWork(): void {
    const { recovery } = this.#steps
    const due = this.#lookBackDue
    this.#lookBackDue = false
    if (due && recovery.owed()) this.#lookBackNow()
    else this.#startRequest()
  }

  #request(job: ControlJob): void {
    this.#requests?.queue(job)
    if (!this.#work && this.#term.going()) this.#startRequest()
  }

  #startRequest(): void {
    const requests = this.#requests
    const job = requests?.next()
    if (requests && job)
      this.#occupy((abort) => requests.run(job, abort), job.kind === 'backfill' ? 'backfill' : 'request')
  }

  /** A pause with --abort ends the work in flight, and OVERLAP=allow's passes beside it, that started before it. */
  #abortWork(pause: NetPause): void {
    const why = describePause(pause)
    for (const work of [this.#work, ...this.#beside.values()]) {
      if (!work || work.abort.signal.aborted || work.at.getTime() >= pause.at.getTime()) continue
      this.#term.log.warn(
        { pausedAt: pause.at.toISOString() },
        `aborting the pass in flight: ${why} (--abort)`,
      )
      work.abort.abort(new Error(`aborted: ${why}`))
    }
  }

  /** The recovery's look back, from now, with the slots it owes. */
  #lookBackNow(): void {
    const lost = this.#steps.recovery.take()
    // On the ticks' clock (store-clock.ts): a look back serves no slot before its tick would.
    this.#lookBack({ now: this.#ticker.now(), occasion: 'recovery', lost })
  }

  /** A catch-up round from `at`, as the term's work; a ledger that did not answer leaves a look back owed. */
  #lookBack(at: LookBack): void {
    if (!this.#term.going()) return
    this.#occupy((abort) => this.#catchUp(at, abort), 'catch-up')
  }

  async #catchUp(at: LookBack, abort: AbortSignal): Promise<void> {
    const round = await this.#steps.catchUp.plan(at)
    const runs = { ran: 0, taken: 0, left: 0 }
    for (const [index, slot] of round.run.entries()) {
      if (!this.#term.working()) {
        runs.left = round.run.length - index
        break
      }
      const retake = round.retakes?.get(slot.getTime())
      const how = { abort, caughtUp: true, again: at.occasion === 'recovery', retake }
      const result = await this.#scheduledSlot(slot, how)
      if (result?.kind === 'ran') runs.ran++
      else if (result?.kind === 'slot-taken') runs.taken++
    }
    const end = round.end(runs)
    const { recovery } = this.#steps
    for (const record of end.unsettled)
      if ((record.tries ?? 0) < UNSETTLED_LOOK_BACKS)
        recovery.owe({ ...record, tries: (record.tries ?? 0) + 1 })
    if (end.settled) return
    recovery.owe()
    for (const record of at.lost) recovery.owe(record)
  }

  /**
   * A scheduled slot's pass unless a step holds it back (paused, deferred: recorded so, undefined). A
   * recovery's slot (`again`) was counted at its tick already: it only owes a look back on failure. A
   * retake's slot takes over the older term's unfinished run instead of claiming (retake.ts).
   */
  async #scheduledSlot(slot: Date, how: ScheduledSlotHow = {}): Promise<SlotPassResult | undefined> {
    const { pause, deferral } = this.#steps
    const paused = await pause?.pausedNow(slot)
    if (paused && pause) return void (await pause.accountPaused(slot, paused))
    if (await deferral?.deferred(slot)) return undefined
    const reason = how.caughtUp ? 'catch-up' : 'tick'
    const result = await this.#term.withPass(
      slot,
      { jobAbort: how.abort, retake: how.retake, reason },
      runSlotPass,
    )
    if (!how.again) countUnrun(this.#term, result, slot)
    if (result.kind === 'claim-failed') this.#steps.recovery.owe({ slot })
    else if (result.kind === 'ran' && result.unrecorded)
      this.#steps.recovery.owe({ slot, end: result.unrecorded })
    return result
  }

  /** Records a slot let go for overlap `skipped` (counted `overlap`); a write unanswered owes a look back. */
  #skip(slot: Date, why: string): void {
    const term = this.#term
    term.setting.metrics?.skippedTicks.inc({ net: term.net, reason: 'overlap' })
    const at = slot.toISOString()
    term.log.debug({ slot: at }, `slot skipped, recorded skipped in the ledger: ${why}`)
    const write: Promise<void> = term
      .withPass(slot, { jobAbort: this.#work?.abort.signal }, skipSlot)
      .then((result) => {
        if (result.kind === 'skipped' && result.unrecorded)
          this.#steps.recovery.owe({ slot, end: result.unrecorded })
        if (result.kind !== 'claim-failed') return
        term.log.warn(
          { slot: at, err: result.error },
          'could not record a skipped slot: the ledger did not answer; the term looks back once it does',
        )
        this.#steps.recovery.owe({ slot })
      })
      .finally(() => this.#skips.delete(write))
    this.#skips.add(write)
  }
}
