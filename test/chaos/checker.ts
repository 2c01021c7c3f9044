/**
 * The chaos checker: derives the figures and the invariant breaches of one scenario from the workers'
 * traces (term and pass events on the common CLOCK_MONOTONIC scale, see fixtures/chaos-nets.mjs) and the
 * faults the suite injected. Pure: no processes, no clocks.
 */
import type { LogLine } from '../support/worker-process.js'

export interface WorkerTrace {
  id: string
  owner: string
  /** The wall-clock offset faketime gave the worker, in ms. */
  skewMs: number
  lines: LogLine[]
  text: string[]
  exit: { code: number | null; signal: NodeJS.Signals | null }
  /** When the suite stopped or killed the worker on purpose (mono ms). */
  deliberateExit?: { signal: NodeJS.Signals; at: number } | undefined
}

export interface Fault {
  /** What was injected, e.g. `SIGSTOP 3000 ms`, `blackhole all`. */
  kind: string
  /** mono ms; the fault's start is recorded after it took effect, its end before it was lifted. */
  start: number
  end: number
  /** Owners whose store was unreachable during the fault (fail-closed applies to them). */
  unreachable?: string[]
  /** The owner whose process was stalled (SIGSTOP): its overlap up to the stall is expected. */
  stalled?: string
}

export interface Term {
  owner: string
  term: number
  /** The grant's fence, from the term's log line (NaN when the line has none). */
  fence: number
  start: number
  startWall: number
  end: number
  /** Why it ended: returned, lost, stepped-down, stopped; `killed` when its process died; `open` at the end. */
  reason: string
  /** Its step-down instant when it ended (mono). */
  deadlineAtEnd: number | null
}

export interface Overlap {
  a: string
  b: string
  ms: number
  kind: 'expected' | 'unexpected' | 'ferretdb-double-win'
  why: string
  /** Both terms' start (acquire) instants, mono and wall. */
  aStart: number
  bStart: number
  aStartWall: number
  bStartWall: number
}

export interface Stats {
  n: number
  min: number | null
  median: number | null
  p95: number | null
  max: number | null
}

export interface CheckOptions {
  ttlMs: number
  /** A term whose start falls this close to another's is the FerretDB read-then-write double win. */
  doubleWinWindowMs?: number
  /** Slack for timer latency on a loaded machine when judging an overlap expected. */
  toleranceMs?: number
  /** Instants from which a takeover or recovery is timed: the first term start after each (by another owner). */
  takeovers?: Array<{ from: number; exclude?: string }>
  /** The window for leaderless time (mono); from the first term start to the last event by default. */
  window?: { start: number; end: number }
}

export interface Verdict {
  terms: number
  passes: number
  passErrors: number
  overlaps: Overlap[]
  overlapCount: number
  overlapMaxMs: number
  expectedOverlaps: number
  unexpectedOverlaps: number
  ferretDbDoubleWins: number
  /** Passes of two owners running at the same time. */
  passOverlaps: number
  /**
   * Schedule slots that more than one pass started for — counted from what the passes logged at start
   * (net, slot, owner, fence), never from the run ledger, whose unique key cannot show a double.
   */
  doubleRunSlots: number
  /** The slots run twice, with who ran them (for reading a failure). */
  doubleRuns: Array<{ slot: string; runs: string[] }>
  /**
   * Slots a later term ran again because their pass was cut off with its holder (term/retake.ts): each
   * later start said `retake` and followed a start that never ended. Not double runs.
   */
  retakenSlots: number
  /** Distinct slots some pass started for. */
  slotsRun: number
  takeoverMs: Stats
  takeovers: number[]
  /** How long after its step-down instant each stepped-down term actually ended. */
  stepDownLagMs: Stats
  leaderlessMs: number
  longestLeaderlessMs: number
  /** Passes that started after their own term's step-down instant (must be 0). */
  passesAfterDeadline: number
  /** Passes started by an owner whose store was unreachable for longer than the hold (must be 0). */
  passesWhileUnreachable: number
  unhandledRejections: string[]
  unexpectedExits: string[]
  /** Wall minus monotonic of each worker, relative to the first: the clock offset actually in effect. */
  measuredSkewMs: Record<string, number>
}

