/**
 * The holder's side of a net's controls (control/net-control-store.ts), for one term: the one read at
 * each tick (is the net paused?), the paused slot's record in the ledger, and a poll at a modest interval
 * (CONTROL_POLL_MS, through the clock) that hands the scheduler what operators asked for meanwhile — a
 * run-now request, a catch-up request, a pause with `--abort` while a pass runs.
 *
 * A control read that fails or does not answer within its bound fails OPEN: the slot runs as scheduled
 * and the failure is logged. Pausing is an operator convenience layered over a schedule that must keep
 * running; failing closed would turn a store blip into work not done (and the ledger, on the same store,
 * still decides that each slot runs once). A malformed control document reads as not paused (reported by
 * the store twin).
 *
 * What it is not: the pass loop (scheduler.ts runs the jobs it is handed, one at a time) or the store.
 */
import type { Clock } from '../lease/clock.js'
import { waitFor } from '../lease/wait.js'
import {
  type ControlRequest,
  type ControlRequestKind,
  describePause,
  type NetControl,
  type NetControlStore,
  type NetPause,
} from '../control/net-control-store.js'
import { historyUntil, type RunLedger } from '../runs/run-ledger.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import { callBoundSignal } from './term-call-bound.js'

/** How often the holder reads its net's controls between ticks (a run-now request waits at most this). */
export const CONTROL_POLL_MS = 5_000
/** The most paused slots one catch-up runs (oldest first); the rest stay recorded `paused`. */
export const CATCH_UP_LIMIT = 20

/** A request the holder runs as a job between passes. */
export interface ControlJob {
  kind: ControlRequestKind
  request: ControlRequest
}

export interface HolderControlsOptions {
  net: string
  controls: NetControlStore
  ledger: RunLedger
  owner: string
  fence: number
  clock: Clock
  log: Logger
  metrics?: WorkerMetrics | undefined
  term: AbortSignal
  /** Between two polls (ms); CONTROL_POLL_MS by default. */
  pollMs?: number | undefined
  /** The bound of one read (ms): the term's renewal cadence (termCallBoundMs). */
  boundMs: number
  /** Runs kept per net: how far back a catch-up looks for paused slots. */
  runHistory: number
  /** A request seen by the poll (the same one may be handed again until it is taken). */
  onRequest(job: ControlJob): void
  /** A pause with `abort` seen by the poll: the pass in flight, if it started before `pause.at`, ends. */
  onAbort(pause: NetPause): void
}

export interface HolderControls {
  /** The pause in force for the slot at hand, or undefined (not paused, or the read failed: fail open). */
  pausedNow(slot: Date): Promise<NetPause | undefined>
  /** Records `slot` `paused` in the ledger (reason: who and why); a slot with a record is left alone. */
  accountPaused(slot: Date, pause: NetPause): Promise<void>
  /** The slots recorded `paused` within the kept history, oldest first, at most CATCH_UP_LIMIT. */
  pausedSlots(): Promise<Date[]>
  /** Clears a handled request (compare-and-clear on its id); a failure is logged, the next poll retries. */
  take(job: ControlJob): Promise<void>
  /** Resolves once the poll loop has stopped (when the term ends). */
  stopped: Promise<void>
}

/** Starts the poll for one term (it stops when `term` aborts); see the module doc. */
export function startHolderControls(o: HolderControlsOptions): HolderControls {
  const read = async (why: string): Promise<NetControl | undefined> => {
    try {
      const signal = callBoundSignal(o.boundMs, o.term)
      return await o.controls.get(o.net, o.clock.now(), { signal })
    } catch (error) {
      if (!o.term.aborted)
        o.log.warn({ err: error }, `could not read the net's controls (${why}); running as scheduled`)
      return undefined
    }
  }
  return {
    pausedNow: async () => (await read('tick'))?.paused,
    accountPaused: (slot, pause) => accountPaused(o, slot, pause),
    pausedSlots: () => pausedSlots(o),
    take: (job) => take(o, job),
    stopped: pollControls(o, () => read('poll')),
  }
}

async function pollControls(
  o: HolderControlsOptions,
  read: () => Promise<NetControl | undefined>,
): Promise<void> {
  while (await waitFor(o.pollMs ?? CONTROL_POLL_MS, o.term, o.clock)) {
    const control = await read()
    if (!control || o.term.aborted) continue
    if (control.paused?.abort) o.onAbort(control.paused)
    if (control.run) o.onRequest({ kind: 'run', request: control.run })
    if (control.catchUp) o.onRequest({ kind: 'catch-up', request: control.catchUp })
  }
}

async function accountPaused(o: HolderControlsOptions, slot: Date, pause: NetPause): Promise<void> {
  o.metrics?.skippedTicks.inc({ net: o.net, reason: 'paused' })
  const at = slot.toISOString()
  const reason = describePause(pause)
  try {
    const { net, owner, fence } = o
    const signal = callBoundSignal(o.boundMs, o.term)
    await o.ledger.account(
      { net, slot, owner, fence, at: o.clock.now(), outcome: 'paused', reason },
      { signal },
    )
    o.log.info({ slot: at, reason }, `slot not run, recorded paused: ${reason}`)
  } catch (error) {
    o.log.warn({ slot: at, err: error }, 'could not record a paused slot: the ledger did not answer')
  }
}

async function pausedSlots(o: HolderControlsOptions): Promise<Date[]> {
  const signal = callBoundSignal(o.boundMs, o.term)
  // A paused record dated past now is no tick that came: it would fill the read and be run as a slot.
  const until = historyUntil(o.clock.now())
  const runs = await o.ledger.history(o.net, Math.max(1, o.runHistory), { signal, until })
  return runs
    .filter((run) => run.outcome === 'paused' && !run.manual)
    .map((run) => run.slot)
    .sort((a, b) => a.getTime() - b.getTime())
    .slice(0, CATCH_UP_LIMIT)
}

async function take(o: HolderControlsOptions, job: ControlJob): Promise<void> {
  try {
    const signal = callBoundSignal(o.boundMs)
    await o.controls.take(o.net, job.kind, job.request.id, { signal })
  } catch (error) {
    o.log.warn(
      { err: error, request: job.request.id },
      `could not clear the ${job.kind} request; it is seen again`,
    )
  }
}
