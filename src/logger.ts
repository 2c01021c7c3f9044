/**
 * The one logger shape of leasecron: pino's call shape — structured fields first, then the human line —
 * with `child` to bind fields. The lease, the forge, the nets' passes and the worker all take it, so a pino
 * logger (or a child of one) fits everywhere as is, and a line written anywhere carries the same fields.
 *
 * Our own interface, not pino's type: pino is inside leasecron's bundle and not installed beside it, so the
 * public declarations must not name it. Not a logger: observe/logger.ts's createLogger makes one.
 */

/** One level's method: fields, then the message. */
export type LogMethod = (fields: object, message?: string) => void

/** What leasecron calls on a logger; any pino logger satisfies it. */
export interface Logger {
  debug: LogMethod
  info: LogMethod
  warn: LogMethod
  error: LogMethod
  /** A logger whose every line carries `bindings` too. */
  child(bindings: Record<string, unknown>): Logger
}
