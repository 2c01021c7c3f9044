/**
 * The scheduler: for each enabled net, a lease campaign (lease.run) whose terms tick on the net's schedule
 * in its time zone (slot-ticker.ts: the DST rule of schedule.ts decides when and which slot) and fire the
 * net's passes, each for one schedule slot claimed in the run ledger, in the net's forge lane.
 *
 * A term's first work is its catch-up (catch-up.ts): the slots due at its election that the ledger has no
 * record of are run (by the net's CATCH_UP: the newest, or those within the window oldest first) or
 * recorded `missed`, so a takeover runs the slot a crashed holder missed, once, and accounts the others.
 * A tick that finds the term past its step-down instant starts nothing (checked
 * synchronously, so a blocked event loop cannot start a pass late). A tick that finds the previous pass
 * still running follows the net's OVERLAP policy: `buffer-one` runs its slot as soon as the pass ends
 * (the newest such slot only, the ones it replaced recorded `skipped`), `skip` records it `skipped`; either
 * way every slot the term let go is in the ledger and counted (`overlap`). A slot another term claimed is skipped (`slot-taken`); a claim the
 * ledger could not answer runs nothing (`claim-failed`). When the term ends the task stops and the pass in
 * flight gets the abort and is awaited.
 *
 * A claim (or a skip's record, or the election's read) the ledger could not answer leaves the term owing a
 * look back (ledger-recovery.ts): once no work is in flight, at most RECOVERY_RETRY_MAX_MS later and again
 * until the ledger answers, the term makes the catch-up from that instant (the same plan, `recovery`), so
 * the slot is run late under the net's CATCH_UP or recorded `missed` — never left without a record. A pass that throws is logged and recorded `failed`; it never ends
 * the term or the process.
 */
import { type CampaignAttempt, run, type TermInfo } from '../lease/run.js'
import type { LeaseStore, LeaseTerm } from '../lease/store.js'
import type { TermEvent } from '../lease/term-event.js'
import { type CampaignHeartbeats, staleLimitMs } from './campaign-heartbeats.js'
import type { NetConfig } from '../config/worker-config.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import { nextFireTime } from '../schedule/schedule.js'
import { formatLocal } from '../schedule/zoned-time.js'
import {
  type PassSetting,
  runSlotPass,
  type SlotPassResult,
  type SlotPassSpec,
  skipSlot,
  slotPassSpec,
} from './slot-pass.js'
import { startSlotTicker } from './slot-ticker.js'
import { slotSpreadMs } from './slot-spread.js'
import { type CatchUpSpec, catchUp } from './catch-up.js'
import type { CatchUpOccasion } from './catch-up-plan.js'
import { type LedgerRecovery, type LostRecord, startLedgerRecovery } from './ledger-recovery.js'
import { controlJobs, type JobInFlight } from './control-jobs.js'
import type { ControlJob } from './holder-controls.js'
import type { NetControlStore } from '../control/net-control-store.js'
import { type DeferralPolicy, type DeferredSlot, deferralNow, recordDeferred } from './budget-deferral.js'
import { openTerm } from '../nets/net-term.js'
import { termCallBoundMs } from '../lease/call-bound.js'

/** The longest a holder waits, after the run ledger did not answer, before it looks back (ledger-recovery.ts). */
const RECOVERY_RETRY_MAX_MS = 10_000

/** How many more look backs check a lost slot the ledger has no record of yet (its claim may land late). */
const UNSETTLED_LOOK_BACKS = 3

/** A net's campaign: what its passes share (PassSetting, built into each pass by slotPassSpec) and more. */
export interface NetCampaignOptions extends PassSetting {
  store: LeaseStore
  resources: unknown
  metrics: WorkerMetrics
  signal: AbortSignal
  /** Filled with the net's term while one is served (by lease name), so a forced shutdown can release it. */
  held?: Map<string, LeaseTerm>
  /** Where the campaign beats on every attempt, for /healthz (campaign-heartbeats.ts). */
  heartbeats?: CampaignHeartbeats
  /** The nets' pauses and run requests; without it every slot runs as scheduled. */
  controls?: NetControlStore
  /** How often the holder reads its net's controls between ticks (ms); CONTROL_POLL_MS by default. */
  controlPollMs?: number
  /** Holds the campaign back and ends its terms early: the clock guard and the fair share (worker.ts). */
  gate?: CampaignGate
  /** The reserve and the installation's budget: a scheduled slot that would eat into it is `deferred`. */
  deferral?: DeferralPolicy
}

