/**
 * The log levels LOG_LEVEL takes (pino's, and `silent`). Here rather than beside the logger because the
 * configuration validates the variable and must not import the worker; the logger takes them from here.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
