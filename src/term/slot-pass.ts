/**
 * One pass for one slot: claim the slot in the run ledger, run the pass in the net's forge lane — in one
 * or more attempts (pass-attempts.ts: TIMEOUT, RETRIES, RETRY_BACKOFF) — record how it ended. The scheduler (every tick of a term) and `leasecron once` both go through it, so "one
 * pass per slot" holds the same way for both.
 *
 * Fail-closed: a claim the ledger could not answer runs nothing. A claim won by a term that is no longer
 * live (it ended while the claim was in flight) is recorded `aborted` without running: a successor would
 * find the slot claimed, which is the price of never running it twice.
 *
 * Its spec is built by `slotPassSpec` alone, from what the net's passes share (`PassSetting`) and what
 * the term gives them: the scheduler and `once` call it, so a pass is the same under both by construction.
 *
 * A slot the scheduler lets go for overlap is recorded `skipped` through the same claim (`skipSlot`).
 *
 * A pass that starts is traced (pass-span.ts: one span, its forge requests its children) and, when the net
 * has a PING_URL, pinged (ping.ts: start and end, never awaited); a slot that does not start is neither.
 *
 * Each attempt is told its slot's history (PassContext: reason, attempt, previous, lastSuccess, upcoming)
 * from the term's ledger (run-memory.ts), which remembers what the term read and wrote: no read of its own.
 * A term that has read nothing yet (`once`, a backfill) makes its first pass's look for older claims before
 * the pass rather than after it, so that one read tells the pass too.
 *
 * Not the scheduler: it does not decide when, or whether a previous pass is still running.
 */
import { formatDuration } from '../durations.js'
import type { ForgeOctokit } from '../forge/client/github-app.js'
import { withLane } from '../forge/lane.js'
import type { ForgeMeter } from '../forge/meter/meter.js'
import type { Clock } from '../lease/clock.js'
import type { NetConfig } from '../config/worker-config.js'
import type { Pass, PassContext, PassReason } from '../nets/net.js'
import {
  historyUntil,
  type PassOutcome,
  type RunFinish,
  type RunLedger,
  type RunOutcome,
} from '../runs/run-ledger.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import { scrubbedErrorMessage } from '../config/scrub.js'
import type { AttemptPolicy } from '../config/worker-config.js'
import { nextFireTime, scheduleOf } from '../schedule/schedule.js'
import { type AttemptsEnd, runAttempts } from './pass-attempts.js'
import { closeUnfinished } from './close-unfinished.js'
import { type PassSpan, startPassSpan } from '../observe/pass-span.js'
import type { Pinger } from '../observe/ping.js'
import { callBoundSignal } from './term-call-bound.js'
import type { RunMemory } from './run-memory.js'
import { upcomingSlots } from './upcoming-slots.js'
import { RUN_CAP_LOOKBACK } from '../runs/run-cap.js'

/** How often the holder prunes the ledger: on a term's first pass and every this many passes after. */
const PRUNE_EVERY_PASSES = 50
/** How many of the newest runs a pass looks through for older terms' unfinished claims. */
const CLOSE_LOOKBACK_RUNS = 10
/**
 * A finish or prune gets this long; it runs after the term may have ended, so the term cannot bound it.
 * 15 s, not 5: a replica's passes of one instant finish together, and at 1,000 nets on FerretDB their
 * finishes queued past 5 s (28 to 290 a minute went unrecorded in a probe, each then looked for again);
 * waiting longer for an answer costs nothing but the wait.
 */
const RECORD_BOUND_MS = 15_000

