/**
 * What operators asked a term for, run as jobs between its passes: a run-now request runs as a manual
 * slot (its own ledger key, `<net>@manual@<ISO>`), a catch-up request runs the slots recorded `paused`
 * (oldest first, at most CATCH_UP_LIMIT), a backfill request runs the slot at its cursor and, while it has
 * more, waits here again (backfill-job.ts). Requests wait here, once per id while they wait or run.
 *
 * A request is taken (cleared in the store) only after its claim had an answer: a holder that dies while
 * running it leaves it for the successor, whose claim of the same manual slot finds it ran (`slot-taken`)
 * and takes it — so a request runs once. A manual run is not held back by a pause: an operator asked.
 *
 * Not the pass loop: the scheduler (term-scheduler.ts) decides when a job runs, one at a time with the
 * passes, and hands each its abort (a pause with --abort ends it).
 */
import { BackfillJobs } from './backfill-job.js'
import type { BackfillStep, ControlJob, PauseStep, RequestJob } from './term-steps.js'
import type { ServedTerm } from './served-term.js'
import { runSlotPass } from './slot-pass.js'
import { countUnrun } from './unrun-slot.js'

/** The requests a term keeps waiting, and how each runs. */
export class ControlRequests {
  readonly #term: ServedTerm
  readonly #pause: PauseStep
  readonly #backfill: BackfillJobs | undefined
  readonly #waiting: ControlJob[] = []
  /** Requests waiting or running, by id: a poll that sees one again does not queue it twice. */
  readonly #active = new Set<string>()

  constructor(term: ServedTerm, pause: PauseStep, backfill?: BackfillStep) {
    this.#term = term
    this.#pause = pause
    this.#backfill = backfill ? new BackfillJobs(term, backfill) : undefined
  }

  /** Keeps `job` waiting (once per request id while it waits or runs). */
  queue(job: ControlJob): void {
    if (this.#active.has(job.request.id)) return
    this.#active.add(job.request.id)
    this.#waiting.push(job)
  }

  /** The next waiting job, taken off the queue; undefined when none waits. */
  next(): ControlJob | undefined {
    return this.#waiting.shift()
  }

  /** Runs `job` (its passes end with `abort`); the request is taken once its claims had answers. Never rejects. */
  async run(job: ControlJob, abort: AbortSignal): Promise<void> {
    let more = false
    try {
      if (job.kind === 'backfill') more = (await this.#backfill?.runNext(job.request.id, abort)) === true
      else if (job.kind === 'run') await this.#runNow(job, abort)
      else await this.#catchUp(job, abort)
    } finally {
      this.#active.delete(job.request.id)
    }
    // The backfill's next slot waits behind what came meanwhile (a buffered tick runs first).
    if (more) this.queue(job)
  }

  async #runNow(job: RequestJob, abort: AbortSignal): Promise<void> {
    const { request } = job
    const who = { request: request.id, by: request.by, reason: request.reason }
    const log = this.#term.log
    log.info({ ...who, slot: request.at.toISOString() }, 'run requested: running a manual pass')
    const result = await this.#term.withPass(request.at, { manual: true, jobAbort: abort }, runSlotPass)
    if (result.kind === 'slot-taken') log.debug(who, 'the requested manual run already ran')
    if (result.kind !== 'claim-failed') await this.#pause.take(job)
    else countUnrun(this.#term, result, request.at)
  }

  async #catchUp(job: RequestJob, abort: AbortSignal): Promise<void> {
    const { request } = job
    this.#term.log.info(
      { request: request.id, by: request.by, reason: request.reason },
      'catch-up requested: running the slots recorded paused',
    )
    if (await this.#runPausedSlots(abort)) await this.#pause.take(job)
  }

  /** Runs the paused slots oldest first; resolves false when they could not be listed (the next poll retries). */
  async #runPausedSlots(abort: AbortSignal): Promise<boolean> {
    const log = this.#term.log
    let slots: Date[]
    try {
      slots = await this.#pause.pausedSlots()
    } catch (error) {
      log.warn({ err: error }, 'could not list the paused slots; the catch-up is tried again')
      return false
    }
    for (const slot of slots) {
      if (!this.#term.going()) return false
      if (await this.#pause.pausedNow(slot)) {
        log.info({}, 'catch-up dropped: the net was paused again')
        return true
      }
      countUnrun(
        this.#term,
        await this.#term.withPass(slot, { jobAbort: abort, reason: 'catch-up' }, runSlotPass),
        slot,
      )
    }
    log.info({ slots: slots.length }, 'catch-up done')
    return true
  }
}
