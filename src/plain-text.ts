/**
 * Stored text as it may be shown: one line, no terminal control characters, at most a given length. A
 * pause's `reason` and `by` are written by whoever can reach the store or the admin API, and read back
 * into `leasecron status`, the page, log lines and the ledger; a gating run's `_id` into the sweep's log.
 * One escape sequence in them cleared the reader's screen or wrote its clipboard (OSC 52); one 8 MB value
 * made every line that carried it 8 MB.
 *
 * On the bottom floor (it imports nothing) because control/, nets/ and worker/ each read such text. Not an
 * HTML or JSON escaper (the page and the logger still escape what they write) and not a secret scrubber
 * (config/scrub.ts).
 */

/**
 * Terminal control characters: C0 (NUL…US, which hold ESC, BEL and the line breaks), DEL and C1 (which
 * holds the 8-bit CSI and OSC a UTF-8 terminal may also obey).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g

/** `text` without control characters (line breaks too); a tab, which only spaced words, becomes a space. */
export function withoutControls(text: string): string {
  return text.replace(CONTROLS, (control) => (control === '\t' ? ' ' : ''))
}

/** Control characters but the tab and the line feed: what a multi-line text (a stack) may keep. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** `text` without control characters, keeping its tabs and line feeds (a stack, a log line's message). */
export function withoutEscapes(text: string): string {
  return text.replace(CONTROLS_BUT_LINES, '')
}

/**
 * `text`'s first line, trimmed, without control characters (withoutControls), in at most `limit`
 * characters: a longer line is cut and marked `…(N more)` within the limit, N counting the characters cut
 * off. So a text already plain and within the limit comes back as it is, and the cost is bounded by the
 * first line's length, never worse than linear.
 */
export function plainLine(text: string, limit: number): string {
  const start = text.trimStart()
  const end = start.indexOf('\n')
  const line = end === -1 ? start : start.slice(0, end)
  if (line.length <= limit) return withoutControls(line).trim()
  // The marker's room: `…(` and ` more)` and at most as many digits as the line's length has.
  const kept = Math.max(0, limit - 8 - String(line.length).length)
  return `${withoutControls(line.slice(0, kept)).trim()}…(${line.length - kept} more)`
}
