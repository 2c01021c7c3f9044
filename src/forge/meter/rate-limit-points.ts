/**
 * Which forge answers spend a point of the installation's primary REST rate limit — the `points` the
 * meter reports beside the request count. Decided from GitHub's documentation:
 * - "Best practices for using the REST API": a conditional request answered `304 Not Modified` does not
 *   count against the primary rate limit when it was made with an `Authorization` header;
 * - "REST API endpoints for rate limits": `GET /rate_limit` does not count against the REST limit;
 * - "Rate limits for GitHub Apps": installation-token requests count against the installation's limit;
 *   requests with the App's JWT (token mints, `GET /app`) count against the App's own, and anonymous
 *   ones against the caller's IP — neither is the installation's budget;
 * - "Rate limits and query limits for the GraphQL API": GraphQL has its own point budget computed from
 *   each query; those points are not REST points and are not counted here.
 * A request refused for the primary limit (403/429 with `x-ratelimit-remaining: 0`) spends nothing more;
 * an attempt that got no answer is not known to have reached the budget. Every other answered
 * installation-token REST request counts, errors included: GitHub documents no other exemption.
 *
 * Not the meter (it only classifies) and not GitHub's accounting: the sandbox's ground truth and
 * `x-ratelimit-used` remain the authority; the bench compares the two.
 */
import type { ForgeApi } from './meter.js'

/** What `spendsPoint` needs to know of one attempt. */
export interface PointQuestion {
  api: ForgeApi
  method: string
  pathname: string
  /** The request's `Authorization` header, if any (read, never stored or logged). */
  authorization: string | undefined
  /** The status, or `error` when no answer arrived. */
  outcome: number | 'error'
  /** The answer's `x-ratelimit-remaining`, when sent. */
  remaining: string | undefined
}

const RATE_LIMIT_PATH = /^(?:\/api\/v3)?\/rate_limit$/

/** True when the attempt spent one point of the installation's primary REST budget (see module doc). */
export function spendsPoint(q: PointQuestion): boolean {
  if (q.api !== 'rest' || q.outcome === 'error' || q.outcome === 304) return false
  if (credentialKind(q.authorization) !== 'installation') return false
  if (q.method.toUpperCase() === 'GET' && RATE_LIMIT_PATH.test(q.pathname)) return false
  const refused = (q.outcome === 403 || q.outcome === 429) && q.remaining?.trim() === '0'
  return !refused
}

/** `app` for a JWT (three dot-separated parts), `installation` for any other token, `none` without. */
export function credentialKind(authorization: string | undefined): 'installation' | 'app' | 'none' {
  const credential = authorization?.trim().split(/\s+/)[1]
  if (credential === undefined || credential === '') return 'none'
  return credential.split('.').length === 3 ? 'app' : 'installation'
}