export interface SlotPassSpec {
  /** The ledger's name of the net: `<net>:<installation>` for one installation of a per-installation net. */
  net: string
  /** MIN_DURATION and MAX_DURATION (ms): a success outside them pings `/fail` (durationFault). */
  durationBounds?: { minMs?: number | undefined; maxMs?: number | undefined } | undefined
  /** The installation the pass acts as, recorded on its run; absent for a global net. */
  installation?: number | undefined
  /** The installation the worker's global nets act as; `null` under `all` (PassContext.primaryInstallation). */
  primaryInstallation?: number | null | undefined
  slot: Date
  /** A manual run (run now): `slot` is when it was asked for, keyed apart from the scheduled slots. */
  manual?: boolean
  /**
   * Why the slot runs, as the pass is told (PassContext.reason); `tick` when absent. A manual run is
   * `manual` and a retake `retry` whatever this says.
   */
  reason?: PassReason
  /**
   * The n-th run again of a pass an older term's holder left unfinished (retake.ts): the slot is taken over
   * with the ledger's `retake`, not claimed, and the pass's lines say `retake: n`.
   */
  retake?: number
  owner: string
  fence: number
  pass: Pass
  /** Called once the claim is won: the pass's number within its term. */
  nextNumber(): number
  /** Called once the pass ended: whether it looks for older terms' unfinished claims (PassTerm's). */
  looksForOlderClaims(number: number): boolean
  /** The term's signal: aborts the pass (the claim in flight is left to answer, within claimBoundMs). */
  term: AbortSignal
  /** Whether the term is still live right now (checked after the claim, before the pass starts). */
  live(): boolean
  /** The term's step-down deadline (monotonic): no retry starts past it. */
  stepDownAt(): number
  /** The net's TIMEOUT, RETRIES and RETRY_BACKOFF. */
  attempts: AttemptPolicy
  /** The schedule's first fire time after `instant`: no retry starts at or after the next slot. */
  nextSlotAfter(instant: Date): Date
  /** The schedule's next few slots after `instant` within START_AT/END_AT (PassContext.upcoming). */
  upcomingAfter(instant: Date): Date[]
  /** Bound of the claim call (the term's renewal cadence, ttl/3). */
  claimBoundMs: number
  /** MAX_RUNS: a scheduled slot past it is not claimed (`finished`; runs/run-cap.ts). */
  maxRuns?: number | undefined
  /** The term's ledger, which remembers what it read and wrote: the pass's history comes from it. */
  ledger: RunMemory
  /** Runs kept per net; the holder prunes to it. */
  keepRuns: number
  forge: PassForge
  metrics?: WorkerMetrics | undefined
  /** The net's pinger (PING_URL); absent, no pings. */
  pinger?: Pinger | undefined
  clock: Clock
  /** Bound to the net (and owner); the pass's lines add pass, fence and slot. */
  log: Logger
}

/**
 * The forge as a pass sees it: `octokit` is read only when the pass first uses the forge (a Forge loads
 * and builds its client, Octokit and undici, on its first request), and the meter, when present, counts
 * the pass's requests in its lane.
 */
export interface PassForge {
  readonly octokit: ForgeOctokit
  readonly meter?: ForgeMeter | undefined
}

/** What every pass of a net in this process shares, whichever term or slot it is for. */
export interface PassSetting {
  net: NetConfig
  owner: string
  /** Where passes claim their slots and record their ends. */
  ledger: RunLedger
  /** Runs kept per net in the ledger (LEASECRON_RUN_HISTORY). */
  runHistory: number
  forge: PassForge
  metrics?: WorkerMetrics | undefined
  /** The net's pinger (ping.ts, built from its PING_URL); absent, no pings. */
  pinger?: Pinger | undefined
  clock: Clock
  /** Bound to the net (and owner). */
  log: Logger
}

/** What a term gives its passes. */
export interface PassTerm {
  fence: number
  /** The term's signal: aborts the pass (the claim in flight is left to answer, within claimBoundMs). */
  term: AbortSignal
  live(): boolean
  /** The term's step-down deadline (monotonic). */
  stepDownAt(): number
  /** The next pass's number within the term (1 for its first), taken once a claim is won. */
  nextPassNumber(): number
  /** Whether the term's pass `number`, ending now, looks for older terms' unfinished claims (older-claims-look.ts). */
  looksForOlderClaims(number: number): boolean
  /** The bound of one store call within the term (whole ms, termCallBoundMs): the claim's. */
  readonly boundMs: number
  /**
   * The term's ledger (the setting's, wrapped): what it read and wrote, so each pass is told its history
   * (PassContext.previous, .lastSuccess) without a read of its own.
   */
  readonly runs: RunMemory
}

