/**
 * `leasecron once <net>`: one term, one pass, one slot — for serverless triggers and cron jobs, which
 * deliver at least once.
 *
 * The term is single-term.ts's (one campaign attempt: a held lease is an answer, `held`; renewals and the
 * step-down deadline while the pass runs; the release at the end), and the work is exactly one pass for
 * one slot, claimed in the run ledger like every pass of the worker — so five triggers of one slot run it
 * once. The caller's signal (SIGTERM, SIGINT) aborts the pass, which is recorded `aborted`, and the lease
 * is released before it resolves. `backfill` (backfill.ts) runs many slots the same way under one term.
 * It resolves once the pass's pings (PING_URL) are answered or timed out: the process exits right after.
 *
 * A serverless trigger (serverless/) runs the same path with `missAfterMs`: a slot older than the net's
 * catch-up window is recorded `missed` (late-slot.ts), not run. A `held` answer for a slot the ledger shows
 * claimed says `slot-taken`: the holder runs (or ran) it, which is what a redelivered trigger needs to hear.
 *
 * Not a scheduler: which slot to run is the caller's (`--slot`), normalized to the schedule.
 */
import type { LeaseStore } from '../lease/store.js'
import type { Pass } from '../nets/net.js'
import { UNRUN_OUTCOMES } from '../runs/run-ledger.js'
import { type Schedule, slotAtOrBefore } from '../schedule/schedule.js'
import { scrubSecrets } from '../config/scrub.js'
import { type ClockCheck, checkClock } from './clock-check.js'
import { INSTANT_FORM, parseIsoInstant } from './iso-instant.js'
import { accountLateSlot } from './late-slot.js'
import { serveOneTerm } from './one-term.js'
import { termCallBoundMs } from '../lease/call-bound.js'
import { callBoundSignal } from './term-call-bound.js'
import {
  type PassSetting,
  type PassTerm,
  runSlotPass,
  type SlotPassResult,
  slotPassSpec,
} from './slot-pass.js'

/**
 * What `once` did: `aborted` when the caller's signal stopped the pass (it is recorded so in the ledger);
 * `timed-out` when its last attempt ran past the net's TIMEOUT; `missed` when the slot was older than the
 * catch-up window (`missAfterMs`, serverless triggers only) and was recorded so instead of run;
 * `outside-window` when the slot is before the net's START_AT or after its END_AT (nothing ran or was recorded);
 * `finished` when the net ran its MAX_RUNS slots (runs/run-cap.ts: nothing ran or was recorded);
 * `paused` when an operator paused the net (recorded `paused`, not run; `error` says who, why and until when).
 */
export type OnceOutcome =
  | 'ran'
  | 'slot-taken'
  | 'held'
  | 'requested'
  | 'failed'
  | 'timed-out'
  | 'aborted'
  | 'missed'
  | 'outside-window'
  | 'finished'
  | 'paused'

/** The one object `once --json` prints. */
export interface OnceResult {
  net: string
  slot: string
  outcome: OnceOutcome
  owner: string
  /** The term's fence; null when no term began (`held`, or the store failed). */
  fence: number | null
  /** Who holds the lease, for `held` (when the store said). */
  holder?: string
  /** Why, for `failed` and `timed-out` (the last attempt's error). */
  error?: string
  /** Attempts the pass made for the slot (1 + retries), when it ran. */
  attempts?: number
  /** `once --now` only: true for a manual run. */
  manual?: boolean
}

/** One `once` pass: what every pass of the net shares (PassSetting, built by slotPassSpec) and more. */
export interface OnceSpec extends PassSetting {
  slot: Date
  /** A manual run (`once --now`): `slot` is now, keyed `<net>@manual@<ISO>` apart from the schedule's slots. */
  manual?: boolean
  store: LeaseStore
  /** Builds the net's pass for the term; called only once the slot is claimed (it may open stores). */
  pass(term: AbortSignal, stepDownAt: () => number): Promise<Pass>
  /** SIGTERM/SIGINT: aborts the pass, which is then recorded `aborted`; the lease is released. */
  signal: AbortSignal
  /**
   * A serverless trigger's bound on lateness (the net's CATCH_UP_WINDOW): a slot older than this is
   * recorded `missed` instead of run. Absent (the CLI): any slot runs, as `once --slot` and `backfill` do.
   */
  missAfterMs?: number
  /** The clock check against the store's server (clock-check.ts); none on the memory store. */
  clockCheck?: ClockCheck
}

/**
 * How far after now a `--slot` may be: a trigger's clock a little ahead of this process's. A slot further
 * ahead would be claimed before it comes, and the worker's own tick would then find it taken.
 */