/** What holds a net's campaign back and ends its terms early (the worker's clock guard and fair share). */
export interface CampaignGate {
  /** Asked before each acquire (lease.run's `mayCampaign`). */
  mayCampaign(): boolean
  /** Each attempt settled or was withheld (lease.run's `onAttempt`). */
  attempted(kind: CampaignAttempt): void
  /** A term began: `stepDown` ends it after its pass in flight. Returns what to call once it ended. */
  onTerm(stepDown: () => void): () => void
}

/** Campaigns for the net's lease until `signal` aborts; resolves when its term (if any) is over and released. */
export function runNetCampaign(options: NetCampaignOptions): Promise<void> {
  const { net, owner, metrics } = options
  const lease = net.definition.lease
  const log = options.log.child({ net: net.definition.name, lease })
  const heartbeat = options.heartbeats?.watch({
    lease,
    net: net.definition.name,
    limitMs: staleLimitMs(net.pacing),
  })
  return run(
    options.store,
    {
      name: lease,
      owner,
      ttlMs: net.pacing.ttlMs,
      retryMs: net.pacing.retryMs,
      signal: options.signal,
      clock: options.clock,
      log,
      onEvent: termMetrics(metrics),
      onAttempt: (kind) => {
        heartbeat?.beat()
        options.gate?.attempted(kind)
      },
      ...(options.gate ? { mayCampaign: options.gate.mayCampaign } : {}),
    },
    async (term, info) => {
      options.held?.set(lease, { name: lease, owner, token: info.token })
      const stepDown = new AbortController()
      const forget = options.gate?.onTerm(() => stepDown.abort())
      try {
        await serveTerm(options, log, term, info, stepDown.signal)
      } finally {
        forget?.()
        options.held?.delete(lease)
      }
    },
  ).then(
    () => heartbeat?.end(),
    (error: unknown) => {
      // Nobody campaigns for this net in this process any more: /healthz names it until a restart.
      heartbeat?.fail(error)
      throw error
    },
  )
}

/** The lease metrics, derived from run()'s typed term events. */
export function termMetrics(metrics: WorkerMetrics): (event: TermEvent) => void {
  return (event) => {
    const { lease, owner } = event
    switch (event.type) {
      case 'elected':
        metrics.termsStarted.inc({ lease })
        metrics.leaseHeld.set({ lease, owner }, 1)
        break
      case 'lost':
        metrics.stepDowns.inc({ lease, reason: 'lost' })
        break
      case 'stepped-down':
        metrics.stepDowns.inc({ lease, reason: 'deadline' })
        break
      case 'attempt-failed':
        metrics.attemptFailures.inc({ lease })
        break
      case 'released':
      case 'release-lost':
      case 'release-failed':
        metrics.leaseHeld.set({ lease, owner }, 0)
        break
    }
  }
}

/**
 * Serves one term until it ends, or until `stepDown` aborts (the fair share): then no new pass starts,
 * the pass in flight finishes, and returning lets lease.run release the lease.
 */
async function serveTerm(
  options: NetCampaignOptions,
  log: Logger,
  term: AbortSignal,
  info: TermInfo,
  stepDown?: AbortSignal,
): Promise<void> {
  const { net } = options
  // Pass lines get their fence (with pass and slot) from runSlotPass; binding it here too would repeat it.
  // A step-down ends the term's control poll and jobs with its ticks; the pass in flight finishes.
  const serving = stepDown ? AbortSignal.any([term, stepDown]) : term
  const serve = slotServer(options, log, term, info, serving)
  const { schedule, timeZone } = net
  // The election's instant: the catch-up serves the slots at or before it, the ticks those after it.
  const elected = options.clock.now()
  const offsetMs = spreadOf(net, elected)
  const ticker = startSlotTicker({ schedule, timeZone, clock: options.clock, offsetMs, onSlot: serve })
  logNextPass(log.child({ fence: info.fence }), net, elected, offsetMs)
  serve.catchUp(elected)
  try {
    await new Promise<void>((resolve) => {
      if (term.aborted || stepDown?.aborted) return resolve()
      term.addEventListener('abort', () => resolve(), { once: true })
      stepDown?.addEventListener('abort', () => resolve(), { once: true })
    })
    if (stepDown?.aborted && !term.aborted)
      log.info({ fence: info.fence }, 'stepping down: this replica holds more than its fair share')
  } finally {
    ticker.stop()
    await serve.settled()
  }
}

/**
 * How long after each slot the net's passes start: the spread (slot-spread.ts) of one installation's copy
 * of a per-installation net (`<net>:<installation>`, under GITHUB_INSTALLATION_IDS), so N installations'
 * passes do not reach the store and the forge at one instant. 0 for a global net, and for a
 * per-installation net under GITHUB_INSTALLATION_ID (its plain name: one installation, nothing to spread).
 */