/**
 * The one builder of a pass's spec: the scheduler (each tick of a term) and `once` (its one pass) both
 * call it, so the claim's bound, the ledger, the pruning and the forge are the same for both.
 */
export function slotPassSpec(setting: PassSetting, term: PassTerm, pass: Pass, slot: Date): SlotPassSpec {
  return {
    net: setting.net.definition.name,
    durationBounds: { minMs: setting.net.minDurationMs, maxMs: setting.net.maxDurationMs },
    ...(setting.net.installation === undefined ? {} : { installation: setting.net.installation }),
    ...(setting.net.primaryInstallation === undefined
      ? {}
      : { primaryInstallation: setting.net.primaryInstallation }),
    slot,
    maxRuns: setting.net.maxRuns,
    owner: setting.owner,
    fence: term.fence,
    pass,
    nextNumber: () => term.nextPassNumber(),
    looksForOlderClaims: (number) => term.looksForOlderClaims(number),
    term: term.term,
    live: term.live,
    stepDownAt: term.stepDownAt,
    attempts: setting.net.attempts,
    nextSlotAfter: (instant) => nextFireTime(scheduleOf(setting.net), instant, setting.net.timeZone),
    upcomingAfter: (instant) => upcomingSlots(setting.net, instant),
    claimBoundMs: term.boundMs,
    ledger: term.runs,
    keepRuns: setting.runHistory,
    forge: setting.forge,
    metrics: setting.metrics,
    pinger: setting.pinger,
    clock: setting.clock,
    log: setting.log,
  }
}

export type SlotPassResult =
  | { kind: 'slot-taken' }
  /** The net ran its MAX_RUNS slots: nothing was claimed or recorded (runs/run-cap.ts). */
  | { kind: 'finished'; maxRuns: number }
  | { kind: 'claim-failed'; error: unknown }
  | {
      kind: 'ran'
      outcome: PassOutcome
      error?: unknown
      attempts: number
      /** The end the ledger did not answer (it holds the claim without it): the caller may record it later. */
      unrecorded?: RunFinish
    }

/** What recording a slot `skipped` came to (skipSlot). */
export type SlotSkipResult =
  | { kind: 'skipped'; unrecorded?: RunFinish }
  | Exclude<SlotPassResult, { kind: 'ran' }>

/** Claims `spec.slot`, runs the pass if the claim was won, records its end. Never rejects. */
export async function runSlotPass(spec: SlotPassSpec): Promise<SlotPassResult> {
  const startedAt = spec.clock.now()
  const cap = await runCap(spec)
  if (cap.reached) return { kind: 'finished', maxRuns: cap.reached }
  const claimed = await claimSlot(spec, startedAt)
  if (claimed !== true) return claimed
  const number = spec.nextNumber()
  const retake = spec.retake ? { retake: spec.retake } : {}
  const log = spec.log.child({ pass: number, fence: spec.fence, slot: spec.slot.toISOString(), ...retake })
  const looked = cap.looked ?? (await lookFirst(spec, number, log))
  // Checked after the last call before the pass (the claim, or the first pass's look): the pass must not
  // start past the term's step-down instant, and a call answered after a stall (SIGSTOP, a frozen VM) is
  // read only after the step-down timer has fired.
  if (!spec.live()) return notStarted(spec, log)
  // The log is bound to the net and owner, and `log` above adds pass, fence and slot: the chaos checker reads them.
  log.info({}, spec.retake ? 'pass started again: an older term’s holder left it unfinished' : 'pass started')
  const ping = spec.pinger?.start()
  const span = startPassSpan({ ...spec, number })
  const before = laneRequests(spec.forge.meter, laneOf(spec.net))
  const timer = spec.metrics?.passDuration.startTimer({ net: spec.net })
  const ended = await span.within(() =>
    runAttempts(attemptsSpec(spec, startedAt, log, span), (signal, attempt) =>
      runInLane(spec, { signal, number, startedAt, attempt }, attempt === 1 ? log : log.child({ attempt })),
    ),
  )
  span.end(ended)
  const fault = durationFault(
    ended.outcome,
    spec.clock.now().getTime() - startedAt.getTime(),
    spec.durationBounds,
  )
  ping?.end(fault === undefined ? ended : { ...ended, durationFault: fault })
  const ms = Math.round((timer?.() ?? 0) * 1000)
  const requests = laneRequests(spec.forge.meter, laneOf(spec.net)) - before
  if (ended.outcome === 'failed' || ended.outcome === 'timed-out')
    spec.metrics?.passErrors.inc({ net: spec.net })
  logEnd(log, ended, ms, requests)
  const unrecorded = await recordEnd(spec, log, { ...ended, requests })
  if (looked === undefined && spec.looksForOlderClaims(number)) await closeOlderTerms(spec, log)
  if (number === 1 || number % PRUNE_EVERY_PASSES === 0) await prune(spec, log)
  return { kind: 'ran', ...ended, ...(unrecorded ? { unrecorded } : {}) }
}

