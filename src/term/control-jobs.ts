/**
 * What a term does with its net's controls, between and around its passes: the gate at each slot (a
 * paused net's slot is recorded `paused`, not run), the jobs operators asked for — a run-now request runs
 * as a manual slot (its own ledger key, `<net>@manual@<ISO>`), a catch-up request runs the slots recorded
 * `paused` (oldest first, at most CATCH_UP_LIMIT) — and a pause with `--abort` ending the job in flight.
 *
 * A request is taken (cleared in the store) only after its claim had an answer: a holder that dies while
 * running it leaves it for the successor, whose claim of the same manual slot finds it ran (`slot-taken`)
 * and takes it — so a request runs once. A manual run is not held back by a pause: an operator asked.
 *
 * Not the pass loop: scheduler.ts runs one job at a time and hands this module the ones it keeps waiting.
 */
import { describePause, type NetPause } from '../control/net-control-store.js'
import type { TermInfo } from '../lease/run.js'
import { type ControlJob, type HolderControls, startHolderControls } from './holder-controls.js'
import type { Logger } from '../observe/logger.js'
import type { NetConfig } from '../config/worker-config.js'
import type { NetControlStore } from '../control/net-control-store.js'
import type { Clock } from '../lease/clock.js'
import type { RunLedger } from '../runs/run-ledger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import { runSlotPass, type SlotPassResult, type SlotPassSpec } from './slot-pass.js'
import { termCallBoundMs } from '../lease/call-bound.js'

/** The job in flight, as the scheduler holds it: when it started, and its own abort. */
export interface JobInFlight {
  at: Date
  abort: AbortController
}

export interface ControlJobs {
  /** Runs `pass` for `slot` unless the net is paused now (then records the slot `paused`). */
  scheduled(slot: Date, pass: () => Promise<void>): Promise<void>
  /** Keeps `job` waiting (once per request id while it waits or runs). */
  queue(job: ControlJob): void
  /** Starts the next waiting job through `start`, if any; resolves whether one was started. */
  next(start: (work: () => Promise<void>) => void): boolean
  /** Resolves once the term's control poll has stopped. */
  stopped: Promise<void>
}

/** What the jobs read of the net's campaign (scheduler.ts's NetCampaignOptions). */
export interface ControlJobsOptions {
  net: NetConfig
  controls?: NetControlStore | undefined
  controlPollMs?: number | undefined
  ledger: RunLedger
  owner: string
  runHistory: number
  clock: Clock
  metrics?: WorkerMetrics | undefined
}

export interface ControlJobsSetting {
  options: ControlJobsOptions
  log: Logger
  term: AbortSignal
  info: TermInfo
  spec(slot: Date, manual?: boolean): SlotPassSpec
  /** A request the poll saw: the scheduler queues it, and starts it when no job runs. */
  onRequest(job: ControlJob): void
  current(): JobInFlight | undefined
  /** Counts and logs what a claim came to (a slot taken, a claim unanswered). */
  countSkip(result: SlotPassResult, slot: Date): void
}

/** The term's control jobs; without a control store (bench), slots run as scheduled and nothing is polled. */
export function controlJobs(s: ControlJobsSetting): ControlJobs {
  const { options, log, term, info } = s
  const holder = options.controls
    ? startHolderControls({
        net: options.net.definition.name,
        controls: options.controls,
        ledger: options.ledger,
        owner: options.owner,
        fence: info.fence,
        clock: options.clock,
        log,
        metrics: options.metrics,
        term,
        pollMs: options.controlPollMs,
        boundMs: termCallBoundMs(options.net.pacing.ttlMs),
        runHistory: options.runHistory,
        onRequest: s.onRequest,
        onAbort: (pause) => abortJob(s, pause),
      })
    : undefined
  const waiting: ControlJob[] = []
  const active = new Set<string>()
  return {
    async scheduled(slot, pass) {
      const pause = await holder?.pausedNow(slot)
      if (pause && holder) return holder.accountPaused(slot, pause)
      return pass()
    },
    queue(job) {
      if (active.has(job.request.id)) return
      active.add(job.request.id)
      waiting.push(job)
    },
    next(start) {
      const job = waiting.shift()
      if (!job || !holder) return false
      start(() => runJob(s, holder, job).finally(() => active.delete(job.request.id)))
      return true
    },
    stopped: holder?.stopped ?? Promise.resolve(),
  }
}

function abortJob(s: ControlJobsSetting, pause: NetPause): void {
  const job = s.current()
  if (!job || job.abort.signal.aborted || job.at.getTime() >= pause.at.getTime()) return
  const why = describePause(pause)
  s.log.warn({ pausedAt: pause.at.toISOString() }, `aborting the pass in flight: ${why} (--abort)`)
  job.abort.abort(new Error(`aborted: ${why}`))
}

async function runJob(s: ControlJobsSetting, holder: HolderControls, job: ControlJob): Promise<void> {
  const { request } = job
  const who = { request: request.id, by: request.by, reason: request.reason }
  if (job.kind === 'run') {
    s.log.info({ ...who, slot: request.at.toISOString() }, 'run requested: running a manual pass')
    const result = await runSlotPass(s.spec(request.at, true))
    if (result.kind === 'slot-taken') s.log.debug(who, 'the requested manual run already ran')
    if (result.kind !== 'claim-failed') await holder.take(job)
    else s.countSkip(result, request.at)
    return
  }
  s.log.info(who, 'catch-up requested: running the slots recorded paused')
  if (await runPausedSlots(s, holder)) await holder.take(job)
}

/** Runs the paused slots oldest first; resolves false when they could not be listed (the next poll retries). */
async function runPausedSlots(s: ControlJobsSetting, holder: HolderControls): Promise<boolean> {
  let slots: Date[]
  try {
    slots = await holder.pausedSlots()
  } catch (error) {
    s.log.warn({ err: error }, 'could not list the paused slots; the catch-up is tried again')
    return false
  }
  for (const slot of slots) {
    if (s.term.aborted || !s.info.live()) return false
    if (await holder.pausedNow(slot)) {
      s.log.info({}, 'catch-up dropped: the net was paused again')
      return true
    }
    s.countSkip(await runSlotPass(s.spec(slot)), slot)
  }
  s.log.info({ slots: slots.length }, 'catch-up done')
  return true
}
