/**
 * A term's ledger recovery: once the run ledger did not answer something the term needed of it (a slot's
 * claim, a skip's record, the election's read), the term owes a look back, and this arms one timer that,
 * every `retryMs` while the term goes on, says a look back is due: the scheduler then makes the catch-up
 * (catch-up.ts, `occasion: 'recovery'`) once no work is in flight. The catch-up's own slot passes and reads then either settle the debt or, when the ledger still
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
import type { LostRecord, RecoveryStep } from './term-steps.js'

/** Owes nothing at first; a look back comes due `retryMs` after the first debt, while the term goes on. */
export class LedgerRecovery implements RecoveryStep {
  readonly #clock: Clock
  readonly #retryMs: number
  #timer: TimerHandle | undefined
  #owed = false
  /** The timer fired while something was owed and nobody waited in `due` (the next `due` answers at once). */
  #due = false
  #stopped = false
  #wake: ((due: boolean) => void) | undefined
  readonly #lost = new Map<number, LostRecord>()

  /**
   * `retryMs`: how long after a failure (and between looks while the ledger still does not answer). Whether
   * the term still goes on when one comes due is the scheduler's to ask.
   */
  constructor(clock: Clock, retryMs: number) {
    this.#clock = clock
    this.#retryMs = Math.max(1, retryMs)
  }

  owe(record?: LostRecord): void {
    if (record) this.#lost.set(record.slot.getTime(), record)
    this.#owed = true
    if (this.#stopped || this.#timer !== undefined) return
    this.#timer = this.#clock.setTimeout(() => this.#fire(), this.#retryMs)
  }

  owed(): boolean {
    return this.#owed
  }

  due(): Promise<boolean> {
    if (this.#stopped) return Promise.resolve(false)
    if (this.#due) {
      this.#due = false
      return Promise.resolve(true)
    }
    return new Promise((resolve) => {
      this.#wake = resolve
    })
  }

  take(): LostRecord[] {
    this.#owed = false
    const records = [...this.#lost.values()]
    this.#lost.clear()
    return records
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#wakeWith(false)
  }

  #fire(): void {
    this.#timer = undefined
    if (this.#stopped || !this.#owed) return
    if (this.#wake) this.#wakeWith(true)
    else this.#due = true
  }

  #wakeWith(due: boolean): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.(due)
  }
}