const num = (v: unknown) => (typeof v === 'number' ? v : Number(v))

export function stats(values: number[]): Stats {
  if (values.length === 0) return { n: 0, min: null, median: null, p95: null, max: null }
  const s = [...values].sort((x, y) => x - y)
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
  const r = (v: number) => Math.round(v)
  return { n: s.length, min: r(s[0]!), median: r(at(0.5)), p95: r(at(0.95)), max: r(s[s.length - 1]!) }
}

/** The terms in the traces, closed at the process's death (killed) or the trace's end (open). */
export function termsOf(traces: WorkerTrace[]): Term[] {
  const terms: Term[] = []
  for (const t of traces) {
    const lastMono = Math.max(0, ...t.lines.map((l) => num(l.mono)).filter(Number.isFinite))
    const open = new Map<number, Term>()
    for (const l of t.lines) {
      if (l.event === 'term-start') {
        const term: Term = {
          owner: t.owner,
          term: num(l.term),
          fence: num(l.fence),
          start: num(l.mono),
          startWall: num(l.wall),
          end: Number.NaN,
          reason: 'open',
          deadlineAtEnd: null,
        }
        open.set(term.term, term)
        terms.push(term)
      } else if (l.event === 'term-end') {
        const term = open.get(num(l.term))
        if (!term) continue
        term.end = num(l.mono)
        term.reason = String(l.reason)
        term.deadlineAtEnd = l.deadline === null ? null : num(l.deadline)
        open.delete(term.term)
      }
    }
    for (const term of open.values()) {
      if (t.deliberateExit?.signal === 'SIGKILL') {
        term.end = t.deliberateExit.at
        term.reason = 'killed'
      } else {
        term.end = Math.max(lastMono, term.start)
      }
    }
  }
  return terms.sort((x, y) => x.start - y.start)
}

