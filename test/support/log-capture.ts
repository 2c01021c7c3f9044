/**
 * A ForgeLogger that keeps every call, for asserting on the lines the forge emitted (and on what they
 * must never contain). Not a test by itself.
 */
import type { ForgeLogger } from '../../src/forge/forge-logger.js'

export interface CapturedLine {
  level: 'info' | 'warn' | 'error'
  fields: Record<string, unknown>
  message: string
}

export interface LogCapture {
  logger: ForgeLogger
  lines: CapturedLine[]
  /** Every line serialized as pino would write it, fields and message together. */
  serialized(): string[]
  messages(level?: CapturedLine['level']): string[]
}

export function captureLogs(): LogCapture {
  const lines: CapturedLine[] = []
  const at = (level: CapturedLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message })
  }
  return {
    logger: { info: at('info'), warn: at('warn'), error: at('error') },
    lines,
    serialized: () => lines.map((l) => JSON.stringify({ level: l.level, ...l.fields, msg: l.message })),
    messages: (level) => lines.filter((l) => level === undefined || l.level === level).map((l) => l.message),
  }
}
