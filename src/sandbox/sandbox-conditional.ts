/**
 * Conditional GETs as GitHub answers them: the validators (`etag`, and `last-modified` on the routes
 * GitHub sends it for), the caching headers every GET carries, and the decision whether a request's
 * `If-None-Match` / `If-Modified-Since` earns a `304 Not Modified` — which on GitHub costs no budget
 * ("Best practices for using the REST API": a 304 to a correctly authorized conditional request does
 * not count against the primary rate limit).
 *
 * Not the budget or the counting (the server decides what a 304 spends); not a cache.
 */
import { createHash } from 'node:crypto'

/** GitHub's caching headers on a GET answer (and on its 304). */
export const GITHUB_CACHE_CONTROL = 'private, max-age=60, s-maxage=60'
export const GITHUB_VARY = 'Accept, Authorization, Cookie, X-GitHub-OTP'

/** The validators of one answer. */
export interface Validators {
  /** A weak entity tag, `W/"…"`, as GitHub sends on JSON answers. */
  etag: string
  /** HTTP date of the resource's last change, for the routes GitHub sends it on; absent otherwise. */
  lastModified?: string
}

/**
 * The validators of a body. `credential` is folded into the etag when the sandbox runs with
 * `etagPerToken` (the default): GitHub does not document whether an etag survives an installation
 * token's hourly rotation, so the sandbox assumes the worse case unless told otherwise.
 */
export function validatorsOf(
  body: unknown,
  lastModifiedMs: number | undefined,
  credential?: string,
): Validators {
  const hash = createHash('sha256')
  if (credential !== undefined) hash.update(credential).update('\u0000')
  hash.update(JSON.stringify(body ?? null))
  const etag = `W/"${hash.digest('hex').slice(0, 32)}"`
  return lastModifiedMs === undefined ? { etag } : { etag, lastModified: httpDate(lastModifiedMs) }
}

/** The headers a GET answer (200 or 304) carries for these validators. */
export function cacheHeaders(validators: Validators): Record<string, string> {
  return {
    'cache-control': GITHUB_CACHE_CONTROL,
    vary: GITHUB_VARY,
    etag: validators.etag,
    ...(validators.lastModified === undefined ? {} : { 'last-modified': validators.lastModified }),
  }
}

/**
 * True when the request's validators still match, so the answer is 304. `If-None-Match` wins when
 * present (weak comparison, a list or `*`, RFC 9110 §13.1.2); otherwise `If-Modified-Since` is
 * honoured only where the answer has a `last-modified`, to whole seconds.
 */
export function isNotModified(
  request: { ifNoneMatch?: string | undefined; ifModifiedSince?: string | undefined },
  validators: Validators,
): boolean {
  if (request.ifNoneMatch !== undefined) {
    return request.ifNoneMatch.split(',').some((tag) => weakMatch(tag, validators.etag))
  }
  if (request.ifModifiedSince === undefined || validators.lastModified === undefined) return false
  const since = Date.parse(request.ifModifiedSince)
  return !Number.isNaN(since) && Date.parse(validators.lastModified) <= since
}

/** RFC 9110's IMF-fixdate, `Tue, 01 Dec 2026 00:00:00 GMT`. */
export function httpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString()
}

function weakMatch(asked: string, etag: string): boolean {
  const bare = (tag: string) => tag.trim().replace(/^W\//, '')
  return asked.trim() === '*' || bare(asked) === bare(etag)
}