function spreadOf(net: NetConfig, at: Date): number {
  const scoped = net.installation !== undefined && net.definition.name.endsWith(`:${net.installation}`)
  if ((net.definition.scope ?? 'global') !== 'installation' || !scoped) return 0
  return slotSpreadMs(net.definition.name, net.schedule, net.timeZone, at)
}

/** The one line a term begins with: when the schedule's next pass is due (UTC, ISO 8601; and local when zoned). */
function logNextPass(log: Logger, net: NetConfig, now: Date, spreadMs: number): void {
  const { schedule, timeZone } = net
  const next = new Date(nextFireTime(schedule, now, timeZone).getTime() + spreadMs)
  const nextPassAt = next.toISOString()
  const local = timeZone === 'UTC' ? '' : ` (${formatLocal(next, timeZone)} ${timeZone})`
  const fields = { schedule, timeZone, nextPassAt, ...(spreadMs > 0 ? { spreadMs } : {}) }
  log.info(fields, `term began: next scheduled pass at ${nextPassAt}${local}`)
}

interface SlotServer {
  (slot: Date): void
  /** The term's catch-up of the slots due at `elected` (catch-up.ts), served as one pass would be. */
  catchUp(elected: Date): void
  /** Resolves once the pass in flight (if any) has settled and been recorded. */
  settled(): Promise<void>
}

/**
 * The term's pass loop: one pass at a time, each for a slot it claimed; counts what it skipped. A tick that
 * finds a pass running follows the net's OVERLAP: `skip` records its slot `skipped`; `buffer-one` keeps it
 * (the newest only: the slot it replaces is recorded `skipped`) and runs it when the pass ends, in this term
 * only — a term that ends, or is past its step-down instant, drops it for the successor's catch-up.
 * With the net's controls (holder-controls.ts), a slot due while the net is paused is recorded `paused`,
 * and operators' requests (run now, catch-up) run as jobs between passes, after any buffered slot.
 */
function slotServer(
  options: NetCampaignOptions,
  log: Logger,
  term: AbortSignal,
  info: TermInfo,
  serving: AbortSignal = term,
): SlotServer {
  const { net, metrics } = options
  const name = net.definition.name
  // The job in flight, with its own abort (a pause with --abort): its passes end with it.
  let current: JobInFlight | undefined
  const spec = termPassSpecs(options, log, term, info, () => current?.abort.signal)
  const jobs = controlJobs({
    options,
    log,
    term: serving,
    info,
    spec,
    onRequest: (job) => serve.job(job),
    current: () => current,
    countSkip: (result, slot) => countSkip(result, metrics, name, slot, log),
  })
  let inFlight: Promise<void> | undefined
  let buffered: Date | undefined
  const recovery = termRecovery(options, serving, info, {
    busy: () => inFlight !== undefined,
    lookBack: (now, lost) => lookBack(now, 'recovery', lost),
  })
  const skips = skipRecorder(spec, metrics, name, log, recovery)
  // A recovery's pass is for a slot whose tick already counted its skip (`again`): it only owes again.
  const runSlot = (slot: Date, again = false) =>
    runSlotPass(spec(slot)).then((result) =>
      again ? oweOnFailure(result, slot, recovery) : countSkip(result, metrics, name, slot, log, recovery),
    )
  const gatedSlot = gatedSlotPass(jobs, runSlot, (slot) => deferSlot(options, log, info, slot))
  /** Runs `work` as the job in flight; when it ends, the buffered slot is served, else the next control job. */
  const occupy = (work: () => Promise<unknown>) => {
    current = { at: options.clock.now(), abort: new AbortController() }
    inFlight = work()
      .then(() => undefined)
      .finally(() => {
        inFlight = undefined
        current = undefined
        const next = buffered
        buffered = undefined
        if (next && serving.aborted)
          log.debug({ slot: next.toISOString() }, 'buffered slot dropped: the term ended')
        else if (next) serve(next)
        else if (!serving.aborted && info.live() && !recovery.idle()) jobs.next(occupy)
      })
  }
  const serve = (slot: Date) => {
    if (serving.aborted) return
    if (!info.live()) {
      metrics.skippedTicks.inc({ net: name, reason: 'deadline' })
      return
    }
    if (inFlight) {
      if (net.overlap === 'skip') return skips.skip(slot, 'the previous pass is still running')
      if (buffered) skips.skip(buffered, 'a newer tick replaced it while the previous pass runs')
      buffered = slot
      log.debug({ slot: slot.toISOString() }, 'tick buffered: its slot runs when the previous pass ends')
      return
    }
    occupy(() => gatedSlot(slot))
  }
  const lookBack = termLookBack(options, log, { term, serving }, info, { occupy, gatedSlot, recovery })
  serve.job = (job: ControlJob) => {
    jobs.queue(job)
    if (!inFlight && !serving.aborted && info.live()) jobs.next(occupy)
  }
  const settled = async () => {
    recovery.stop()
    // A pass's end may start the buffered slot's pass: wait until neither a pass nor a record is left.
    while (inFlight || skips.pending()) await Promise.all([inFlight, skips.settled()])
    await jobs.stopped
  }
  return Object.assign(serve, { catchUp: (elected: Date) => lookBack(elected, 'election'), settled })
}

