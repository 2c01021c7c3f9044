/**
 * The one log capture of the tests: a logger in pino's call shape (`logger.info(fields, message)`) that
 * keeps every call, for asserting on what a component logged and on what it must never contain; a child's
 * lines carry its bindings among their fields. Test support, not a test.
 */
import type { Logger } from '../../src/logger.js'

export interface CapturedLine {
  level: 'debug' | 'info' | 'warn' | 'error'
  fields: Record<string, unknown>
  message: string
}

export interface LogCapture {
  logger: Logger
  lines: CapturedLine[]
  /** Every line serialized as pino would write it, fields and message together. */
  serialized(): string[]
  /** The messages of `level` (of every level when absent), in order. */
  messages(level?: CapturedLine['level']): string[]
  /** Lines of `level` whose message contains `text`. */
  matching(level: CapturedLine['level'], text: string): CapturedLine[]
}

export function captureLogs(): LogCapture {
  const lines: CapturedLine[] = []
  const bound = (bindings: Record<string, unknown>): Logger => {
    const at = (level: CapturedLine['level']) => (fields: object, message?: string) => {
      lines.push({
        level,
        fields: { ...bindings, ...(fields as Record<string, unknown>) },
        message: message ?? '',
      })
    }
    return {
      ...{ debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
      child: (more) => bound({ ...bindings, ...more }),
    }
  }
  return {
    logger: bound({}),
    lines,
    serialized: () => lines.map((l) => JSON.stringify({ level: l.level, ...l.fields, msg: l.message })),
    messages: (level) => lines.filter((l) => level === undefined || l.level === level).map((l) => l.message),
    matching: (level, text) => lines.filter((l) => l.level === level && l.message.includes(text)),
  }
}

/** A logger that writes nothing but what `methods` do; its children are itself. */
export function quietLog(methods: Partial<Omit<Logger, 'child'>> = {}): Logger {
  const log: Logger = {
    ...{ debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    ...methods,
    child: () => log,
  }
  return log
}
