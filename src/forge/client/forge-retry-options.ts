/**
 * The forge's retry and throttling knobs (a contract of its own: createForge takes them, and the forge
 * client, loaded later, applies them to Octokit's retry and throttling plugins).
 */

/** Retry and throttling knobs; the defaults are GitHub's advice and suit production. */
export interface ForgeRetryOptions {
  /** 5xx / network retries per request (plugin-retry); 3 by default. */
  retries?: number
  /** plugin-retry waits (n+1)² × this between tries; 1000 ms by default (tests shrink it). */
  retryBaseDelayMs?: number
  /** Rate-limit (primary or secondary) waits before giving up on a request; 2 by default. */
  rateLimitRetries?: number
}
