/**
 * The holder's side of a net's controls (control/net-control-store.ts), for one term: the one read at
 * each tick (is the net paused?), the paused slot's record in the ledger, and the replica's poll
 * (control-poll.ts: woken by a notice heard on the renewal, else every interval; one read for all its
 * nets) that tells the scheduler, when it asks (`nextNotice`; the term's first answer is read at once),
 * what operators asked for meanwhile — a run-now request, a catch-up request, a backfill request, a pause
 * with `--abort` while a pass runs — and a backfill request's reads and progress writes (backfill-job.ts).
 *
 * A control read that fails or does not answer within its bound fails OPEN: the slot runs as scheduled
 * and the failure is logged. Pausing is an operator convenience layered over a schedule that must keep
 * running; failing closed would turn a store blip into work not done (and the ledger, on the same store,
 * still decides that each slot runs once). A malformed control document reads as not paused (reported by
 * the store twin).
 *
 * What it is not: the pass loop (term-scheduler.ts runs the requests it is told of, one at a time) or the store.
 */
import {
  describePause,
  type NetControl,
  type NetControlStore,
  type NetPause,
} from '../control/net-control-store.js'
import { historyUntil } from '../runs/run-ledger.js'
import type { ControlPoll } from './control-poll.js'
import type { ServedTerm } from './served-term.js'
import type { BackfillStep, ControlJob, ControlNotice, PauseStep, RequestJob } from './term-steps.js'
import { backfillPending, type BackfillSlotEnd, type BackfillStatus } from '../control/backfill-request.js'

/** The most paused slots one catch-up runs (oldest first); the rest stay recorded `paused`. */
export const CATCH_UP_LIMIT = 20

/** The holder's controls for one term; see the module's doc. */
export class HolderControls implements PauseStep, BackfillStep {
  readonly #term: ServedTerm
  readonly #controls: NetControlStore
  readonly #poll: ControlPoll
  /** The term's first notice is read at once: a request left before the term began is not kept waiting. */
  #started = false

  /** `poll`: the replica's poll of its nets' controls (control-poll.ts), which `nextNotice` waits for. */
  constructor(term: ServedTerm, controls: NetControlStore, poll: ControlPoll) {
    this.#term = term
    this.#controls = controls
    this.#poll = poll
  }

  async pausedNow(_slot: Date): Promise<NetPause | undefined> {
    return (await this.#read('tick'))?.paused
  }

  async accountPaused(slot: Date, pause: NetPause): Promise<void> {
    const { setting, fence, net } = this.#term
    setting.metrics?.skippedTicks.inc({ net, reason: 'paused' })
    const at = slot.toISOString()
    const reason = describePause(pause)
    try {
      const entry = { net, slot, owner: setting.owner, fence, at: setting.clock.now(), reason }
      await setting.ledger.account(
        { ...entry, outcome: 'paused' },
        { signal: this.#term.callSignal('serving') },
      )
      this.#term.log.info({ slot: at, reason }, `slot not run, recorded paused: ${reason}`)
    } catch (error) {
      this.#term.log.warn(
        { slot: at, err: error },
        'could not record a paused slot: the ledger did not answer',
      )
    }
  }

  async pausedSlots(): Promise<Date[]> {
    const { setting, net } = this.#term
    // A paused record dated past now is no tick that came: it would fill the read and be run as a slot.
    const until = historyUntil(setting.clock.now())
    const signal = this.#term.callSignal('serving')
    const runs = await setting.ledger.history(net, Math.max(1, setting.runHistory), { signal, until })
    return runs
      .filter((run) => run.outcome === 'paused' && !run.manual)
      .map((run) => run.slot)
      .sort((a, b) => a.getTime() - b.getTime())
      .slice(0, CATCH_UP_LIMIT)
  }

  async take(job: RequestJob): Promise<void> {
    try {
      const signal = this.#term.callSignal('none')
      await this.#controls.take(this.#term.net, job.kind, job.request.id, { signal })
    } catch (error) {
      this.#term.log.warn(
        { err: error, request: job.request.id },
        `could not clear the ${job.kind} request; it is seen again`,
      )
    }
  }

  async nextNotice(): Promise<ControlNotice | undefined> {
    const { serving, net } = this.#term
    let control: NetControl | undefined
    try {
      const first = !this.#started
      this.#started = true
      control = first
        ? await this.#poll.read(net, this.#term.boundMs, serving)
        : await this.#poll.next(net, serving, this.#term.boundMs)
    } catch (error) {
      this.#cannotRead(error, 'poll')
      return serving.aborted ? undefined : { requests: [] }
    }
    if (!control || serving.aborted) return undefined
    const requests: ControlJob[] = []
    if (control.run) requests.push({ kind: 'run', request: control.run })
    if (control.catchUp) requests.push({ kind: 'catch-up', request: control.catchUp })
    if (backfillPending(control.backfill)) requests.push({ kind: 'backfill', request: control.backfill })
    return { ...(control.paused?.abort ? { abort: control.paused } : {}), requests }
  }

  async current(): Promise<NetControl | undefined> {
    try {
      return await this.#poll.read(this.#term.net, this.#term.boundMs, this.#term.serving)
    } catch (error) {
      this.#cannotCall(
        error,
        undefined,
        'could not read the net’s controls; the backfill goes on at the next poll',
      )
      return undefined
    }
  }

  async slots(id: string): Promise<Date[] | undefined> {
    try {
      const signal = this.#term.callSignal('serving')
      return await this.#controls.backfillSlots(this.#term.net, id, { signal })
    } catch (error) {
      this.#cannotCall(error, id, 'could not read the backfill’s slots; the next poll tries again')
      return undefined
    }
  }

  async advance(id: string, index: number, end: BackfillSlotEnd): Promise<BackfillStatus | undefined> {
    const { net, setting } = this.#term
    try {
      // Not ended with the term: the slot ran, and a word cut off mid-call would leave the cursor unsure.
      const signal = this.#term.callSignal('none')
      const advance = { id, index, end, owner: setting.owner }
      return await this.#controls.advanceBackfill(net, advance, setting.clock.now(), { signal })
    } catch (error) {
      this.#cannotCall(error, id, 'could not move the backfill past its slot; the next poll goes on from it')
      return undefined
    }
  }

  async end(id: string, reason: string): Promise<void> {
    const { net, setting } = this.#term
    try {
      const signal = this.#term.callSignal('none')
      const cancel = { id, by: setting.owner, reason }
      await this.#controls.cancelBackfill(net, cancel, setting.clock.now(), { signal })
    } catch (error) {
      this.#cannotCall(error, id, 'could not end the backfill; the next poll ends it again')
    }
  }

  /** A backfill call failed: said (unless the term is over); the next poll goes on from the store. */
  #cannotCall(error: unknown, id: string | undefined, what: string): void {
    if (!this.#term.serving.aborted)
      this.#term.log.warn({ err: error, ...(id ? { backfill: id } : {}) }, what)
  }

  async #read(why: string): Promise<NetControl | undefined> {
    try {
      // With the other nets' whose slots fall due now: one read for all (control-poll.ts).
      return await this.#poll.read(this.#term.net, this.#term.boundMs, this.#term.serving)
    } catch (error) {
      this.#cannotRead(error, why)
      return undefined
    }
  }

  /** A control read failed: said (unless the term is over), and the net runs as scheduled. */
  #cannotRead(error: unknown, why: string): void {
    if (!this.#term.serving.aborted)
      this.#term.log.warn({ err: error }, `could not read the net's controls (${why}); running as scheduled`)
  }
}
