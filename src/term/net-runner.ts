/**
 * A net's runner: for one enabled net, a lease campaign (lease.run) whose terms each serve the net's
 * schedule in its time zone. For every term it builds the term's one object (served-term.ts: fence,
 * liveness, signals, the call bound computed once), wires the term's declared steps (term-steps.ts: the
 * pause gate, the budget's deferral, the catch-up, the ledger recovery) and hands both to the term's
 * scheduler (term-scheduler.ts), which runs the catch-up of the slots due at the election, then a pass per
 * tick (slot-ticker.ts: the DST rule of schedule.ts decides when and which slot), each for one slot claimed
 * in the run ledger (slot-pass.ts), in the net's forge lane.
 *
 * When the term ends the ticks stop and the work in flight gets the abort and is awaited; a step-down the
 * worker asks for (`gate.onTerm`: the fair share) lets the work in flight finish. A pass that throws is
 * logged and recorded `failed`; it never ends the term or the process.
 *
 * What it is not: the worker (worker.ts decides which nets run and wires the gate) or the pass loop.
 */
import type { AcquireTurnTaker } from '../lease/acquire-turns.js'
import { type CampaignAttempt, run, type TermInfo } from '../lease/run.js'
import type { LeaseStore, LeaseTerm } from '../lease/store.js'
import type { TermEvent } from '../lease/term-event.js'
import { type CampaignHeartbeats, staleLimitMs } from './campaign-heartbeats.js'
import type { NetConfig } from '../config/worker-config.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import { nextFireTime, scheduleOf } from '../schedule/schedule.js'
import { formatLocal } from '../schedule/zoned-time.js'
import type { PassSetting } from './slot-pass.js'
import { SlotTicker } from './slot-ticker.js'
import { storeClock } from './store-clock.js'
import { passOffsetMs } from './slot-spread.js'
import { TermCatchUp } from './catch-up.js'
import { LedgerRecovery } from './ledger-recovery.js'
import { ControlPoll } from './control-poll.js'
import { HolderControls } from './holder-controls.js'
import type { NetControlStore } from '../control/net-control-store.js'
import { BudgetDeferral, type DeferralPolicy } from './budget-deferral.js'
import { openTerm } from '../nets/net-term.js'
import { ServedTerm } from './served-term.js'
import { TermScheduler } from './term-scheduler.js'
import type { TermSteps } from './term-steps.js'
import type { TermShare } from '../share/share-keeper.js'

/** The longest a holder waits, after the run ledger did not answer, before it looks back (ledger-recovery.ts). */
const RECOVERY_RETRY_MAX_MS = 10_000

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
  /**
   * The replica's poll of its nets' controls (control-poll.ts), shared by every net of the process so one
   * read serves them all; without it the net polls on its own, every `controlPollMs`.
   */
  controlPoll?: ControlPoll
  /** How often a net without a shared poll reads its controls between ticks (ms); CONTROL_POLL_MS by default. */
  controlPollMs?: number
  /** Holds the campaign back and ends its terms early: the clock guard and the fair share (worker.ts). */
  gate?: CampaignGate
  /** The replica's acquire turns (lease.run's `acquireTurns`): one queue for all its campaigns. */
  acquireTurns?: AcquireTurnTaker
  /** The reserve and the installation's budget: a scheduled slot that would eat into it is `deferred`. */
  deferral?: DeferralPolicy
  /**
   * This replica's wall clock minus the store server's, to shift the ticks by (ClockGuard.tickOffsetMs):
   * each slot then starts at the server's instant (store-clock.ts). None: the replica's own clock.
   */
  tickOffsetMs?: () => number
}

/** What holds a net's campaign back and ends its terms early (the worker's clock guard and fair share). */
export interface CampaignGate {
  /** Asked before each acquire (lease.run's `mayCampaign`). */
  mayCampaign(): boolean
  /** Each attempt settled or was withheld (lease.run's `onAttempt`). */
  attempted(kind: CampaignAttempt): void
  /**
   * A term began: its place in the fair share, if the worker keeps one; the term steps down after its work
   * in flight when `stepDown` aborts, and calls `ended` once it is over.
   */
  onTerm(): TermShare | undefined
}

/** Campaigns for the net's lease until `signal` aborts; resolves when its term (if any) is over and released. */
export function runNetCampaign(options: NetCampaignOptions): Promise<void> {
  return new NetRunner(options).campaign()
}

/** One net's campaign and the terms it wins; see the module's doc. */
export class NetRunner {
  readonly #options: NetCampaignOptions
  /** Bound to the net and its lease. */
  readonly #log: Logger
  readonly #setting: PassSetting
  readonly #poll: ControlPoll | undefined

  constructor(options: NetCampaignOptions) {
    const { net, controls } = options
    this.#options = options
    this.#log = options.log.child({ net: net.definition.name, lease: net.definition.lease })
    this.#setting = { ...options, log: this.#log }
    this.#poll =
      options.controlPoll ?? (controls && new ControlPoll(controls, options.clock, options.controlPollMs))
  }

