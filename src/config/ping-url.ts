/**
 * A net's PING_URL: the Healthchecks.io-style URL its passes report to (observe/ping.ts sends `/start`,
 * the URL itself, `/fail` and `/log`). The URL is a secret — whoever holds it can report for the net — so
 * it is parsed here, remembered for scrubbing by the configuration, and shown only as its origin.
 *
 * Not the pinger: this only says whether a text is a URL the pinger can use.
 */

/** What a PING_URL must be, for the configuration's error (78). */
export const PING_URL_EXPECTED =
  'an http:// or https:// URL without a #fragment (a Healthchecks.io-style ping URL, e.g. https://hc-ping.com/<uuid>; /start, /fail and /log are appended to its path)'

/** The URL when `text` is an absolute http(s) URL without a fragment; undefined otherwise. */
export function parsePingUrl(text: string): URL | undefined {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  // A fragment never reaches the server: a URL that has one was most likely pasted wrong.
  if (url.hash !== '') return undefined
  return url
}

/** How a ping URL is shown (`config`, logs): its origin only, the rest redacted. */
export function describePingUrl(url: string | URL): string {
  const parsed = typeof url === 'string' ? parsePingUrl(url) : url
  return parsed ? `${parsed.protocol}//${parsed.host}/[redacted]` : '[redacted]'
}
