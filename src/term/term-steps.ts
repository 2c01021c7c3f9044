/**
 * The steps a term's scheduler takes around its slots, declared once: the net's runner (net-runner.ts)
 * wires them for each term, the scheduler (term-scheduler.ts) calls them. Each is an object the
 * scheduler asks and that answers with a value; none calls back into the scheduler, and nothing else on a
 * tick's route is handed a function. So a tick reads top-down: ticker → scheduler → steps → slot pass.
 *
 * - `pause` (holder-controls.ts): is the net paused for this slot? A paused slot is recorded, not run. It
 *   also polls for what operators asked meanwhile (run now, catch-up, backfill, a pause with --abort).
 * - `backfill` (holder-controls.ts): a backfill request's reads and progress writes (backfill-job.ts).
 * - `deferral` (budget-deferral.ts): would the slot's pass eat into the installation's reserve?
 * - `catchUp` (catch-up.ts): which slots due at an instant have no record: those to run, the rest recorded.
 * - `recovery` (ledger-recovery.ts): after the ledger did not answer, when to look back.
 *
 * What it is not: an extension point for users. The steps are the product's own; the runner wires them.
 */
import type {
  ControlRequest,
  ControlRequestKind,
  NetControl,
  NetPause,
} from '../control/net-control-store.js'
import type { BackfillSlotEnd, BackfillStatus } from '../control/backfill-request.js'
import type { RunFinish } from '../runs/run-ledger.js'
import type { CatchUpOccasion } from './catch-up-plan.js'

/** A run-now or catch-up request the holder runs as a job between passes, and takes once handled. */
export interface RequestJob {
  kind: ControlRequestKind
  request: ControlRequest
}

/** A backfill request: each job runs the slot at its cursor (backfill-job.ts). */
export interface BackfillJob {
  kind: 'backfill'
  request: BackfillStatus
}

/** A job the holder runs between passes for an operator. */
export type ControlJob = RequestJob | BackfillJob

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
  take(job: RequestJob): Promise<void>
  /** Waits one poll interval and reads: what operators asked meanwhile; undefined once the term ended. */
  nextNotice(): Promise<ControlNotice | undefined>
}

/** A backfill request's store calls, as the holder makes them within its term (holder-controls.ts). */
export interface BackfillStep {
  /** The net's controls read now (pause and backfill); undefined when the read failed (logged). */
  current(): Promise<NetControl | undefined>
  /** Request `id`'s slot list; undefined when it is no longer the net's request or the read failed (logged). */
  slots(id: string): Promise<Date[] | undefined>
  /**
   * Moves request `id`'s cursor past the slot at `index`: the request as it then stands (a cancel shows),
   * undefined when it is gone or the store did not answer (logged; the next poll tries again). Never rejects.
   */
  advance(id: string, index: number, end: BackfillSlotEnd): Promise<BackfillStatus | undefined>
  /** Ends request `id` before its last slot, saying why (the net ran its MAX_RUNS). Never rejects. */
  end(id: string, reason: string): Promise<void>
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
  /** Present with `pause` (the same controls): runs operators' backfill requests. */
  backfill?: BackfillStep | undefined
  deferral?: DeferralStep | undefined
  catchUp: CatchUpStep
  recovery: RecoveryStep
}
