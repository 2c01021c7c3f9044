/**
 * netState: a net's verdict, from its ledger runs and its schedule — the one function `status`, `/status`,
 * the page and the `leasecron_net_state` metric all show. What it is not: a reader (callers pass the runs
 * they read) or an alert (the Prometheus rules in deploy/prometheus/ decide how long a verdict must hold).
 *
 * - `failing`: the newest slot with a verdict (ok, failed, timed-out, missed) ended failed or timed-out,
 *   after its retries. Aborted (the term ended) and skipped (the overlap policy) slots say nothing of the
 *   net's own health, and a running one has no verdict yet: they are passed over.
 * - `missed`: the newest slot with a verdict was recorded `missed` (scheduled, never run: outside the
 *   net's catch-up window). A `paused` slot is passed over like a skipped one.
 * - `slow`: the net has MAX_DURATION and its newest pass took longer — or runs longer than it now, so a
 *   hung pass shows at once, not after its TIMEOUT. `too-fast`: it has MIN_DURATION and its newest
 *   finished pass succeeded sooner (a pass that "succeeded" without doing its work). Read from the newest
 *   run with a verdict, or the running one; checked after `failing` and `missed`, before lateness.
 * - `starting`: no success within the window `late` reads, but a pass runs now for a slot inside it — a
 *   new holder's first pass (a worker just started, or a successor after a hand-over, catching up). Not
 *   yet `ok` and not `late`: a worker shown `late` half a second after its start cried wolf. A pass stuck
 *   that long leaves the window after two intervals, and the net is `late` again.
 * - `late`: otherwise, no success for any of the newest due slot and the two before it — no success within
 *   two schedule intervals of the newest slot due (counted in the schedule's own slots, in its zone, so a
 *   weekday schedule is not late over a weekend and a daylight-saving change shifts nothing).
 * - `ok`: otherwise.
 * - `finished`: before all of these, the net is past its END_AT (config/net-window.ts), or ran its MAX_RUNS
 *   slots (runs/run-cap.ts), and no pass of it runs: it has no slot left, so it is neither late nor missed. Before its START_AT's first slot is due
 *   it is `starting`.
 * - `paused`: before all of these but `finished`, while the net is paused (control/): its slots are recorded `paused` on
 *   purpose, so it is neither late nor missed. Manual runs (run now) are passed over: they are no slot.
 */
import { runsCounted } from '../runs/run-cap.js'
import { type DayMatch, scheduleOf, slotAtOrBefore } from '../schedule/schedule.js'

export const NET_STATES = [
  'ok',
  'starting',
  'late',
  'slow',
  'too-fast',
  'failing',
  'missed',
  'paused',
  'finished',
] as const
export type NetState = (typeof NET_STATES)[number]

/** What netState reads of a run: its slot and outcome (absent while it runs). */
export interface StateRun {
  slot: Date
  outcome?: string | undefined
  /** A manual run (run now): passed over. */
  manual?: boolean | undefined
  /** Attempts its pass made: MAX_RUNS counts the slots whose pass started (runs/run-cap.ts). */
  attempts?: number | undefined
  /** When its pass started and ended: the duration bounds read them. */
  startedAt?: Date | undefined
  finishedAt?: Date | undefined
}

/** A net's schedule as netState reads it, with its MIN_DURATION and MAX_DURATION when set (ms). */
export interface StateSchedule {
  schedule: string
  dayMatch?: DayMatch | undefined
  timeZone: string
  minDurationMs?: number | undefined
  maxDurationMs?: number | undefined
  /** START_AT and END_AT, when set. */
  startAt?: Date | undefined
  /** MAX_RUNS, when set: `runs` must then hold enough of the newest runs to count them (runsRead). */
  maxRuns?: number | undefined
  endAt?: Date | undefined
}

/** How many schedule intervals a net may go without a success before it is late. */
export const LATE_AFTER_INTERVALS = 2

const VERDICTS = new Set(['ok', 'failed', 'timed-out', 'missed'])

/**
 * The state of a net at `now` from `runs` (its newest ledger runs, any order; the newest few suffice) and
 * its schedule. Throws only when the schedule is not valid (configurations are checked before this runs).
 */
export function netState(
  runs: readonly StateRun[],
  plan: StateSchedule,
  now: Date,
  paused = false,
): NetState {
  const newestFirst = [...runs].filter((r) => !r.manual).sort((a, b) => b.slot.getTime() - a.slot.getTime())
  const runsNow = newestFirst.length > 0 && newestFirst[0]!.outcome === undefined
  if (plan.endAt && now.getTime() > plan.endAt.getTime() && !runsNow) return 'finished'
  if (plan.maxRuns !== undefined && runsCounted(newestFirst) >= plan.maxRuns && !runsNow) return 'finished'
  if (paused) return 'paused'
  if (plan.startAt && slotAtOrBefore(scheduleOf(plan), now, plan.timeZone) < plan.startAt) return 'starting'
  const verdict = newestFirst.find((r) => r.outcome !== undefined && VERDICTS.has(r.outcome))
  if (verdict?.outcome === 'failed' || verdict?.outcome === 'timed-out') return 'failing'
  if (verdict?.outcome === 'missed') return 'missed'
  const duration = durationState(newestFirst, verdict, plan, now)
  if (duration) return duration
  const success = newestFirst.find((r) => r.outcome === 'ok')
  const lateBefore = slotsBack(plan, now, LATE_AFTER_INTERVALS).getTime()
  if (success && success.slot.getTime() >= lateBefore) return 'ok'
  const running = newestFirst.some((r) => r.outcome === undefined && r.slot.getTime() >= lateBefore)
  return running ? 'starting' : 'late'
}

/** The slot `count` slots before the newest slot due at `now` (count 0: that newest slot). */
function slotsBack(plan: StateSchedule, now: Date, count: number): Date {
  let slot = slotAtOrBefore(scheduleOf(plan), now, plan.timeZone)
  for (let i = 0; i < count; i++)
    slot = slotAtOrBefore(scheduleOf(plan), new Date(slot.getTime() - 1000), plan.timeZone)
  return slot
}

/**
 * `slow` or `too-fast` from the duration bounds: the running pass (the newest run, without an outcome)
 * past MAX_DURATION, else the newest verdict's pass outside the bounds (too-fast only for a success).
 */
function durationState(
  newestFirst: readonly StateRun[],
  verdict: StateRun | undefined,
  plan: StateSchedule,
  now: Date,
): 'slow' | 'too-fast' | undefined {
  const { minDurationMs: min, maxDurationMs: max } = plan
  const running = newestFirst[0]
  if (max !== undefined && running?.outcome === undefined && running?.startedAt)
    if (now.getTime() - running.startedAt.getTime() > max) return 'slow'
  if (!verdict?.startedAt || !verdict.finishedAt) return undefined
  const took = verdict.finishedAt.getTime() - verdict.startedAt.getTime()
  if (max !== undefined && took > max) return 'slow'
  if (min !== undefined && verdict.outcome === 'ok' && took < min) return 'too-fast'
  return undefined
}
