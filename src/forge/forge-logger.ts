/**
 * The narrow logger the forge writes to: the pino call shape `logger.info({ fields }, 'message')`, so a
 * pino logger (or a child of one) fits as is. Not a logging framework; the forge never formats output.
 */

/** One log method: structured fields first, then the human line. */
export type ForgeLogFn = (fields: Record<string, unknown>, message: string) => void

/** What the forge needs from a logger; any pino Logger satisfies it. */
export interface ForgeLogger {
  info: ForgeLogFn
  warn: ForgeLogFn
  error: ForgeLogFn
}