/**
 * A won claim whose pass may not start: the term ended (or passed its step-down instant) while the calls
 * before the pass were in flight. The slot is recorded `aborted` with no attempt: accounted, not run.
 */
async function notStarted(spec: SlotPassSpec, log: Logger): Promise<SlotPassResult> {
  const why = 'the term ended while its claim or its look for older claims was in flight'
  log.warn({}, `${why}: the slot is recorded aborted, not run`)
  const unrecorded = await recordEnd(spec, log, { outcome: 'aborted', requests: 0, attempts: 0 })
  return { kind: 'ran', outcome: 'aborted', attempts: 0, ...(unrecorded ? { unrecorded } : {}) }
}

/**
 * MAX_RUNS before a scheduled slot's claim: `reached` (the cap) when the net's runs the term knows count up
 * to it. A term that has read none of its runs yet makes its first look for older claims now, reading
 * enough runs to count (`looked`): the one read it makes anyway. A manual run and a retake (the same slot
 * again) are never refused.
 */
async function runCap(spec: SlotPassSpec): Promise<{ reached?: number; looked?: true }> {
  const { maxRuns } = spec
  if (maxRuns === undefined || spec.manual || spec.retake) return {}
  let looked: true | undefined
  if (!spec.ledger.hasRead()) {
    await closeOlderTerms(spec, spec.log, Math.max(CLOSE_LOOKBACK_RUNS, RUN_CAP_LOOKBACK * maxRuns))
    looked = true
  }
  if (spec.ledger.runsCounted(spec.net) < maxRuns) return looked ? { looked } : {}
  spec.log.debug({ slot: spec.slot.toISOString(), maxRuns }, 'slot not run: the net ran its MAX_RUNS slots')
  return { reached: maxRuns }
}

/**
 * A term that has read none of its runs yet (`once`, a backfill's first slot) makes its first pass's look
 * before the pass, not after: the one read then also tells the pass its history. Whether it looked;
 * undefined when the term had read (its look, if due, comes after the pass as before).
 */
async function lookFirst(spec: SlotPassSpec, number: number, log: Logger): Promise<boolean | undefined> {
  if (spec.ledger.hasRead()) return undefined
  const looks = spec.looksForOlderClaims(number)
  if (looks) await closeOlderTerms(spec, log)
  return looks
}

/**
 * Records `spec.slot` `skipped` without running it (the net's OVERLAP policy let it go): claimed like any
 * slot and finished at once with 0 attempts, so the slot is accounted. A slot another term claimed is left
 * as it is (`slot-taken`); a claim the ledger could not answer records nothing. Never rejects.
 */
export async function skipSlot(spec: SlotPassSpec): Promise<SlotSkipResult> {
  const claimed = await claimSlot(spec, spec.clock.now())
  if (claimed !== true) return claimed
  const log = spec.log.child({ fence: spec.fence, slot: spec.slot.toISOString() })
  const unrecorded = await recordEnd(spec, log, { outcome: 'skipped', requests: 0, attempts: 0 })
  return { kind: 'skipped', ...(unrecorded ? { unrecorded } : {}) }
}

