/**
 * The admin API's token check: the bearer token of an `Authorization` header, compared with the
 * configured one in constant time.
 *
 * Hand-written, because it is two calls into node:crypto: both tokens are hashed with SHA-256 first, so
 * `timingSafeEqual` always compares two 32-byte digests — it throws on buffers of different lengths, and
 * comparing the raw tokens would also leak the configured token's length through the early exit a length
 * check needs. The time taken then depends on neither token's content nor length beyond the hashing.
 *
 * Not an authorization scheme: one shared token opens every action on every net.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or of another scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')
  return match?.[1]
}

/** Whether `given` is `expected`, compared in constant time over their SHA-256 digests; never throws. */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected))
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}
