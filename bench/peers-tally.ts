/**
 * The peers scenario's arithmetic: from the lines the handlers appended (bench/peers/record-slot.mjs) and
 * the instants of the faults, how many slots each system ran exactly once, twice or more, or never —
 * overall and per window — the delay from a slot's instant to its first handler start, the time from
 * the SIGKILL to the next start by another process, the delay of the first slot after a partition and
 * after a clean stop, and the starts that came before their slot (a clock ahead). Pure functions; it reads no file and counts nothing a
 * system reported about itself.
 */
import { percentile, sig } from './support.js'

/** One handler start, as a process recorded it. */
export interface SlotRecord {
  system: string
  pid: number
  /** The scheduled instant (ms) the system handed the handler, or null (then: the minute it started in). */
  slot: number | null
  start: number
}

/** The run's clock: slot k falls at `t0 + k * slotMs`, k in [0, slots). */
export interface SlotPlan {
  t0: number
  slots: number
  slotMs: number
}

/**
 * When the faults happened (ms): the SIGKILL, the killed process's restart, the store's crash and return,
 * one process's partition from its store and its end, one process's clock skew, and one process's clean
 * stop (SIGTERM); with the process each hit (-1: none).
 */
export interface FaultTimes {
  killAt: number
  victimPid: number
  processRestartAt: number
  crashAt: number
  storeBackAt: number
  partitionAt: number
  healAt: number
  partitionPid: number
  skewAt: number
  skewPid: number
  stopAt: number
  stopPid: number
}

export interface SlotCounts {
  slots: number
  once: number
  twiceOrMore: number
  never: number
}

export const WINDOWS = ['rest', 'kill', 'store', 'partition', 'skew', 'stop'] as const
export type WindowName = (typeof WINDOWS)[number]

/**
 * Slot k's window: `kill` from the SIGKILL to a minute after the restart, `store` from the crash to 2 min
 * after its return, `partition` from the cut to 2 min after it heals, `stop` from the clean stop to the
 * skew, `skew` from the skew on; `rest` the others.
 */
export function windowOf(instant: number, faults: FaultTimes, slotMs: number): WindowName {
  if (instant >= faults.killAt && instant < faults.processRestartAt + slotMs) return 'kill'
  if (instant >= faults.crashAt && instant < faults.storeBackAt + 2 * slotMs) return 'store'
  if (instant >= faults.partitionAt && instant < faults.healAt + 2 * slotMs) return 'partition'
  if (instant >= faults.stopAt && instant < faults.skewAt) return 'stop'
  if (instant >= faults.skewAt) return 'skew'
  return 'rest'
}

/** The slot index a record belongs to (its own slot, else the minute it started in), or undefined outside the plan. */
export function slotIndex(record: SlotRecord, plan: SlotPlan): number | undefined {
  const instant = record.slot ?? Math.floor(record.start / plan.slotMs) * plan.slotMs
  const k = Math.round((instant - plan.t0) / plan.slotMs)
  return k >= 0 && k < plan.slots ? k : undefined
}

function count(runs: number[]): SlotCounts {
  return {
    slots: runs.length,
    once: runs.filter((n) => n === 1).length,
    twiceOrMore: runs.filter((n) => n >= 2).length,
    never: runs.filter((n) => n === 0).length,
  }
}

/** Runs per slot, and the first start of each slot that ran. */
function runsPerSlot(records: readonly SlotRecord[], plan: SlotPlan) {
  const runs = new Array<number>(plan.slots).fill(0)
  const first = new Array<number>(plan.slots).fill(Number.POSITIVE_INFINITY)
  let outside = 0
  for (const r of records) {
    const k = slotIndex(r, plan)
    if (k === undefined) {
      outside++
      continue
    }
    runs[k]!++
    first[k] = Math.min(first[k]!, r.start)
  }
  return { runs, first, outside }
}

/**
 * The first slot falling at or after `at`: its instant, and the delay of its first start (null: never ran).
 * After a clean stop a few seconds before a slot, that delay is the hand-over's cost.
 */
export function firstSlotAfter(at: number, first: readonly number[], plan: SlotPlan) {
  const k = Math.max(0, Math.ceil((at - plan.t0) / plan.slotMs))
  if (k >= plan.slots) return null
  const instant = plan.t0 + k * plan.slotMs
  const start = first[k]!
  return { slot: k, instant, delayMs: Number.isFinite(start) ? start - instant : null }
}

/** Starts (on the real clock) more than `toleranceMs` before their slot's instant: a clock ahead of the others'. */
export function earlyStarts(records: readonly SlotRecord[], plan: SlotPlan, toleranceMs = 200) {
  return records.filter((r) => {
    const k = slotIndex(r, plan)
    return k !== undefined && r.start < plan.t0 + k * plan.slotMs - toleranceMs
  }).length
}

/** One system's figures over the plan and the faults. */
export function tallySystem(records: readonly SlotRecord[], plan: SlotPlan, faults: FaultTimes) {
  const { runs, first, outside } = runsPerSlot(records, plan)
  const windows = Object.fromEntries(WINDOWS.map((w) => [w, [] as number[]])) as Record<WindowName, number[]>
  runs.forEach((n, k) => {
    windows[windowOf(plan.t0 + k * plan.slotMs, faults, plan.slotMs)].push(n)
  })
  const delayOf = (start: number, k: number) => start - (plan.t0 + k * plan.slotMs)
  const delays = first
    .map(delayOf)
    .filter(Number.isFinite)
    .sort((a, b) => a - b)
  // At rest: the slots before any fault (the goal's "start delay at rest"), apart from the faults' catch-ups.
  const atRest = first
    .map(delayOf)
    .filter(
      (d, k) => Number.isFinite(d) && windowOf(plan.t0 + k * plan.slotMs, faults, plan.slotMs) === 'rest',
    )
    .sort((a, b) => a - b)
  const afterKill = records
    .filter((r) => r.pid !== faults.victimPid && r.start > faults.killAt)
    .map((r) => r.start)
  const takeoverMs = afterKill.length ? Math.min(...afterKill) - faults.killAt : null
  return {
    overall: count(runs),
    windows: Object.fromEntries(WINDOWS.map((w) => [w, count(windows[w])])) as Record<WindowName, SlotCounts>,
    runsPerSlot: runs,
    runsOutsidePlan: outside,
    delayMs: delays.length
      ? { p50: sig(percentile(delays, 50)), p99: sig(percentile(delays, 99)), max: delays.at(-1)! }
      : null,
    delayAtRestMs: atRest.length
      ? { p50: sig(percentile(atRest, 50)), p99: sig(percentile(atRest, 99)) }
      : null,
    killToNextRunMs: takeoverMs,
    afterPartition: firstSlotAfter(faults.partitionAt, first, plan),
    afterCleanStop: firstSlotAfter(faults.stopAt, first, plan),
    startedEarly: earlyStarts(records, plan),
    processes: new Set(records.map((r) => r.pid)).size,
  }
}
