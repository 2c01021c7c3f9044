/**
 * The serverless entry's one error type: a trigger it could not read, a net it does not know, a fetch
 * handler with no secret to check, a Lambda context that cannot say its time left, or a Lambda invocation
 * whose slot failed. Stable `code`s; the message
 * says what was wrong and what was expected, never a secret's value.
 */
import type { OnceResult } from '../term/one-slot.js'

export type ServerlessErrorCode =
  /** The event or request named no usable slot time or net (the message says which, and the form). */
  | 'SERVERLESS_TRIGGER_INVALID'
  /** The fetch handler has no bearer secret configured (`secret`, or CRON_SECRET). */
  | 'SERVERLESS_SECRET_MISSING'
  /** The slot's pass failed, timed out or was aborted; `result` is the `once --json` object. */
  | 'SERVERLESS_PASS_FAILED'
  /** The Lambda context's getRemainingTimeInMillis threw (the error is the cause); nothing ran. */
  | 'SERVERLESS_CONTEXT_INVALID'
  /** The handlers were closed (`close()`): no invocation opens the runtime again. */
  | 'SERVERLESS_CLOSED'

export class ServerlessError extends Error {
  override readonly name = 'ServerlessError'
  readonly component = 'serverless'
  /** The slot's result, for SERVERLESS_PASS_FAILED. */
  readonly result: OnceResult | undefined

  constructor(
    readonly code: ServerlessErrorCode,
    message: string,
    options: { cause?: unknown; result?: OnceResult } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.result = options.result
  }
}
