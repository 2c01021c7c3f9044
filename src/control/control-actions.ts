/**
 * The operator's three actions on a net — pause, resume, run now — as one set of functions over the
 * NetControlStore contract, shared by every way in (the HTTP admin API, the status page through it, the
 * CLI, the library), so each validates `for`/`until` the same way and answers in the same words.
 *
 * What they are: input checks (a ControlActionError before any write), one store write, one read of the
 * resulting state, and a sentence for the operator. Expected outcomes are values: resuming a net that is
 * not paused answers `not-paused`, a run while one is pending answers `run-pending`.
 *
 * What they are not: a check that the net exists or is enabled here (the caller knows its nets), an
 * authentication, or a log (the caller logs what it accepted). They never read the clock: `now` is an
 * argument.
 */
import { formatDuration, parseDuration } from '../durations.js'
import { ControlActionError } from './control-action-error.js'
import {
  type ControlRequest,
  type ControlRequestInput,
  describePause,
  type NetControl,
  type NetControlStore,
  type NetPause,
  type PauseRequest,
} from './net-control-store.js'
import type { StoreCallOptions } from '../store-call/store-call.js'

/** What an operator gives to pause a net. */
export interface PauseNetInput {
  /** How long, as duration text (`30m`, `2h`, `1d`); not with `until`. Absent (and no `until`): until resumed. */
  for?: string
  /** When the pause ends: an ISO 8601 instant with `Z` or an offset (or a Date); not with `for`. */
  until?: string | Date
  /** Why (shown in status and on the page). */
  reason?: string
  /** Who (a name the operator gives; not authenticated). */
  by?: string
  /** End the pass in flight too (it is otherwise left to finish). */
  abort?: boolean
}

/** What an operator gives to resume a net. */
export interface ResumeNetInput extends ControlRequestInput {
  /** Run the slots recorded `paused` while it was paused (oldest first, bounded). */
  catchUp?: boolean
}

export type ControlAction = 'pause' | 'resume' | 'run'

/** What an action came to. */
export interface ControlActionResult {
  action: ControlAction
  net: string
  /**
   * `paused`, `resumed`, `run-requested`: done. `not-paused`: a resume found no pause in force (nothing
   * changed). `run-pending`: a run asked for earlier is still waiting (not asked twice).
   */
  outcome: 'paused' | 'resumed' | 'not-paused' | 'run-requested' | 'run-pending'
  /** One sentence for the operator. */
  message: string
  /** The net's controls after the action, read at `now`. */
  control: NetControl
  /** pause: the pause stored; resume: the pause lifted (absent when none was in force). */
  pause?: NetPause
  /** run: the pending request (this call's, or the one already waiting). */
  request?: ControlRequest
}

/**
 * An ISO 8601 instant that says its zone (`Z` or an offset): a bare local time would be read in whatever
 * zone the server runs in. Seconds and fractions optional. A regex rather than zod's `iso.datetime`,
 * which refuses `18:00Z` and `+0200`; the Date parser then checks the figures.
 */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i

/** The last instant a Date holds (ECMAScript's 10⁸ days after 1970): a later end is an Invalid Date. */
const LAST_DATE = new Date(8.64e15)

/**
 * When the pause ends: from `for` or `until`, checked against `now`; undefined when neither is given.
 * Throws ControlActionError naming the field(s) and what was expected.
 */
