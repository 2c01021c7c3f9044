/**
 * The peers scenario's arithmetic: from the lines the handlers appended (bench/peers/record-slot.mjs) and
 * the instants of the faults, how many slots each system ran exactly once, twice or more, or never —
 * overall and per window — the delay from a slot's instant to its first handler start, and the time from
 * the SIGKILL to the next start by another process. Pure functions; it reads no file and counts nothing a
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

/** When the faults happened (ms): the SIGKILL, the killed process's restart, the store's crash and return. */
export interface FaultTimes {
  killAt: number
  victimPid: number
  processRestartAt: number
  crashAt: number
  storeBackAt: number
}

export interface SlotCounts {
  slots: number
  once: number
  twiceOrMore: number
  never: number
}

export type WindowName = 'rest' | 'kill' | 'store'

/** Slot k's window: `kill` from the SIGKILL to a minute after the restart, `store` from the crash to 2 min after its return. */
export function windowOf(instant: number, faults: FaultTimes, slotMs: number): WindowName {
  if (instant >= faults.killAt && instant < faults.processRestartAt + slotMs) return 'kill'
  if (instant >= faults.crashAt && instant < faults.storeBackAt + 2 * slotMs) return 'store'
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

/** One system's figures over the plan and the faults. */
export function tallySystem(records: readonly SlotRecord[], plan: SlotPlan, faults: FaultTimes) {
  const { runs, first, outside } = runsPerSlot(records, plan)
  const windows: Record<WindowName, number[]> = { rest: [], kill: [], store: [] }
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
    windows: { rest: count(windows.rest), kill: count(windows.kill), store: count(windows.store) },
    runsPerSlot: runs,
    runsOutsidePlan: outside,
    delayMs: delays.length
      ? { p50: sig(percentile(delays, 50)), p99: sig(percentile(delays, 99)), max: delays.at(-1)! }
      : null,
    delayAtRestMs: atRest.length
      ? { p50: sig(percentile(atRest, 50)), p99: sig(percentile(atRest, 99)) }
      : null,
    killToNextRunMs: takeoverMs,
    processes: new Set(records.map((r) => r.pid)).size,
  }
}