export function check(traces: WorkerTrace[], faults: Fault[], options: CheckOptions): Verdict {
  const { ttlMs } = options
  const doubleWin = options.doubleWinWindowMs ?? 100
  const tolerance = options.toleranceMs ?? 300
  const hold = ttlMs - ttlMs / 6
  const terms = termsOf(traces)
  const skewOf = new Map(traces.map((t) => [t.owner, t.skewMs]))

  // Overlaps between terms of different owners.
  const overlaps: Overlap[] = []
  for (let i = 0; i < terms.length; i++) {
    for (let j = i + 1; j < terms.length; j++) {
      const a = terms[i]!
      const b = terms[j]!
      if (a.owner === b.owner) continue
      const ms = Math.min(a.end, b.end) - Math.max(a.start, b.start)
      if (!(ms > 0)) continue
      const base = {
        a: a.owner,
        b: b.owner,
        ms: Math.round(ms),
        aStart: a.start,
        bStart: b.start,
        aStartWall: a.startWall,
        bStartWall: b.startWall,
      }
      overlaps.push({ ...base, ...classify(a, b, ms) })
    }
  }

  function classify(a: Term, b: Term, ms: number): Pick<Overlap, 'kind' | 'why'> {
    if (Math.abs(b.start - a.start) <= doubleWin) {
      return {
        kind: 'ferretdb-double-win',
        why: `both acquired within ${Math.round(Math.abs(b.start - a.start))} ms: FerretDB's read-then-write update let both win`,
      }
    }
    // One fence granted twice is that race whatever the answers' spread (a backlog after SIGCONT spreads
    // them): an atomic store never grants a fence twice, so two terms of one fence have one cause.
    if (Number.isFinite(a.fence) && a.fence === b.fence) {
      return {
        kind: 'ferretdb-double-win',
        why: `both granted fence ${a.fence}, ${Math.round(Math.abs(b.start - a.start))} ms apart: FerretDB's read-then-write update let both win`,
      }
    }
    const stall = faults.find(
      (f) => f.stalled === a.owner && f.start < b.start + ms && f.end > a.start && f.start <= b.start,
    )
    if (stall) {
      const length = stall.end - stall.start
      if (ms <= length + tolerance)
        return { kind: 'expected', why: `holder stalled ${Math.round(length)} ms (SIGSTOP) ≥ overlap` }
      return { kind: 'unexpected', why: `overlap exceeds the ${Math.round(length)} ms stall` }
    }
    const skew = (skewOf.get(b.owner) ?? 0) - (skewOf.get(a.owner) ?? 0)
    if (skew > ttlMs / 6) {
      const bound = skew - ttlMs / 6
      if (ms <= bound + tolerance)
        return {
          kind: 'expected',
          why: `successor's clock ${skew} ms ahead > ttl/6: overlap ≤ skew − ttl/6 = ${Math.round(bound)} ms`,
        }
      return { kind: 'unexpected', why: `overlap exceeds skew − ttl/6 = ${Math.round(bound)} ms` }
    }
    return { kind: 'unexpected', why: 'no stall or clock skew beyond ttl/6 explains it' }
  }

  // Passes.
  interface PassSpan {
    owner: string
    start: number
    end: number
    deadline: number | null
  }
  const passes: PassSpan[] = []
  let passErrors = 0
  for (const t of traces) {
    const open = new Map<string, PassSpan>()
    for (const l of t.lines) {
      if (l.event === 'pass-start') {
        const p = {
          owner: t.owner,
          start: num(l.mono),
          end: Number.NaN,
          deadline: l.deadline === null ? null : num(l.deadline),
        }
        open.set(`${l.term}/${l.pass}`, p)
        passes.push(p)
      } else if (l.event === 'pass-end') {
        const p = open.get(`${l.term}/${l.pass}`)
        if (p) p.end = num(l.mono)
        open.delete(`${l.term}/${l.pass}`)
        if (l.ok === false) passErrors++
      }
    }
    for (const p of open.values()) p.end = t.deliberateExit?.at ?? p.start
  }
  const passesAfterDeadline = passes.filter((p) => p.deadline !== null && p.start > p.deadline + 2).length
  const passesWhileUnreachable = passes.filter((p) =>
    faults.some((f) => f.unreachable?.includes(p.owner) && p.start > f.start + hold + 5 && p.start < f.end),
  ).length
  const doubleRuns = doubleRunsOf(traces)
  let passOverlaps = 0
  const sortedPasses = [...passes].sort((x, y) => x.start - y.start)
  for (let i = 0; i < sortedPasses.length; i++) {
    for (let j = i + 1; j < sortedPasses.length && sortedPasses[j]!.start < sortedPasses[i]!.end; j++) {
      if (sortedPasses[j]!.owner !== sortedPasses[i]!.owner) passOverlaps++
    }
  }

  // Takeovers: the first term started after each instant (by another owner when asked).
  const takeovers = (options.takeovers ?? []).map(({ from, exclude }) => {
    const next = terms.find((t) => t.start > from && t.owner !== exclude)
    return next ? next.start - from : Number.POSITIVE_INFINITY
  })

  // Step-down lag.
  const lags = terms
    .filter((t) => t.reason === 'stepped-down' && t.deadlineAtEnd !== null)
    .map((t) => t.end - (t.deadlineAtEnd as number))

  // Leaderless time: the window minus the union of terms.
  const first = terms[0]?.start ?? 0
  const window = options.window ?? { start: first, end: Math.max(first, ...terms.map((t) => t.end)) }
  let covered = 0
  let cursor = window.start
  let longestGap = 0
  for (const t of terms) {
    const s = Math.max(t.start, window.start)
    const e = Math.min(t.end, window.end)
    if (e <= cursor) continue
    if (s > cursor) longestGap = Math.max(longestGap, s - cursor)
    covered += e - Math.max(s, cursor)
    cursor = e
  }
  longestGap = Math.max(longestGap, window.end - cursor)
  const leaderlessMs = Math.max(0, window.end - window.start - covered)

  const unhandledRejections = traces.flatMap((t) =>
    [...t.lines.map((l) => JSON.stringify(l)), ...t.text]
      .filter((l) => /unhandled ?rejection|UnhandledPromiseRejection|uncaught exception/i.test(l))
      .map((l) => `${t.id}: ${l.slice(0, 300)}`),
  )
  const unexpectedExits = traces
    .filter((t) => !t.deliberateExit || (t.deliberateExit.signal === 'SIGTERM' && t.exit.code !== 0))
    .map((t) => `${t.id} (${t.owner}) exited with code ${t.exit.code} signal ${t.exit.signal}`)

  const offsets = traces
    .map((t) => {
      const l = t.lines.find((x) => x.event === 'term-start' || x.event === 'pass-start')
      return l ? ([t.id, num(l.wall) - num(l.mono)] as const) : undefined
    })
    .filter((x) => x !== undefined)
  const base = offsets.find(([id]) => traces.find((t) => t.id === id)?.skewMs === 0)?.[1] ?? offsets[0]?.[1]
  const measuredSkewMs = Object.fromEntries(offsets.map(([id, o]) => [id, Math.round(o - (base ?? 0))]))

  const unexpected = overlaps.filter((o) => o.kind === 'unexpected')
  return {
    terms: terms.length,
    passes: passes.length,
    passErrors,
    overlaps,
    overlapCount: overlaps.length,
    overlapMaxMs: Math.max(0, ...overlaps.map((o) => o.ms)),
    expectedOverlaps: overlaps.filter((o) => o.kind === 'expected').length,
    unexpectedOverlaps: unexpected.length,
    ferretDbDoubleWins: overlaps.filter((o) => o.kind === 'ferretdb-double-win').length,
    passOverlaps,
    doubleRunSlots: doubleRuns.double.length,
    doubleRuns: doubleRuns.double,
    retakenSlots: doubleRuns.retaken,
    slotsRun: doubleRuns.slots,
    takeoverMs: stats(takeovers.filter(Number.isFinite)),
    takeovers: takeovers.map((t) => (Number.isFinite(t) ? Math.round(t) : -1)),
    stepDownLagMs: stats(lags),
    leaderlessMs: Math.round(leaderlessMs),
    longestLeaderlessMs: Math.round(longestGap),
    passesAfterDeadline,
    passesWhileUnreachable,
    unhandledRejections,
    unexpectedExits,
    measuredSkewMs,
  }
}

