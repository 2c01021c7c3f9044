/**
 * The fetch handler's door: `Authorization: Bearer <secret>`, as Vercel Cron sends CRON_SECRET and as a
 * Cloud Scheduler job's header carries it. Compared in constant time — crypto.timingSafeEqual over the two
 * values' SHA-256 digests, which are of equal length whatever was sent, so neither the comparison's time nor
 * a length check tells a caller how much of a guess was right.
 *
 * Hand-written (a dozen lines over node:crypto) rather than a library: it is one comparison. Not an
 * authentication scheme of its own: a platform's own identity (OIDC, IAM) is the platform's to check.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

/** What the Authorization header came to: `ok`, `missing` (no bearer credential), `wrong`. */
export type BearerVerdict = 'ok' | 'missing' | 'wrong'

/** Checks `authorization` (the header's value, or null) against `secret` in constant time. */
export function checkBearer(authorization: string | null, secret: string): BearerVerdict {
  const match = /^Bearer[ \t]+(\S.*)$/i.exec(authorization?.trim() ?? '')
  if (!match) return 'missing'
  const given = digest(match[1]!.trim())
  return timingSafeEqual(given, digest(secret)) ? 'ok' : 'wrong'
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}
