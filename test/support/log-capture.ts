/**
 * The one log capture of the tests: a logger in pino's call shape (`logger.info(fields, message)`) that
 * keeps every call, for asserting on what a component logged and on what it must never contain. It is a
 * ForgeLogger and a NetLogger at once. Test support, not a test.
 */
import type { ForgeLogger } from '../../src/forge/forge-logger.js'
import type { NetLogger } from '../../src/nets/net.js'

export interface CapturedLine {
  level: 'debug' | 'info' | 'warn' | 'error'
  fields: Record<string, unknown>
  message: string
}

export interface LogCapture {
  logger: ForgeLogger & NetLogger
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
  const at = (level: CapturedLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message })
  }
  return {
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    lines,
    serialized: () => lines.map((l) => JSON.stringify({ level: l.level, ...l.fields, msg: l.message })),
    messages: (level) => lines.filter((l) => level === undefined || l.level === level).map((l) => l.message),
    matching: (level, text) => lines.filter((l) => l.level === level && l.message.includes(text)),
  }
}
