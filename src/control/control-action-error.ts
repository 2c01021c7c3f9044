/**
 * ControlActionError: an operator's pause, resume or run-now asked for something that cannot be done as
 * written (a `for` that is no duration, an `until` in the past, both at once). Thrown by the control
 * actions (control-actions.ts) before the store is called, so nothing is half-written. It names the
 * input fields and what was expected apart, so each way in says it in its own words: the HTTP admin API
 * answers the message (422), the CLI prints `--for: <expected>` (exit 64).
 *
 * Not for expected outcomes (resuming a net that is not paused is a return value) nor for a store that
 * did not answer (a NetControlError from the store).
 */

export type ControlActionErrorCode = 'CONTROL_ACTION_INVALID'

export class ControlActionError extends Error {
  override readonly name = 'ControlActionError'
  readonly code: ControlActionErrorCode = 'CONTROL_ACTION_INVALID'

  /**
   * @param action `pause`, `resume` or `run`.
   * @param net the net the action was for.
   * @param fields the input fields that were wrong (`for`, `until`; both when they clash).
   * @param expected what was expected, and what was given: `expected a duration …; got "2 hours"`.
   */
  constructor(
    readonly action: string,
    readonly net: string,
    readonly fields: readonly string[],
    readonly expected: string,
  ) {
    super(`${action} ${net}: ${fields.join(' and ')}: ${expected}`)
  }
}
