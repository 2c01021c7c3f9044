/**
 * shownText: how much of a stored text (a run's error, a note, what is wrong with a lease document) the
 * status page and `/status` show. One 8 MB error once made every page refresh 8 MB; the ledger's own cap
 * is a separate, later bound on what is stored, and this holds whatever the store holds.
 */

/** Characters of one text the status views show. */
export const SHOWN_TEXT_CHARS = 500

/** `text` whole when short; otherwise its first `limit` characters and `…(N more)`. */
export function shownText(text: string, limit = SHOWN_TEXT_CHARS): string {
  const whole = String(text)
  if (whole.length <= limit) return whole
  return `${whole.slice(0, limit)}…(${whole.length - limit} more)`
}
