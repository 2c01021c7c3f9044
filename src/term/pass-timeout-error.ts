/**
 * PassTimeoutError: the reason an attempt's signal is aborted when it runs past its net's TIMEOUT, and
 * the error the ledger records for a `timed-out` slot (so `history` and the page say what happened).
 *
 * Not a failure of the pass's own: the pass may have thrown an AbortError in answer, which is not kept.
 */
import { formatDuration } from '../durations.js'

/** An attempt of `net`'s pass for `slot` ran past `timeoutMs`; its signal was aborted. */
export class PassTimeoutError extends Error {
  override readonly name = 'PassTimeoutError'
  readonly code = 'PASS_TIMED_OUT'

  constructor(
    readonly net: string,
    readonly slot: Date,
    readonly attempt: number,
    readonly timeoutMs: number,
  ) {
    super(
      `net "${net}" slot ${slot.toISOString()}: attempt ${attempt} ran past the net's TIMEOUT (${formatDuration(timeoutMs)}); its signal was aborted`,
    )
  }
}
