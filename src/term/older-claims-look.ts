/**
 * When a term looks through its net's newest runs for older terms' unfinished claims (close-unfinished.ts
 * closes them `aborted`): on every pass until one ends a call bound after the term began, then every
 * CLOSE_EVERY_PASSES passes.
 *
 * Why then: an older term sent its last claim before it ended, so before this term began, and a claim
 * lands within its call bound or not at all — so one look made after that bound sees every such claim.
 * A count of early passes (five, before issue #39) looked on passes that could find nothing new: at 1,000
 * every-minute nets that was a thousand ledger reads a minute for the first five minutes of every term.
 * The later looks are for a store that answered past its bound.
 *
 * What it is not: the closing itself (close-unfinished.ts), nor a retake of a cut-off pass (retake.ts).
 */
import type { Clock } from '../lease/clock.js'

/**
 * After the early looks, every this many passes look again. Not every pass: the read is `{net}` sorted by
 * slot, which FerretDB on SQLite answers by scanning the whole ledger — every installation's runs — so one
 * a pass per installation made the store's work grow with N × the ledger.
 */
export const CLOSE_EVERY_PASSES = 10

/** One term's looks; made when the term begins. */
export class OlderClaimsLook {
  readonly #clock: Clock
  /** The monotonic instant by which every older term's claim has landed or never will. */
  readonly #landedBy: number
  #settled = false

  constructor(clock: Clock, boundMs: number) {
    this.#clock = clock
    this.#landedBy = clock.monotonic() + boundMs
  }

  /** Whether the term's pass `number`, ending now, looks (call once per pass). */
  due(number: number): boolean {
    if (this.#settled) return number % CLOSE_EVERY_PASSES === 0
    this.#settled = this.#clock.monotonic() >= this.#landedBy
    return true
  }
}