/** The catch-up from `now`, as the term's work (`occupy`); a ledger that did not answer leaves a look back owed. */
function termLookBack(
  options: NetCampaignOptions,
  log: Logger,
  { term, serving }: { term: AbortSignal; serving: AbortSignal },
  info: TermInfo,
  work: {
    occupy(run: () => Promise<unknown>): void
    gatedSlot(slot: Date, again: boolean): Promise<SlotPassResult | undefined>
    recovery: LedgerRecovery
  },
): (now: Date, occasion: CatchUpOccasion, lost?: LostRecord[]) => void {
  return (now, occasion, lost = []) => {
    if (serving.aborted || !info.live()) return
    const at = { now, occasion, lost }
    const runSlot = (slot: Date) => work.gatedSlot(slot, occasion === 'recovery')
    work.occupy(async () => {
      const summary = await catchUp(catchUpSpec(options, log, term, info, at, runSlot))
      for (const record of summary.unsettled)
        if ((record.tries ?? 0) < UNSETTLED_LOOK_BACKS)
          work.recovery.owe({ ...record, tries: (record.tries ?? 0) + 1 })
      if (summary.answered && summary.left === 0) return
      work.recovery.owe()
      for (const record of lost) work.recovery.owe(record)
    })
  }
}

/** A slot's pass unless the net is paused now (then recorded `paused`: undefined); its skips counted. */
function gatedSlotPass(
  jobs: ReturnType<typeof controlJobs>,
  runSlot: (slot: Date, again: boolean) => Promise<SlotPassResult>,
  defer: (slot: Date) => Promise<boolean>,
): (slot: Date, again?: boolean) => Promise<SlotPassResult | undefined> {
  return async (slot, again = false) => {
    let result: SlotPassResult | undefined
    await jobs.scheduled(slot, async () => {
      if (await defer(slot)) return
      result = await runSlot(slot, again)
    })
    return result
  }
}

/**
 * Builds the term's pass (the net's term factory) and the spec of each of its slots' passes; a pass also
 * ends with the abort of the job it runs in (`jobAbort`: a pause with --abort).
 */
function termPassSpecs(
  options: NetCampaignOptions,
  log: Logger,
  term: AbortSignal,
  info: TermInfo,
  jobAbort: () => AbortSignal | undefined,
): (slot: Date, manual?: boolean) => SlotPassSpec {
  const { net } = options
  const pass = openTerm(net.definition, options.resources, {
    options: net.options,
    log,
    signal: term,
    stepDownAt: info.stepDownAt,
  })
  const setting: PassSetting = { ...options, log }
  let passNumber = 0
  return (slot, manual = false) => {
    const own = jobAbort()
    const passTerm = {
      ...{ fence: info.fence, live: info.live, stepDownAt: info.stepDownAt },
      term: own ? AbortSignal.any([term, own]) : term,
    }
    return {
      ...slotPassSpec(setting, passTerm, pass, slot, () => ++passNumber),
      ...(manual ? { manual } : {}),
    }
  }
}

/**
 * The term's ledger recovery (ledger-recovery.ts): after the ledger did not answer, a look back every
 * retry (at most RECOVERY_RETRY_MAX_MS) while the term goes on and no work is in flight.
 */
function termRecovery(
  options: NetCampaignOptions,
  serving: AbortSignal,
  info: TermInfo,
  work: { busy(): boolean; lookBack(now: Date, lost: LostRecord[]): void },
): LedgerRecovery {
  return startLedgerRecovery({
    clock: options.clock,
    retryMs: Math.min(options.net.pacing.retryMs, RECOVERY_RETRY_MAX_MS),
    going: () => !serving.aborted && info.live(),
    busy: work.busy,
    recover: work.lookBack,
  })
}