/**
 * Groups the passes' start lines by `<net>@<slot>`: a slot with starts from more than one run (owner,
 * fence, pass) ran twice. Lines without a slot (no ledger in that build) are not counted.
 */
export function doubleRunsOf(traces: WorkerTrace[]): {
  slots: number
  double: Array<{ slot: string; runs: string[] }>
  retaken: number
} {
  const runs = new Map<string, SlotStart[]>()
  for (const t of traces) {
    for (const l of t.lines) {
      if (l.event !== 'pass-start' || typeof l.slot !== 'string') continue
      const key = `${String(l.net)}@${l.slot}`
      const start: SlotStart = {
        who: `${String(l.owner ?? t.owner)} fence ${String(l.fence)} pass ${String(l.pass)}`,
        mono: num(l.mono),
        retake: typeof l.retake === 'number',
        finished: t.lines.some((e) => e.event === 'pass-end' && e.term === l.term && e.pass === l.pass),
      }
      runs.set(key, [...(runs.get(key) ?? []), start])
    }
  }
  let retaken = 0
  const double: Array<{ slot: string; runs: string[] }> = []
  for (const [slot, starts] of runs) {
    const who = new Set(starts.map((s) => s.who))
    if (who.size === 1) continue
    if (startsAreRetakes(starts)) retaken++
    else double.push({ slot, runs: [...who].sort() })
  }
  return { slots: runs.size, double, retaken }
}

/** One pass's start for a slot, as its log line said it. */
interface SlotStart {
  who: string
  mono: number
  /** The pass said it runs again a pass an older term's holder left unfinished (term/retake.ts). */
  retake: boolean
  /** Its process logged the pass's end (a cut-off pass never does). */
  finished: boolean
}

/**
 * Whether a slot's later starts are each a retake of a pass cut off before it: every start after the first
 * says `retake`, and every start before a retake never ended (its holder died or stalled away). A retake
 * of a pass that finished, or a second start without `retake`, is a double run.
 */
function startsAreRetakes(starts: SlotStart[]): boolean {
  const ordered = [...starts].sort((a, b) => a.mono - b.mono)
  return ordered.slice(1).every((s, i) => s.retake && !ordered[i]!.finished)
}

