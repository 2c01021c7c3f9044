/**
 * A NetLogger that keeps every line, for asserting on what a net logged. Test support, not a test.
 */
import type { NetLogger } from '../../../src/nets/net.js'

export interface NetLogLine {
  level: 'debug' | 'info' | 'warn' | 'error'
  fields: Record<string, unknown>
  message: string
}

export interface NetLogCapture {
  log: NetLogger
  lines: NetLogLine[]
  /** Lines of `level` whose message contains `text`. */
  matching(level: NetLogLine['level'], text: string): NetLogLine[]
}

export function captureNetLog(): NetLogCapture {
  const lines: NetLogLine[] = []
  const at = (level: NetLogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message })
  }
  return {
    log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    lines,
    matching: (level, text) => lines.filter((l) => l.level === level && l.message.includes(text)),
  }
}