/**
 * The term's catch-up from `at.now` (its election, or a recovery's instant): its slots run through
 * `runSlot`, as a tick's would.
 */
function catchUpSpec(
  options: NetCampaignOptions,
  log: Logger,
  term: AbortSignal,
  info: TermInfo,
  at: { now: Date; occasion: CatchUpOccasion; lost: LostRecord[] },
  runSlot: (slot: Date) => Promise<SlotPassResult | undefined>,
): CatchUpSpec {
  const { net, ledger, owner, clock, runHistory } = options
  return {
    ...{ net, ledger, owner, fence: info.fence, clock, now: at.now, occasion: at.occasion, runHistory },
    lost: at.lost,
    ...{
      term,
      live: info.live,
      boundMs: termCallBoundMs(net.pacing.ttlMs),
      runSlot,
      log: log.child({ fence: info.fence }),
    },
  }
}

/** Records `slot` `deferred` when the installation's budget is at its reserve (deferral.ts); true if so. */
async function deferSlot(
  options: NetCampaignOptions,
  log: Logger,
  info: TermInfo,
  slot: Date,
): Promise<boolean> {
  const deferred = deferralNow(options.deferral)
  if (deferred === undefined) return false
  await recordDeferred(deferredSlot(options, log, info), slot, deferred)
  return true
}

function deferredSlot(options: NetCampaignOptions, log: Logger, info: TermInfo): DeferredSlot {
  const { net } = options
  return {
    ...{
      ledger: options.ledger,
      net: net.definition.name,
      installation: net.installation,
      owner: options.owner,
    },
    ...{ fence: info.fence, clock: options.clock, log, metrics: options.metrics },
    boundMs: termCallBoundMs(net.pacing.ttlMs),
  }
}

/**
 * Records slots let go for overlap `skipped` in the ledger (counted `overlap`), and awaits the writes; a
 * write the ledger did not answer leaves a look back owed (`recovery`), which accounts the slot.
 */
function skipRecorder(
  spec: (slot: Date) => SlotPassSpec,
  metrics: WorkerMetrics,
  net: string,
  log: Logger,
  recovery: Pick<LedgerRecovery, 'owe'>,
) {
  const writes = new Set<Promise<void>>()
  return {
    skip(slot: Date, why: string): void {
      metrics.skippedTicks.inc({ net, reason: 'overlap' })
      const at = slot.toISOString()
      log.debug({ slot: at }, `slot skipped, recorded skipped in the ledger: ${why}`)
      const write: Promise<void> = skipSlot(spec(slot))
        .then((result) => {
          if (result.kind === 'skipped' && result.unrecorded) recovery.owe({ slot, end: result.unrecorded })
          if (result.kind !== 'claim-failed') return
          log.warn(
            { slot: at, err: result.error },
            'could not record a skipped slot: the ledger did not answer; the term looks back once it does',
          )
          recovery.owe({ slot })
        })
        .finally(() => writes.delete(write))
      writes.add(write)
    },
    pending: () => writes.size > 0,
    settled: async () => void (await Promise.all(writes)),
  }
}

/** A claim the ledger did not answer owes `recovery` a look back; the result is handed on. */
function oweOnFailure(
  result: SlotPassResult,
  slot: Date,
  recovery: Pick<LedgerRecovery, 'owe'>,
): SlotPassResult {
  if (result.kind === 'claim-failed') recovery.owe({ slot })
  else if (result.kind === 'ran' && result.unrecorded) recovery.owe({ slot, end: result.unrecorded })
  return result
}

/** Counts (and says) a slot a pass did not run; a claim the ledger did not answer owes `recovery` a look back. */
function countSkip(
  result: SlotPassResult,
  metrics: WorkerMetrics,
  net: string,
  slot: Date,
  log: Logger,
  recovery?: Pick<LedgerRecovery, 'owe'>,
): SlotPassResult {
  if (result.kind === 'slot-taken') {
    metrics.skippedTicks.inc({ net, reason: 'slot-taken' })
    log.debug(
      { slot: slot.toISOString() },
      'slot skipped: the ledger says it already ran (or runs) elsewhere',
    )
  } else if (result.kind === 'claim-failed') {
    metrics.skippedTicks.inc({ net, reason: 'claim-failed' })
    log.warn(
      { slot: slot.toISOString(), err: result.error },
      'slot skipped: the run ledger did not answer the claim (fail-closed); the term looks back once it does',
    )
    recovery?.owe({ slot })
  } else if (result.kind === 'ran' && result.unrecorded) recovery?.owe({ slot, end: result.unrecorded })
  return result
}