async function claimSlot(
  spec: SlotPassSpec,
  startedAt: Date,
): Promise<true | Exclude<SlotPassResult, { kind: 'ran' }>> {
  // Bounded, but not ended with the term: a claim aborted on our side may still land on the server, leaving
  // a claim nobody finishes. Let it answer; a claim won by an ended term is recorded `aborted` (runSlotPass).
  const signal = callBoundSignal(spec.claimBoundMs)
  try {
    const { net, slot, owner, fence } = spec
    const manual = spec.manual ? { manual: true } : {}
    const installation = spec.installation === undefined ? {} : { installation: spec.installation }
    const claim = { net, slot, owner, fence, startedAt, ...manual, ...installation }
    const won = spec.retake
      ? await spec.ledger.retake(claim, { signal })
      : await spec.ledger.claim(claim, { signal })
    return won ? true : { kind: 'slot-taken' }
  } catch (error) {
    return { kind: 'claim-failed', error }
  }
}

function attemptsSpec(spec: SlotPassSpec, startedAt: Date, log: Logger, span: PassSpan) {
  return {
    net: spec.net,
    slot: spec.slot,
    // A retake is the slot's next attempt: its pass gets the retries the cut-off ones left.
    policy: spec.retake
      ? { ...spec.attempts, retries: Math.max(0, spec.attempts.retries - spec.retake) }
      : spec.attempts,
    term: spec.term,
    live: spec.live,
    stepDownAt: spec.stepDownAt,
    // After the slot and after the start: a catch-up pass's retries end where the next tick begins.
    nextSlotAt: spec.nextSlotAfter(new Date(Math.max(spec.slot.getTime(), startedAt.getTime()))),
    clock: spec.clock,
    log,
    onAttempt: (outcome: PassOutcome, attempt: number, error?: unknown) => {
      spec.metrics?.passAttempts.inc({ net: spec.net, outcome })
      span.attempt(attempt, outcome, error)
    },
  }
}

/** One attempt of the pass in the net's lane, under the attempt's signal; rejects when the pass threw. */
async function runInLane(
  spec: SlotPassSpec,
  run: { signal: AbortSignal; number: number; startedAt: Date; attempt: number },
  log: Logger,
): Promise<void> {
  await withLane(laneOf(spec.net), () =>
    spec.pass({
      signal: run.signal,
      log,
      ...(spec.installation === undefined ? {} : { installation: spec.installation }),
      ...(spec.primaryInstallation === undefined ? {} : { primaryInstallation: spec.primaryInstallation }),
      // Read on use: a pass that never calls the forge never builds its client (Octokit, undici). The
      // one lazy read of the forge between a command and a pass.
      get forge() {
        return spec.forge.octokit
      },
      pass: run.number,
      fence: spec.fence,
      slot: spec.slot,
      startedAt: run.startedAt,
      now: () => spec.clock.now(),
      ...runContext(spec, run.attempt),
    }),
  )
}

/**
 * What the pass is told of its slot's place in the net's history: why it runs, which attempt, the runs
 * before it as the term's ledger knows them (read at the election or the first pass's look, then the
 * term's own writes: no read of its own), and the slots to come.
 */
function runContext(
  spec: SlotPassSpec,
  attempt: number,
): Pick<PassContext, 'reason' | 'attempt' | 'previous' | 'lastSuccess' | 'upcoming'> {
  const reason = spec.manual ? 'manual' : spec.retake ? 'retry' : (spec.reason ?? 'tick')
  const before = spec.ledger.before(spec.net, spec.slot, spec.manual)
  return { reason, attempt, ...before, upcoming: spec.upcomingAfter(spec.slot) }
}

function logEnd(log: Logger, ended: AttemptsEnd, ms: number, requests: number): void {
  const fields = { ms, requests, attempts: ended.attempts }
  if (ended.outcome === 'failed') log.error({ err: ended.error, ...fields }, 'pass failed')
  else if (ended.outcome === 'timed-out') log.error({ err: ended.error, ...fields }, 'pass timed out')
  else if (ended.outcome === 'aborted')
    log.info({ ...fields, err: ended.error }, 'pass aborted: its term ended, or it was replaced or paused')
  else log.debug(fields, 'pass finished')
}