  /** Campaigns until the signal aborts; resolves once the term (if any) is over and released. */
  campaign(): Promise<void> {
    const { net, owner, metrics, gate } = this.#options
    const lease = net.definition.lease
    const heartbeat = this.#options.heartbeats?.watch({
      lease,
      net: net.definition.name,
      limitMs: staleLimitMs(net.pacing),
    })
    const spec = {
      ...{ name: lease, owner, ttlMs: net.pacing.ttlMs, retryMs: net.pacing.retryMs },
      ...{ signal: this.#options.signal, clock: this.#options.clock, log: this.#log },
      onEvent: termMetrics(metrics),
      onAttempt: (kind: CampaignAttempt) => {
        heartbeat?.beat()
        gate?.attempted(kind)
      },
      ...(gate ? { mayCampaign: gate.mayCampaign } : {}),
      ...(this.#options.acquireTurns ? { acquireTurns: this.#options.acquireTurns } : {}),
      // A standby looks before each slot, so a clean stop of the holder does not delay it (due-look.ts).
      nextDue: (after: Date) => nextFireTime(scheduleOf(net), after, net.timeZone),
    }
    return run(this.#options.store, spec, (term, info) => this.#held(term, info)).then(
      () => heartbeat?.end(),
      (error: unknown) => {
        // Nobody campaigns for this net in this process any more: /healthz names it until a restart.
        heartbeat?.fail(error)
        throw error
      },
    )
  }

  /** A term won: known to the worker (`held`, the gate) while it is served. */
  async #held(signal: AbortSignal, info: TermInfo): Promise<void> {
    const { held, gate, owner } = this.#options
    const lease = this.#options.net.definition.lease
    held?.set(lease, { name: lease, owner, token: info.token })
    const share = gate?.onTerm()
    try {
      await this.#serve(signal, info, share?.stepDown)
    } finally {
      share?.ended()
      held?.delete(lease)
    }
  }

  /**
   * Serves one term until it ends, or until `stepDown` aborts (the fair share): then no new pass starts,
   * the pass in flight finishes, and returning lets lease.run release the lease.
   */
  async #serve(signal: AbortSignal, info: TermInfo, stepDown: AbortSignal | undefined): Promise<void> {
    const { net, clock } = this.#options
    // The term's lines carry its fence, as the scheduler's own do (served-term.ts termLog).
    const log = this.#log.child({ fence: info.fence })
    const context = { options: net.options, log, signal, stepDownAt: info.stepDownAt }
    const pass = openTerm(net.definition, this.#options.resources, context)
    const term = new ServedTerm({ setting: this.#setting, info, signal, stepDown, pass })
    // The election's instant: the catch-up serves the slots at or before it, the ticks those after it.
    // On the store server's clock, as the ticks are: no slot is caught up here and ticked again there.
    const tickClock = storeClock(clock, this.#options.tickOffsetMs)
    const elected = tickClock.now()
    const offsetMs = passOffsetMs(net, elected)
    const ticker = new SlotTicker({
      schedule: scheduleOf(net),
      timeZone: net.timeZone,
      clock: tickClock,
      offsetMs,
      window: net,
    })
    const scheduler = new TermScheduler(term, this.#steps(term), ticker)
    logNextPass(term.termLog, net, elected, offsetMs)
    scheduler.start(elected)
    try {
      await ended(term.serving)
      if (stepDown?.aborted && !signal.aborted)
        this.#log.info({ fence: info.fence }, 'stepping down: this replica holds more than its fair share')
    } finally {
      await scheduler.settled()
    }
  }

  /** The term's declared steps, as this net is configured: controls and a reserve are optional. */
  #steps(term: ServedTerm): TermSteps {
    const { controls, deferral, net, clock } = this.#options
    const poll = this.#poll
    const held = controls && poll ? new HolderControls(term, controls, poll) : undefined
    return {
      pause: held,
      backfill: held,
      deferral: deferral ? new BudgetDeferral(term, deferral) : undefined,
      catchUp: new TermCatchUp(term),
      recovery: new LedgerRecovery(clock, Math.min(net.pacing.retryMs, RECOVERY_RETRY_MAX_MS)),
    }
  }
}

/** Resolves once `signal` aborted. */
function ended(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    signal.addEventListener('abort', () => resolve(), { once: true })
  })
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

/** The one line a term begins with: when the schedule's next pass is due (UTC, ISO 8601; and local when zoned). */
function logNextPass(log: Logger, net: NetConfig, now: Date, spreadMs: number): void {
  const { schedule, timeZone, startAt, endAt } = net
  // Before START_AT the first pass is its first slot's; past END_AT there is none (slot-ticker.ts).
  const from = startAt && startAt.getTime() > now.getTime() ? new Date(startAt.getTime() - 1) : now
  const slot = nextFireTime(scheduleOf(net), from, timeZone)
  if (endAt && slot.getTime() > endAt.getTime()) {
    const fields = { schedule, timeZone, endAt: endAt.toISOString() }
    log.info(fields, `term began: no scheduled pass left, END_AT ${endAt.toISOString()} has passed`)
    return
  }
  const next = new Date(slot.getTime() + spreadMs)
  const nextPassAt = next.toISOString()
  const local = timeZone === 'UTC' ? '' : ` (${formatLocal(next, timeZone)} ${timeZone})`
  const offset = spreadMs > 0 ? { [net.jitterMs > 0 ? 'jitterOffsetMs' : 'spreadMs']: spreadMs } : {}
  const fields = { schedule, timeZone, nextPassAt, ...offset }
  log.info(fields, `term began: next scheduled pass at ${nextPassAt}${local}`)
}