export const SLOT_SKEW_ALLOWANCE_MS = 60_000

const SLOT_FORM = `${INSTANT_FORM} or "auto"`

/**
 * `--slot` as given: `auto` (or absent) is now; anything else must be a real calendar instant (no
 * 2026-02-30 rolling over to March) written in full ISO 8601 with a zone, and at most
 * SLOT_SKEW_ALLOWANCE_MS after `now`. The slot is the schedule's most recent fire time at or before it,
 * read in `timeZone` (the net's; UTC by default) by the DST rule of schedule.ts.
 */
export function parseSlotOption(
  value: string | undefined,
  schedule: Schedule,
  now: Date,
  timeZone?: string,
): { ok: true; slot: Date } | { ok: false; expected: string } {
  const text = (value ?? 'auto').trim()
  if (text === 'auto') return { ok: true, slot: slotAtOrBefore(schedule, now, timeZone) }
  const refuse = (why: string) => ({
    ok: false as const,
    expected: `--slot: expected ${SLOT_FORM}; got ${JSON.stringify(text)}${why}`,
  })
  const parsed = parseIsoInstant(text)
  if (!parsed.ok) return refuse('form' in parsed ? '' : `, which is not a real instant: ${parsed.impossible}`)
  const instant = parsed.instant
  const ahead = instant.getTime() - now.getTime()
  // A well-formed instant too far ahead is refused for that alone, not with the form it already has.
  if (ahead > SLOT_SKEW_ALLOWANCE_MS)
    return {
      ok: false,
      expected: `--slot: expected a slot at most ${SLOT_SKEW_ALLOWANCE_MS / 1000} s after now (${now.toISOString()}: clock skew); got ${JSON.stringify(text)}, ${Math.round(ahead / 1000)} s after it: a later slot would be claimed before it comes`,
    }
  return { ok: true, slot: slotAtOrBefore(schedule, instant, timeZone) }
}

/**
 * Runs one term with one pass for `spec.slot`; resolves what happened, after the lease is released.
 * Rejects with ClockSkewError, before anything is taken or recorded, when this clock is off (clock-check.ts).
 */
export async function runOnce(spec: OnceSpec): Promise<OnceResult> {
  await checkClock(spec.clockCheck, netLease(spec), spec.clock, spec.signal)
  const base = {
    net: spec.net.definition.name,
    slot: spec.slot.toISOString(),
    owner: spec.owner,
    fence: null,
  }
  const late = await lateAnswer(spec)
  if (late) return { ...base, ...late }
  const served = await serveOneTerm(spec, (term) => {
    const built = slotPassSpec(spec, term, termPass(spec.pass, term), spec.slot)
    return runSlotPass(spec.manual ? { ...built, manual: true } : built)
  })
  // A short-lived process exits after this: the pass's pings (each bounded) get their answers first.
  await spec.pinger?.settle()
  if (served.kind === 'held')
    return { ...base, ...(served.holder ? { holder: served.holder } : {}), outcome: await heldOrTaken(spec) }
  if (served.kind === 'failed') return { ...base, outcome: 'failed', error: firstLine(served.error) }
  return { ...base, fence: served.fence, ...describeResult(served.value, spec.signal) }
}

/** A slot older than `missAfterMs`: recorded missed (or found taken) instead of run; undefined: run it. */
async function lateAnswer(spec: OnceSpec): Promise<Pick<OnceResult, 'outcome' | 'error'> | undefined> {
  if (spec.missAfterMs === undefined || spec.manual) return undefined
  try {
    const outcome = await accountLateSlot({
      ...{ net: spec.net.definition.name, slot: spec.slot, owner: spec.owner, windowMs: spec.missAfterMs },
      ...{ ledger: spec.ledger, clock: spec.clock, boundMs: termCallBoundMs(spec.net.pacing.ttlMs) },
    })
    return outcome === undefined ? undefined : { outcome }
  } catch (error) {
    return { outcome: 'failed', error: `could not record the late slot missed: ${firstLine(error)}` }
  }
}

/**
 * `held`, or `slot-taken` when the ledger shows the slot claimed (not merely accounted missed or paused):
 * the holder runs or ran it. Asked within the claim's bound; no answer keeps `held`, which is as true.
 */