export function pauseEnd(net: string, input: PauseNetInput, now: Date): Date | undefined {
  const bad = (fields: string[], expected: string) => new ControlActionError('pause', net, fields, expected)
  if (input.for !== undefined && input.until !== undefined)
    throw bad(['for', 'until'], 'expected one of them, not both')
  if (input.for !== undefined) {
    const ms = typeof input.for === 'string' ? parseDuration(input.for) : undefined
    if (ms === undefined || ms <= 0)
      throw bad(
        ['for'],
        `expected a duration above zero such as 90s, 30m, 2h or 1d; got ${JSON.stringify(input.for)}`,
      )
    const end = new Date(now.getTime() + ms)
    // `99999999d` parses, but its end is no date: the store refused the Invalid Date as a failure to answer.
    if (!Number.isFinite(end.getTime()))
      throw bad(
        ['for'],
        `expected a duration ending by ${LAST_DATE.toISOString()}, the last instant a date holds; got ${JSON.stringify(input.for)}`,
      )
    return end
  }
  if (input.until === undefined) return undefined
  const until = input.until instanceof Date ? input.until : instantOf(input.until)
  if (until === undefined)
    throw bad(
      ['until'],
      `expected an ISO 8601 instant with a time zone (e.g. 2026-10-01T18:00:00Z); got ${JSON.stringify(input.until)}`,
    )
  if (until.getTime() <= now.getTime())
    throw bad(['until'], `expected an instant after now (${now.toISOString()}); got ${until.toISOString()}`)
  return until
}

function instantOf(text: unknown): Date | undefined {
  if (typeof text !== 'string' || !ISO_WITH_ZONE.test(text)) return undefined
  const at = new Date(text)
  return Number.isFinite(at.getTime()) ? at : undefined
}

/**
 * Pauses `net` from `now` (replacing a pause in force). Throws ControlActionError for a bad `for`/`until`
 * (nothing written), the store's NetControlError when it did not answer.
 */
export async function pauseNet(
  controls: NetControlStore,
  net: string,
  input: PauseNetInput,
  now: Date,
  options?: StoreCallOptions,
): Promise<ControlActionResult & { pause: NetPause }> {
  const until = pauseEnd(net, input, now)
  const request: PauseRequest = { abort: input.abort === true }
  if (until) request.until = until
  if (input.reason !== undefined) request.reason = input.reason
  if (input.by !== undefined) request.by = input.by
  const pause = await controls.pause(net, request, now, options)
  const length = until ? ` (${formatDuration(until.getTime() - now.getTime())})` : ''
  const abort = pause.abort ? '; a pass in flight is aborted' : ''
  return {
    action: 'pause',
    net,
    outcome: 'paused',
    message: `${net}: ${describePause(pause)}${length}${abort}`,
    control: await controls.get(net, now, options),
    pause,
  }
}

/**
 * Lifts `net`'s pause (with `catchUp`, also asks the holder to run the paused slots). A net not paused
 * at `now` answers `not-paused` and nothing changes. Throws the store's NetControlError when it did not
 * answer.
 */
export async function resumeNet(
  controls: NetControlStore,
  net: string,
  input: ResumeNetInput,
  now: Date,
  options?: StoreCallOptions,
): Promise<ControlActionResult> {
  const lifted = await controls.resume(net, input, now, options)
  const control = await controls.get(net, now, options)
  if (!lifted)
    return {
      action: 'resume',
      net,
      outcome: 'not-paused',
      message: `${net} is not paused: nothing to resume`,
      control,
    }
  const catchUp = input.catchUp ? '; the slots it let go run next (catch-up)' : ''
  return {
    action: 'resume',
    net,
    outcome: 'resumed',
    pause: lifted,
    message: `${net} resumed (it was ${describePause(lifted)})${catchUp}`,
    control,
  }
}

/**
 * Asks whichever replica holds `net`'s lease to run it once now, as a manual slot of its own. While a
 * run asked for earlier is pending, that one stands (`run-pending`). Throws the store's NetControlError
 * when it did not answer.
 */
export async function requestRun(
  controls: NetControlStore,
  net: string,
  input: ControlRequestInput,
  now: Date,
  options?: StoreCallOptions,
): Promise<ControlActionResult & { request: ControlRequest }> {
  const { created, request } = await controls.request(net, 'run', input, now, options)
  const control = await controls.get(net, now, options)
  const message = created
    ? `${net}: run requested; the replica holding its lease runs it as a manual slot within seconds`
    : `${net}: a run requested at ${request.at.toISOString()} is still pending; not asked twice`
  return { action: 'run', net, outcome: created ? 'run-requested' : 'run-pending', message, control, request }
}
