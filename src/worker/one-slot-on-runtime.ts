/**
 * One `once` slot on an open runtime (runtime.ts): the store, the ledger, the forge and the net's set-up
 * it opened, wired into runOnce (once.ts) the one way — so `leasecron once` (cli/once.ts), a serverless
 * trigger (serverless/) and anything else that runs a slot from a runtime run the same claim, attempts
 * and release, and say a never-connected Mongo's real cause the same way (connect-cause.ts).
 *
 * Not the runtime's owner: it opens and closes nothing (a warm serverless instance keeps its runtime).
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { type Clock, systemClock } from '../lease/clock.js'
import { type ClockCheck, runtimeClockCheck } from '../term/clock-check.js'
import { withConnectCause } from './connect-cause.js'
import { actingNet } from './installation-nets.js'
import { waitFor } from '../lease/wait.js'
import { jitteredStart } from '../term/slot-spread.js'
import type { Logger } from '../observe/logger.js'
import { type OnceResult, runOnce } from '../term/one-slot.js'
import { netPinger } from '../observe/ping.js'
import type { PassRuntime } from './runtime.js'
import { openTerm } from '../nets/net-term.js'
import { inNetWindow } from '../config/net-window.js'
import { describePause, type NetPause, pauseInForce } from '../control/net-control-store.js'
import { termCallBoundMs } from '../lease/call-bound.js'
import { callBoundSignal } from '../term/term-call-bound.js'

export interface RuntimeOnceSpec {
  runtime: PassRuntime
  config: WorkerConfig
  net: NetConfig
  slot: Date
  owner: string
  /** Bound to the net (and owner). */
  log: Logger
  /** Ends the campaign and aborts the pass (recorded `aborted`); the lease is released. */
  signal: AbortSignal
  /** A manual run (`once --now`). */
  manual?: boolean
  /** A slot older than this is recorded `missed` instead of run (serverless triggers: CATCH_UP_WINDOW). */
  missAfterMs?: number
  /**
   * `leasecron once` for a scheduled slot: wait for the slot's start under the net's JITTER before the
   * campaign, as the worker's tick would. A serverless trigger does not wait (its platform bills and bounds
   * the wait), nor does a manual run.
   */
  waitForJitter?: boolean
  /** The net's set-up for a claimed slot; the runtime's own by default (a warm instance caches it). */
  setUp?: PassRuntime['setUpNet']
  clock?: Clock
}

/** Runs one term with one pass for `spec.slot` on the runtime's parts; resolves what happened. */
export async function runOnceOnRuntime(spec: RuntimeOnceSpec): Promise<OnceResult> {
  const { runtime, net, log } = spec
  const setUp = spec.setUp ?? runtime.setUpNet
  // The installation the pass acts as (recorded on its run), and that installation's forge.
  const acting = actingNet(net, runtime.installations)
  const forge = acting.installation === undefined ? runtime.forge : runtime.forgeFor(acting.installation)
  // A scheduled slot outside START_AT/END_AT is not the net's: nothing is claimed, run or recorded.
  if (!spec.manual && !inNetWindow(net, spec.slot)) return outsideWindow(acting, spec)
  // A paused net's scheduled slot is recorded paused, as the holder's tick records it; a manual run is not
  // held back by a pause (docs/controls.md).
  const paused = spec.manual ? undefined : await pausedAnswer(acting, spec)
  if (paused) return paused
  // A stop during the wait leaves runOnce an aborted signal: it claims nothing and answers `aborted`.
  if (spec.waitForJitter) await waitForJitter(acting, spec)
  const result = await runOnce({
    net: acting,
    slot: spec.slot,
    owner: spec.owner,
    store: runtime.store,
    ledger: runtime.ledger,
    runHistory: spec.config.runHistory,
    // The net's set-up, then its term: only for a claimed slot (once.ts).
    pass: async (term, stepDownAt) =>
      openTerm(net.definition, await setUp(net, log, term), {
        options: net.options,
        log,
        signal: term,
        stepDownAt,
      }),
    // Its client is built only if the pass runs and asks for it (slot-pass.ts).
    forge,
    pinger: netPinger(net, log),
    log,
    clock: spec.clock ?? systemClock,
    signal: spec.signal,
    ...(spec.manual ? { manual: true } : {}),
    ...(spec.missAfterMs === undefined ? {} : { missAfterMs: spec.missAfterMs }),
    ...clockCheck(runtime, spec.config),
  })
  return withConnectCause(result, runtime.mongo)
}