async function heldOrTaken(spec: OnceSpec): Promise<'held' | 'slot-taken'> {
  if (spec.manual) return 'held'
  try {
    const signal = callBoundSignal(termCallBoundMs(spec.net.pacing.ttlMs))
    const record = await spec.ledger.get(spec.net.definition.name, spec.slot, { signal })
    const unrun = (UNRUN_OUTCOMES as readonly string[]).includes(record?.outcome ?? '')
    return record && !unrun ? 'slot-taken' : 'held'
  } catch {
    return 'held'
  }
}

/**
 * The net's pass for `term`, built by `build` on its first call — only once a slot is claimed, so a
 * trigger that finds its slot taken opens nothing — and reused for the term's later slots (a backfill's),
 * as the scheduler reuses a term's pass. A build that fails fails the attempt that asked for it, and the
 * next attempt (a retry, the next slot) builds again: a set-up's transient failure is retried like a pass's.
 */
export function termPass(build: OnceSpec['pass'], term: PassTerm): Pass {
  let built: Promise<Pass> | undefined
  return async (context) => {
    built ??= build(term.term, term.stepDownAt)
    const building = built
    building.catch(() => {
      if (built === building) built = undefined
    })
    return (await building)(context)
  }
}

function describeResult(
  result: SlotPassResult | undefined,
  signal: AbortSignal,
): Pick<OnceResult, 'outcome' | 'error' | 'attempts'> {
  if (!result) {
    if (signal.aborted) return { outcome: 'aborted' }
    return {
      outcome: 'failed',
      error: 'the term ended before its pass could start (a grant that arrived too late)',
    }
  }
  if (result.kind === 'slot-taken') return { outcome: 'slot-taken' }
  if (result.kind === 'claim-failed') return { outcome: 'failed', error: firstLine(result.error) }
  if (result.kind === 'finished') return { outcome: 'finished', error: maxRunsReached(result.maxRuns) }
  const attempts = { attempts: result.attempts }
  if (result.outcome === 'ok') return { outcome: 'ran', ...attempts }
  if (result.outcome === 'aborted') return { outcome: 'aborted', ...attempts }
  return { outcome: result.outcome, error: firstLine(result.error), ...attempts }
}

/** Why a slot of a net past its MAX_RUNS does not run (once's and backfill's `error`). */
export function maxRunsReached(maxRuns: number): string {
  return `the net ran its MAX_RUNS (${maxRuns}) slots: it is finished`
}

/** The lease and ttl the clock check holds a campaign to. */
export function netLease(spec: Pick<OnceSpec, 'net'>): { lease: string; ttlMs: number } {
  return { lease: spec.net.definition.lease, ttlMs: spec.net.pacing.ttlMs }
}

/** The first line of an error, scrubbed: `once` and `backfill` print it and `--json` carries it. */
export function firstLine(error: unknown): string {
  return scrubSecrets(error instanceof Error ? error.message.split('\n')[0]! : String(error))
}

/** One readable line of a result (`once` without --json). */
export function describeOnce(result: OnceResult): string {
  const fence = result.fence === null ? '' : ` (fence ${result.fence})`
  switch (result.outcome) {
    case 'ran':
      return `${result.net}: ran slot ${result.slot} as ${result.owner}${fence}`
    case 'slot-taken':
      return `${result.net}: slot ${result.slot} already ran (or runs) elsewhere; nothing to do`
    case 'held':
      return `${result.net}: lease held by ${result.holder ?? 'another owner'}; slot ${result.slot} not run here`
    case 'requested':
      return `${result.net}: lease held by ${result.holder ?? 'another owner'}; asked it to run now (its poll picks the request up within seconds; see leasecron history)`
    case 'timed-out':
      return `${result.net}: slot ${result.slot} timed out${fence}${tries(result)}: ${result.error ?? 'unknown error'}`
    case 'aborted':
      return `${result.net}: slot ${result.slot} aborted by a signal${fence}; recorded as aborted, lease released`
    case 'missed':
      return `${result.net}: slot ${result.slot} is older than the catch-up window; recorded missed, not run`
    case 'paused':
      return `${result.net}: slot ${result.slot} not run, recorded paused: ${result.error ?? 'the net is paused'}`
    case 'finished':
      return `${result.net}: slot ${result.slot} not run: ${result.error ?? 'the net is finished'}`
    case 'outside-window':
      return `${result.net}: slot ${result.slot} is outside the net's START_AT/END_AT; nothing runs (${result.error ?? ''})`
    default:
      return `${result.net}: slot ${result.slot} failed${fence}${tries(result)}: ${result.error ?? 'unknown error'}`
  }
}

/** ` after N attempts` when the slot took more than one. */
function tries(result: OnceResult): string {
  return result.attempts !== undefined && result.attempts > 1 ? ` after ${result.attempts} attempts` : ''
}