/** Records the pass's end; resolves the end when the ledger did not answer (undefined when it did). */
async function recordEnd(
  spec: SlotPassSpec,
  log: Logger,
  ended: { outcome: RunOutcome; error?: unknown; requests: number; attempts: number },
): Promise<RunFinish | undefined> {
  const finish = {
    finishedAt: spec.clock.now(),
    outcome: ended.outcome,
    attempts: ended.attempts,
    ...(ended.error === undefined ? {} : { error: errorMessage(ended.error) }),
    // Keyed by the ledger's name, never the lane: a `.` in a stored key is a path to MongoDB.
    ...(spec.forge.meter ? { requests: { [spec.net]: ended.requests } } : {}),
  }
  try {
    const signal = AbortSignal.timeout(RECORD_BOUND_MS)
    const options = { signal, ...(spec.manual ? { manual: true } : {}) }
    const recorded = await spec.ledger.finish(spec.net, spec.slot, spec.owner, spec.fence, finish, options)
    if (!recorded)
      log.warn({}, 'the ledger no longer holds this pass’s claim (pruned?): its outcome is not recorded')
    return undefined
  } catch (error) {
    log.warn({ err: error }, 'could not record the pass’s outcome in the ledger')
    return finish
  }
}

/**
 * After a pass that looks (older-claims-look.ts), the newest few runs an older term left without an end are closed
 * `aborted` (close-unfinished.ts): so a claim that landed after its holder stopped waiting is accounted
 * within a few passes, whichever replica holds.
 */
async function closeOlderTerms(
  spec: SlotPassSpec,
  log: Logger,
  lookback = CLOSE_LOOKBACK_RUNS,
): Promise<void> {
  try {
    const signal = () => AbortSignal.timeout(RECORD_BOUND_MS)
    // Not runs dated past now: they would fill the few looked at, and be closed before their slot came.
    const until = historyUntil(spec.clock.now())
    const runs = await spec.ledger.history(spec.net, lookback, { signal: signal(), until })
    const now = () => spec.clock.now()
    await closeUnfinished(
      { ledger: spec.ledger, fence: spec.fence, now, signal, going: () => true, log },
      runs,
    )
  } catch (error) {
    log.debug({ err: error }, 'could not close older terms’ unfinished runs; the next pass retries')
  }
}

async function prune(spec: SlotPassSpec, log: Logger): Promise<void> {
  try {
    const signal = AbortSignal.timeout(RECORD_BOUND_MS)
    const until = historyUntil(spec.clock.now())
    const deleted = await spec.ledger.prune(spec.net, spec.keepRuns, { signal, until })
    if (deleted > 0) log.debug({ deleted, kept: spec.keepRuns }, 'pruned the run ledger')
  } catch (error) {
    log.warn({ err: error }, 'could not prune the run ledger; the next prune retries')
  }
}

/**
 * The forge lane a net's requests are charged to: its name, with `<net>:<installation>` written
 * `<net>.<installation>` (a lane is a metric label and a log key: no `:`), so each installation has its lane.
 */
export function laneOf(net: string): string {
  return net.replace(':', '.')
}

/** Attempts the meter counted in `lane` so far (every host, API and status). */
function laneRequests(meter: ForgeMeter | undefined, lane: string): number {
  if (!meter) return 0
  let count = 0
  for (const total of meter.totals()) if (total.lane === lane) count += total.count
  return count
}

/** What the ledger records of a failed pass: scrubbed, since /status, the page and `history` serve it. */
function errorMessage(error: unknown): string {
  return scrubbedErrorMessage(error)
}

/**
 * Why a successful pass's duration is a fault for its ping (`slow: …`, `too fast: …`), as netState judges
 * it from the ledger (status/net-state.ts); undefined when within the bounds, unbounded or not a success.
 */
export function durationFault(
  outcome: string,
  tookMs: number,
  bounds: SlotPassSpec['durationBounds'],
): string | undefined {
  if (outcome !== 'ok' || !bounds) return undefined
  if (bounds.maxMs !== undefined && tookMs > bounds.maxMs)
    return `slow: the pass took ${tookMs} ms, longer than MAX_DURATION (${formatDuration(bounds.maxMs)})`
  if (bounds.minMs !== undefined && tookMs < bounds.minMs)
    return `too fast: the pass took ${tookMs} ms, sooner than MIN_DURATION (${formatDuration(bounds.minMs)})`
  return undefined
}
