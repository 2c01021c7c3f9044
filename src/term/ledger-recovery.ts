/**
 * A term's ledger recovery: once the run ledger did not answer something the term needed of it (a slot's
 * claim, a skip's record, the election's read), the term owes a look back, and this arms one timer that,
 * every `retryMs` while the term goes on, asks for the catch-up (catch-up.ts, `occasion: 'recovery'`) to be
 * made. The catch-up's own slot passes and reads then either settle the debt or, when the ledger still
 * does not answer, owe it again — so a slot whose claim a store outage shorter than the TTL swallowed is
 * run late or recorded `missed` as soon as the store answers, and never left without a record.
 *
 * Why here and not at each tick: in steady state nothing is owed and the ledger sees no extra read; only
 * after a failure does the holder read the net's runs, once per `retryMs` at most.
 *
 * What it is not: the catch-up itself (the scheduler runs it as its piece of work, one at a time with the
 * passes), nor a retry of the failed call: the plan decides afresh from what the ledger holds.
 */
import type { Clock, TimerHandle } from '../lease/clock.js'
import type { RunFinish } from '../runs/run-ledger.js'

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

export interface LedgerRecoverySpec {
  clock: Clock
  /** How long after a failure (and between looks while the ledger still does not answer) to look back. */
  retryMs: number
  /** Whether the term still goes on (not ended, not past its step-down instant): if not, nothing is armed. */
  going(): boolean
  /** Whether a pass or another piece of work is in flight: the look back waits for `idle`. */
  busy(): boolean
  /**
   * Starts the catch-up from `now`, handing over the slots whose claims went unanswered since the last look
   * back; it calls `owe` again itself (with those slots) when the ledger still does not answer.
   */
  recover(now: Date, lost: LostRecord[]): void
}

export interface LedgerRecovery {
  /**
   * The ledger did not answer something the term needed: look back within `retryMs`. `lost`: the slot whose
   * claim or end went unanswered (a claim may have landed: the look back records it `aborted`; an end is
   * recorded then).
   */
  owe(lost?: LostRecord): void
  /** Whether a look back is owed and not yet started. */
  owed(): boolean
  /** The work in flight ended: a look back that came due meanwhile starts now (true when it did). */
  idle(): boolean
  /** Clears the timer (the term ended); nothing is started after. */
  stop(): void
}

/** Starts a term's ledger recovery, owing nothing; see the module's doc. */
export function startLedgerRecovery(spec: LedgerRecoverySpec): LedgerRecovery {
  let timer: TimerHandle | undefined
  let owed = false
  // A look back due while work was in flight: it starts when that work ends (`idle`), never starved.
  let waiting = false
  const lost = new Map<number, LostRecord>()
  let stopped = false
  const arm = () => {
    if (stopped || timer !== undefined || !spec.going()) return
    timer = spec.clock.setTimeout(fire, Math.max(1, spec.retryMs))
  }
  const fire = () => {
    timer = undefined
    if (stopped || !owed || !spec.going()) return
    if (spec.busy()) {
      waiting = true
      return
    }
    start()
  }
  const start = () => {
    waiting = false
    owed = false
    const records = [...lost.values()]
    lost.clear()
    spec.recover(spec.clock.now(), records)
  }
  return {
    owe(record) {
      if (record) lost.set(record.slot.getTime(), record)
      owed = true
      arm()
    },
    owed: () => owed,
    idle() {
      if (!waiting || !owed || stopped || !spec.going() || spec.busy()) return false
      start()
      return true
    },
    stop() {
      stopped = true
      if (timer !== undefined) spec.clock.clearTimeout(timer)
      timer = undefined
    },
  }
}
