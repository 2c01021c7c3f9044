/**
 * Whether the forge can be reached at all, judged per host from network failures (no HTTP answer):
 * the first failure of a streak is logged at once — what, where, retrying until when — and a failure
 * retrying cannot cure is thrown as a permanent ForgeUnreachableError, which the forge does not retry:
 * a port fetch refuses to use (forever), a host DNS does not know after `dnsTries` tries in a row (for
 * `dnsCooldownMs`, then tried again). A refused connection stays retryable: a forge restarting refuses
 * for a while.
 *
 * Not a circuit breaker for HTTP errors (those are answers; the retry and throttling plugins own them).
 */
import type { Logger } from '../../logger.js'
import { describeReason, ForgeUnreachableError } from './forge-unreachable-error.js'
import type { ForgeFetch } from './transport.js'

export interface ReachabilityOptions {
  logger: Logger
  /** How long one request keeps being retried, for the "retrying until" of the first failure's line. */
  retryWindowMs: number
  /** Consecutive unknown-host failures before giving up on the host for a while; 3 by default. */
  dnsTries?: number
  /** How long an unknown host is given up on before it is tried again; 60 s by default. */
  dnsCooldownMs?: number
  now?: () => number
}

export interface Reachability {
  /** `fetch` with failures classified, logged once per streak and, when permanent, thrown without retry. */
  wrap(fetch: ForgeFetch): ForgeFetch
}

interface HostState {
  failures: number
  reason?: string
  blockedUntil?: number
}

/** Builds the per-host judge for one forge. */
export function createReachability(options: ReachabilityOptions): Reachability {
  const now = options.now ?? Date.now
  const dnsTries = options.dnsTries ?? 3
  const hosts = new Map<string, HostState>()
  const stateOf = (where: string) => {
    const state = hosts.get(where) ?? { failures: 0 }
    hosts.set(where, state)
    return state
  }
  const fail = (where: string, reason: string, cause: unknown): ForgeUnreachableError => {
    const state = stateOf(where)
    state.failures++
    state.reason = reason
    const permanent = reason === 'BAD_PORT' || (reason === 'ENOTFOUND' && state.failures >= dnsTries)
    if (permanent)
      state.blockedUntil =
        reason === 'BAD_PORT' ? Number.POSITIVE_INFINITY : now() + (options.dnsCooldownMs ?? 60_000)
    const error = new ForgeUnreachableError(where, reason, permanent, { cause })
    if (state.failures === 1 || permanent) logFailure(options, where, reason, permanent, now())
    return error
  }
  return {
    wrap: (fetch) => async (input, init) => {
      const where = hostOf(input)
      const state = hosts.get(where)
      if (state?.blockedUntil !== undefined && state.blockedUntil > now())
        throw new ForgeUnreachableError(where, state.reason ?? 'unknown', true)
      try {
        const response = await fetch(input, init)
        if (state && state.failures > 0) {
          options.logger.info(
            { component: 'forge', where, failures: state.failures },
            `forge: ${where} answers again`,
          )
          hosts.delete(where)
        }
        return response
      } catch (error) {
        const signal = init?.signal as AbortSignal | undefined
        const reason = signal?.aborted ? undefined : networkReason(error)
        if (reason === undefined) throw error
        throw fail(where, reason, error)
      }
    },
  }
}

function logFailure(
  options: ReachabilityOptions,
  where: string,
  reason: string,
  permanent: boolean,
  at: number,
) {
  const fields = { component: 'forge', operation: 'request', where, reason }
  if (permanent) {
    options.logger.error(
      { ...fields, retrying: false },
      `forge: cannot reach ${where} (${describeReason(reason)}); not retrying — check GITHUB_API_URL`,
    )
    return
  }
  const until = new Date(at + options.retryWindowMs).toISOString()
  options.logger.warn(
    { ...fields, retrying: true, retryUntil: until },
    `forge: cannot reach ${where} (${describeReason(reason)}); retrying this request until ${until}`,
  )
}

/** `host:port` of a request URL (the scheme's default port when none is written). */
function hostOf(input: string | URL): string {
  const url = typeof input === 'string' ? new URL(input) : input
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`
}

/** The network failure's system code (`BAD_PORT` for fetch's refused ports), or undefined for anything else. */
export function networkReason(error: unknown, depth = 0): string | undefined {
  if (depth > 6 || !(error instanceof Error)) return undefined
  if (error.message === 'bad port') return 'BAD_PORT'
  const code = (error as Error & { code?: unknown }).code
  if (typeof code === 'string' && /^(E[A-Z_]+|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET)$/.test(code))
    return code
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = networkReason(inner, depth + 1)
      if (found) return found
    }
  }
  return networkReason(error.cause, depth + 1)
}
