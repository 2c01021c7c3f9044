/**
 * The steps a term's scheduler takes around its slots, declared once: the net's runner (net-runner.ts)
 * wires them for each term, the scheduler (term-scheduler.ts) calls them. Each is an object the
 * scheduler asks and that answers with a value; none calls back into the scheduler, and nothing else on a
 * tick's route is handed a function. So a tick reads top-down: ticker → scheduler → steps → slot pass.
 *
 * - `pause` (holder-controls.ts): is the net paused for this slot? A paused slot is recorded, not run. It
 *   also polls for what operators asked meanwhile (run now, catch-up, a pause with --abort).
 * - `deferral` (budget-deferral.ts): would the slot's pass eat into the installation's reserve?
 * - `catchUp` (catch-up.ts): which slots due at an instant have no record: those to run, the rest recorded.
 * - `recovery` (ledger-recovery.ts): after the ledger did not answer, when to look back.
 *
 * What it is not: an extension point for users. The steps are the product's own; the runner wires them.
 */
import type { ControlRequest, ControlRequestKind, NetPause } from '../control/net-control-store.js'
import type { RunFinish } from '../runs/run-ledger.js'
import type { CatchUpOccasion } from './catch-up-plan.js'

/** A request the holder runs as a job between passes. */
export interface ControlJob {
  kind: ControlRequestKind
  request: ControlRequest
}

/**
 * A slot of this term the ledger did not answer for: its claim (`end` absent: it may have landed without an
 * end), or the end of its pass or skip (`end`: the claim is the term's, the end is still to be recorded).
 */
export interface LostRecord {
  slot: Date
  end?: RunFinish
  /** Look backs that found no record of the slot yet (a claim may still be on its way): bounded. */
  tries?: number
}

/** The net's controls, as the holder reads them within its term. */
export interface PauseStep {
  /** The pause in force for the slot at hand, or undefined (not paused, or the read failed: fail open). */
  pausedNow(slot: Date): Promise<NetPause | undefined>
  /** Records `slot` `paused` in the ledger; a slot with a record is left alone. Never rejects. */
  accountPaused(slot: Date, pause: NetPause): Promise<void>
  /** The slots recorded `paused` within the kept history, oldest first (bounded). */
  pausedSlots(): Promise<Date[]>
  /** Clears a handled request; a failure is logged and the next poll sees it again. Never rejects. */
  take(job: ControlJob): Promise<void>
  /** Waits one poll interval and reads: what operators asked meanwhile; undefined once the term ended. */
  nextNotice(): Promise<ControlNotice | undefined>
}

/** What one poll of the net's controls found. */
export interface ControlNotice {
  /** A pause with --abort: the job in flight, if it started before the pause, ends. */
  abort?: NetPause
  /** Requests to run as jobs between passes (the same one may come again until it is taken). */
  requests: ControlJob[]
}

/** The installation's budget against its reserve. */
export interface DeferralStep {
  /** Records `slot` `deferred` when its pass would eat into the reserve: true if so. Never rejects. */
  deferred(slot: Date): Promise<boolean>
}

/** Where a look back starts from, and why. */
export interface LookBack {
  now: Date
  occasion: CatchUpOccasion
  /** A recovery's slots whose claim or end the ledger did not answer. */
  lost: readonly LostRecord[]
}

/** The catch-up's plan for one look back: the slots to run; the others are recorded by the time it resolves. */
export interface CatchUpRound {
  /** The slots to run, oldest first. */
  run: readonly Date[]
  /**
   * Of `run`, the slots whose pass an older term's holder left unfinished, run again (retake.ts): the
   * retake's number by the slot's instant (ms). A slot not in it is claimed as usual.
   */
  retakes?: ReadonlyMap<number, number>
  /** Ends the round with what running came to: logs its line and says what is still owed. */
  end(runs: { ran: number; taken: number; left: number }): CatchUpEnd
}

/** What a catch-up round leaves owed. */
export interface CatchUpEnd {
  /** Whether the ledger answered and every planned slot was run or recorded. */
  settled: boolean
  /** Lost slots the read found no record of yet: a later look back checks them again. */
  unsettled: LostRecord[]
}

export interface CatchUpStep {
  /** Reads the net's runs, plans, records the slots it lets go `missed`. Never rejects. */
  plan(at: LookBack): Promise<CatchUpRound>
}

export interface RecoveryStep {
  /** The ledger did not answer something the term needed: look back within the retry. */
  owe(lost?: LostRecord): void
  /** Resolves true the next time a look back comes due (its timer fired while owed), false once stopped. */
  due(): Promise<boolean>
  /** Whether a look back is still owed (its timer fired or not). */
  owed(): boolean
  /** Takes what is owed for the look back that starts now: the lost slots; nothing is owed after. */
  take(): LostRecord[]
  /** Clears the timer: the term ended. */
  stop(): void
}

/** The steps of one term; a step that is not configured (no controls, no reserve) is absent. */
export interface TermSteps {
  pause?: PauseStep | undefined
  deferral?: DeferralStep | undefined
  catchUp: CatchUpStep
  recovery: RecoveryStep
}
