/**
 * The thousand-schedules scenario's arithmetic: from the lines the handlers appended
 * (bench/peers/record-slot.mjs) and the instant of the SIGKILL, how many (job, slot) pairs each system ran
 * exactly once, twice or more, or never — over the plan and in each window — and the delay from each
 * pair's slot instant to its first handler start. Pure functions over records and a plan; it reads no file
 * and takes nothing a system reported about itself.
 *
 * What it is not: the peers scenario's tally (bench/peers-tally.ts counts one job's slots through three
 * faults); this one counts many jobs through one fault, keyed by job as well as slot.
 */
import { percentile, sig } from './support.js'

/** One handler start, as a process recorded it (a line without `job` is the one job `bench-tick`). */
export interface JobSlotRecord {
  system: string
  pid: number
  /** The scheduled instant (ms) the system handed the handler, or null (then: the minute it started in). */
  slot: number | null
  start: number
  job?: string
}

/** The run's clock and jobs: slot k of every job falls at `t0 + k * slotMs`, k in [0, slots). */
export interface JobSlotPlan {
  t0: number
  slots: number
  slotMs: number
  jobs: readonly string[]
  /** The SIGKILL (ms): slots at or after it are the kill window, the ones before it the rest window. */
  killAt: number
  victimPid: number
}

export interface PairCounts {
  pairs: number
  once: number
  twiceOrMore: number
  never: number
}

const DEFAULT_JOB = 'bench-tick'
/** How many of the (job, slot) pairs not run exactly once a result names, for a reader to look up. */
const NAMED_PAIRS = 10

/** The names bench/peers/record-slot.mjs's `jobNames` gives `count` jobs (that file cannot be imported here). */
export function jobNamesOf(count: number): string[] {
  if (count === 1) return [DEFAULT_JOB]
  const width = Math.max(4, String(count).length)
  return Array.from({ length: count }, (_, i) => `bench-tick-${String(i + 1).padStart(width, '0')}`)
}

/** The slot index a record belongs to (its own slot, else the minute it started in), or undefined outside the plan. */
export function slotOf(record: JobSlotRecord, plan: Pick<JobSlotPlan, 't0' | 'slots' | 'slotMs'>) {
  const instant = record.slot ?? Math.floor(record.start / plan.slotMs) * plan.slotMs
  const k = Math.round((instant - plan.t0) / plan.slotMs)
  return k >= 0 && k < plan.slots ? k : undefined
}

function counted(runs: readonly number[]): PairCounts {
  let once = 0
  let twiceOrMore = 0
  let never = 0
  for (const n of runs) {
    if (n === 1) once++
    else if (n >= 2) twiceOrMore++
    else never++
  }
  return { pairs: runs.length, once, twiceOrMore, never }
}

/** Runs and first start per (job, slot), jobs in plan order, slots in order; the records that fit no pair. */
export function runsPerPair(records: readonly JobSlotRecord[], plan: JobSlotPlan) {
  const index = new Map(plan.jobs.map((job, i) => [job, i]))
  const size = plan.jobs.length * plan.slots
  const runs = new Array<number>(size).fill(0)
  const first = new Array<number>(size).fill(Number.POSITIVE_INFINITY)
  let outsidePlan = 0
  let unknownJob = 0
  for (const r of records) {
    const j = index.get(r.job ?? DEFAULT_JOB)
    const k = slotOf(r, plan)
    if (j === undefined) unknownJob++
    else if (k === undefined) outsidePlan++
    else {
      const at = j * plan.slots + k
      runs[at]!++
      first[at] = Math.min(first[at]!, r.start)
    }
  }
  return { runs, first, outsidePlan, unknownJob }
}

const quantiles = (sorted: number[]) =>
  sorted.length
    ? {
        p50: sig(percentile(sorted, 50)),
        p99: sig(percentile(sorted, 99)),
        max: sorted.at(-1)!,
        n: sorted.length,
      }
    : null

/** The first few pairs not run exactly once, as `<job>@<slot k>: <runs>`. */
function oddPairs(runs: readonly number[], plan: JobSlotPlan): string[] {
  const named: string[] = []
  for (let at = 0; at < runs.length && named.length < NAMED_PAIRS; at++) {
    if (runs[at] === 1) continue
    named.push(`${plan.jobs[Math.floor(at / plan.slots)]}@${at % plan.slots}: ${runs[at]}`)
  }
  return named
}

/** One system's figures: counts overall and per window, delays, and the first start after the SIGKILL. */
export function tallyJobs(records: readonly JobSlotRecord[], plan: JobSlotPlan) {
  const { runs, first, outsidePlan, unknownJob } = runsPerPair(records, plan)
  const instant = (at: number) => plan.t0 + (at % plan.slots) * plan.slotMs
  const rest: number[] = []
  const kill: number[] = []
  const delays: number[] = []
  const restDelays: number[] = []
  runs.forEach((n, at) => {
    const atRest = instant(at) < plan.killAt
    ;(atRest ? rest : kill).push(n)
    const delay = first[at]! - instant(at)
    if (!Number.isFinite(delay)) return
    delays.push(delay)
    if (atRest) restDelays.push(delay)
  })
  const afterKill = records.filter((r) => r.pid !== plan.victimPid && r.start > plan.killAt)
  const nextStart = afterKill.reduce((min, r) => Math.min(min, r.start), Number.POSITIVE_INFINITY)
  return {
    overall: counted(runs),
    windows: { rest: counted(rest), kill: counted(kill) },
    delayMs: quantiles(delays.sort((a, b) => a - b)),
    delayAtRestMs: quantiles(restDelays.sort((a, b) => a - b)),
    killToNextStartMs: Number.isFinite(nextStart) ? nextStart - plan.killAt : null,
    notOnce: oddPairs(runs, plan),
    runsOutsidePlan: outsidePlan,
    runsOfUnknownJobs: unknownJob,
    jobsRunEverySlotAtRest: jobsEverySlot(runs, plan, (k) => plan.t0 + k * plan.slotMs < plan.killAt),
    startsByProcess: countBy(records.map((r) => String(r.pid))),
  }
}

/** How many jobs ran (at least once) in every slot that `inWindow` accepts. */
export function jobsEverySlot(runs: readonly number[], plan: JobSlotPlan, inWindow: (k: number) => boolean) {
  let jobs = 0
  for (let j = 0; j < plan.jobs.length; j++) {
    let all = true
    for (let k = 0; k < plan.slots && all; k++) if (inWindow(k) && runs[j * plan.slots + k]! < 1) all = false
    if (all) jobs++
  }
  return jobs
}

function countBy(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1
  return counts
}
