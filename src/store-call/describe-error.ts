/**
 * The one describer of a failure for a log line or a wrapping message: the error's name, its code (a
 * driver's server code, a system error's `ECONNREFUSED`) or HTTP status when it has one, and the first
 * line of its message — `MongoServerError 11000: E11000 duplicate key…`, `HttpError 502: Bad Gateway`.
 *
 * Not a scrubber: a message that may carry a secret goes through the worker's scrubbing path as well.
 */

/** One line naming `error`; never throws. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const fields = error as Error & { code?: unknown; status?: unknown }
  const code = fields.code ?? fields.status
  return `${error.name}${code === undefined ? '' : ` ${String(code)}`}: ${error.message.split('\n')[0]}`
}