/** One ledger record as the accounting reads it. */
export interface LedgerEntry {
  slot: Date
  outcome?: string | null | undefined
  /** Who claimed it and when (shown for an unfinished one, so a report says whose claim it was). */
  owner?: string
  fence?: number
  startedAt?: Date
  /** The stored `_id` (an account of a slot is kept under `<run id>#unrun` beside a later run). */
  id?: string
}

/** Slots accounted ÷ slots scheduled over a scenario's span (docs/reliability.md). */
export interface SlotAccounting {
  /** The span: the ledger's first slot to its last (the scenario's first election to its last pass). */
  from: string | null
  to: string | null
  /** Scheduled slots in the span (the chaos net ticks every second). */
  scheduled: number
  /** Of them, those with a ledger record carrying an outcome (the ledger's key makes it exactly one). */
  accounted: number
  /** accounted ÷ scheduled, in percent (100 when nothing was scheduled). */
  percent: number
  /** Slots with no record at all (the first ten), and with a claim never finished (a process killed mid-pass). */
  missing: string[]
  missingCount: number
  unfinished: string[]
  unfinishedCount: number
  /** Records by outcome (`ok`, `missed`, `skipped`, `aborted`, …; `unfinished` for a claim without one). */
  outcomes: Record<string, number>
}

/**
 * Checks that every scheduled slot between the ledger's first and last record has exactly one record with
 * an outcome. `slotsBetween` lists the schedule's slots in [from, to] (every second for the chaos net).
 * Pure: the caller reads the ledger.
 */
export function accountSlots(
  entries: readonly LedgerEntry[],
  slotsBetween: (from: Date, to: Date) => Date[] = everySecond,
): SlotAccounting {
  // A slot's run is its record; an account (`#unrun`) left beside a run is not (MongoRunLedger reads so).
  const ordered = [...entries].sort((a, b) => Number(isAccount(b)) - Number(isAccount(a)))
  const bySlot = new Map(ordered.map((e) => [e.slot.getTime(), e]))
  const times = [...bySlot.keys()].sort((a, b) => a - b)
  const outcomes: Record<string, number> = {}
  for (const e of entries)
    outcomes[e.outcome ?? 'unfinished'] = (outcomes[e.outcome ?? 'unfinished'] ?? 0) + 1
  if (times.length === 0)
    return {
      ...{ from: null, to: null, scheduled: 0, accounted: 0, percent: 100 },
      ...{ missing: [], missingCount: 0, unfinished: [], unfinishedCount: 0, outcomes },
    }
  const scheduled = slotsBetween(new Date(times[0]!), new Date(times.at(-1)!))
  const missing = scheduled.filter((s) => !bySlot.has(s.getTime())).map((s) => s.toISOString())
  const unfinished = scheduled
    .filter((s) => bySlot.has(s.getTime()) && !bySlot.get(s.getTime())?.outcome)
    .map((s) => describeUnfinished(bySlot.get(s.getTime()) as LedgerEntry))
  const accounted = scheduled.length - missing.length - unfinished.length
  return {
    from: new Date(times[0]!).toISOString(),
    to: new Date(times.at(-1)!).toISOString(),
    scheduled: scheduled.length,
    accounted,
    percent: Math.round((accounted / scheduled.length) * 10_000) / 100,
    missing: missing.slice(0, 10),
    missingCount: missing.length,
    unfinished: unfinished.slice(0, 10),
    unfinishedCount: unfinished.length,
    outcomes,
  }
}

function isAccount(entry: LedgerEntry): boolean {
  return entry.id?.endsWith('#unrun') ?? false
}

/** `<slot> (claimed by <owner> fence <n> at <instant>)`, as much as the entry says. */
function describeUnfinished(entry: LedgerEntry): string {
  const by = entry.owner === undefined ? '' : ` by ${entry.owner} fence ${entry.fence}`
  const at = entry.startedAt === undefined ? '' : ` at ${entry.startedAt.toISOString()}`
  return `${entry.slot.toISOString()}${by || at ? ` (claimed${by}${at})` : ''}`
}

/** The whole seconds in [from, to]: the chaos net's slots (`* * * * * *`). */
function everySecond(from: Date, to: Date): Date[] {
  const out: Date[] = []
  for (let t = Math.ceil(from.getTime() / 1000) * 1000; t <= to.getTime(); t += 1000) out.push(new Date(t))
  return out
}
