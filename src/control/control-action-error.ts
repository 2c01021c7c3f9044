/**
 * ControlActionError: an operator's pause, resume or run-now asked for something that cannot be done as
 * written (a `for` that is no duration, an `until` in the past, both at once). Thrown by the control
 * actions (control-actions.ts) before the store is called, so nothing is half-written; its message names
 * the field, what was expected and what was given, and is fit to show the operator as it is (the HTTP
 * admin API answers it as 422, the CLI prints it).
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
   * @param field the input field that was wrong (`for`, `until`, `reason`…).
   */
  constructor(
    readonly action: string,
    readonly net: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${action} ${net}: ${detail}`)
  }
}