/**
 * `paused` when an operator paused the net (control/): the slot is recorded `paused` with who and why, as a
 * holder's tick records it, and nothing runs — so a CronJob's or a scheduler's trigger obeys a pause as the
 * worker does. Undefined: run it. Like the holder's read, a controls read that fails fails open (the slot
 * runs, and the failure is logged); a paused record that cannot be written still answers `paused`.
 */
async function pausedAnswer(acting: NetConfig, spec: RuntimeOnceSpec): Promise<OnceResult | undefined> {
  const { runtime, log } = spec
  const net = acting.definition.name
  const clock = spec.clock ?? systemClock
  const bound = () => AbortSignal.any([spec.signal, callBoundSignal(termCallBoundMs(acting.pacing.ttlMs))])
  let pause: NetPause | undefined
  try {
    const now = clock.now()
    const read = (await runtime.controls.get(net, now, { signal: bound() })).paused
    pause = pauseInForce(read, now) ? read : undefined
  } catch (error) {
    log.warn({ err: error }, 'could not read the net’s controls; running the slot as scheduled')
    return undefined
  }
  if (!pause) return undefined
  const reason = describePause(pause)
  const entry = { net, slot: spec.slot, owner: spec.owner, fence: 0, at: clock.now(), reason }
  try {
    await runtime.ledger.account({ ...entry, outcome: 'paused' }, { signal: bound() })
  } catch (error) {
    log.warn({ err: error }, 'could not record the paused slot: the ledger did not answer')
  }
  const base = { net, slot: spec.slot.toISOString(), owner: spec.owner, fence: null }
  return { ...base, outcome: 'paused', error: reason }
}

/** The answer for a slot outside the net's START_AT/END_AT, saying which bound it is past. */
function outsideWindow(acting: NetConfig, spec: RuntimeOnceSpec): OnceResult {
  const { startAt, endAt } = spec.net
  const why =
    endAt && spec.slot.getTime() > endAt.getTime()
      ? `END_AT ${endAt.toISOString()} has passed: the net is finished`
      : `START_AT is ${startAt?.toISOString()}`
  return {
    net: acting.definition.name,
    slot: spec.slot.toISOString(),
    outcome: 'outside-window',
    owner: spec.owner,
    fence: null,
    error: why,
  }
}

/**
 * Waits until the slot's start under the net's JITTER (slot-spread.ts), saying so when it waits, or until
 * the caller's signal aborts.
 */
async function waitForJitter(acting: NetConfig, spec: RuntimeOnceSpec): Promise<void> {
  const clock = spec.clock ?? systemClock
  const startAt = jitteredStart(acting, spec.slot)
  const waitMs = startAt.getTime() - clock.now().getTime()
  if (waitMs <= 0) return
  spec.log.info(
    {
      slot: spec.slot.toISOString(),
      startAt: startAt.toISOString(),
      jitterOffsetMs: startAt.getTime() - spec.slot.getTime(),
    },
    `JITTER: the pass starts at ${startAt.toISOString()}, ${waitMs} ms from now`,
  )
  await waitFor(waitMs, spec.signal, clock)
}

/** The clock check against the runtime's Mongo server, when there is one (clock-check.ts). */
function clockCheck(runtime: PassRuntime, config: WorkerConfig): { clockCheck?: ClockCheck } {
  const check = runtimeClockCheck(runtime, config)
  return check ? { clockCheck: check } : {}
}
