/**
 * The forge transport: ONE undici Agent composed with the metering interceptor, and undici's own fetch
 * bound to it, so every forge request — Octokit's, its retries, each redirect hop fetch follows, token
 * mints — passes the meter exactly once per attempt.
 *
 * With a cache (the default in `createForge`), the revalidating interceptor of forge-cache.ts sits
 * outside the meter: every GET goes out conditional, and the meter sees — and counts — the 304 on the
 * wire while the caller receives the kept body as a 200.
 *
 * Not a retry layer (Octokit's retry and throttling plugins are the only one) and not the cache itself.
 * Node's built-in fetch never gets this dispatcher: it bundles its own undici, and mixing the two is
 * unsupported.
 */
import { Agent, type Dispatcher, type RequestInit, type Response, fetch as undiciFetch } from 'undici'
import { createForgeCache, type ForgeCacheOptions, headerRecord } from '../cache/forge-cache.js'
import { chargedLane, LANE_HEADER } from '../lane.js'
import type { ForgeApi, ForgeMeter } from '../meter/meter.js'
import { credentialKind, spendsPoint } from '../meter/rate-limit-points.js'
import { requestSpanInterceptor } from './request-span.js'
import { stringHeader } from '../meter/rate-limit-watch.js'
import { stripHeader } from './strip-header.js'
import { WATERMARK_HEADER } from '../cache/watermark-parameter.js'

/**
 * A fetch-compatible function, as Octokit's `request.fetch` expects (Octokit types it `any`). Its types are
 * undici's own, not the DOM's: the two Response types differ in detail, and this fetch is undici's.
 */
export type ForgeFetch = (input: string | URL, init?: RequestInit) => Promise<Response>

/** The transport handed to Octokit. */
export interface ForgeTransport {
  fetch: ForgeFetch
  /** The composed dispatcher (metering interceptor over the Agent). */
  dispatcher: Dispatcher
  /** Waits for cache writes, then closes the Agent, waiting for requests in flight; idempotent. */
  close(): Promise<void>
}

/** Options for `createForgeTransport`. */
export interface ForgeTransportOptions {
  meter: ForgeMeter
  /** Passed to the undici Agent (timeouts, connections); never an interceptor list. */
  agent?: Agent.Options
  /** Revalidate every GET through these stores; absent: no cache (every GET unconditional). */
  cache?: ForgeCacheOptions
}

// undici is imported with this module, which only forge-client.ts imports: the bundle holds it in the
// forge client's chunk, loaded on a forge's first request (github-app.ts), so a process that never talks to
// a forge (`leasecron status`, a worker before its first pass) does not pay for it. Bundled, it is our own
// copy with its own Agent and fetch, never Node's built-in one and never the user's: nothing of it is shared.

/** Builds the Agent, composes the metering interceptor onto it and binds undici's fetch to the result. */
export function createForgeTransport(options: ForgeTransportOptions): ForgeTransport {
  const agent = new Agent({ keepAliveTimeout: 4_000, ...options.agent })
  // compose() wraps in order, so the last interceptor is the outermost: the cache sees the caller's
  // request first, the meter and the request spans (innermost) see exactly what goes on the wire.
  const cache = options.cache === undefined ? undefined : createForgeCache(options.cache)
  const dispatcher =
    cache === undefined
      ? agent.compose(requestSpanInterceptor(), meteringInterceptor(options.meter))
      : agent.compose(requestSpanInterceptor(), meteringInterceptor(options.meter), cache.interceptor)
  let closing: Promise<void> | undefined
  return {
    dispatcher,
    fetch: async (input, init) => {
      try {
        return await undiciFetch(input, { ...init, dispatcher })
      } catch (error) {
        throw asAbortError(error, init?.signal ?? undefined)
      }
    },
    close: () => {
      // Cache writes still landing (the shared store) finish first: a `once` process exits right after.
      closing ??= (cache?.settle() ?? Promise.resolve()).then(() => agent.close())
      return closing
    },
  }
}

/**
 * undici rejects an aborted fetch with the signal's own reason (often a plain Error), which Octokit turns
 * into a status-500 RequestError that plugin-retry then retries for 14 s — so a pass told to stop kept a
 * stopping worker past its shutdown timeout. An abort becomes the AbortError Octokit passes through.
 */
function asAbortError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted || (error instanceof Error && error.name === 'AbortError')) return error
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason)
  const aborted = new DOMException(`forge request aborted: ${reason}`, 'AbortError')
  Object.defineProperty(aborted, 'cause', { value: error, enumerable: false })
  return aborted
}

/** `graphql` when the path is `/graphql` or `/api/graphql` (GitHub Enterprise), else `rest`. */
export function apiOf(pathname: string): ForgeApi {
  return pathname === '/graphql' || pathname === '/api/graphql' ? 'graphql' : 'rest'
}

/**
 * The undici interceptor that reads and strips LANE_HEADER and reports every attempt to the meter:
 * one `record` per dispatch, with the status when response headers arrive, or `error` when the attempt
 * failed before any response. It relies on the header only — never on AsyncLocalStorage, which the
 * throttling queue does not carry.
 */
export function meteringInterceptor(meter: ForgeMeter): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const { headers: laneless, value: stamped } = stripHeader(opts.headers, LANE_HEADER)
    // Without a cache, nothing else takes the watermark's mark off the request.
    const { headers } = stripHeader(laneless, WATERMARK_HEADER)
    const origin = typeof opts.origin === 'string' ? new URL(opts.origin) : (opts.origin ?? undefined)
    const host = origin?.host ?? 'unknown'
    const pathname = (opts.path ?? '/').split('?')[0] ?? '/'
    const attempt = { host, api: apiOf(pathname), lane: chargedLane(pathname, stamped) }
    const authorization = headerRecord(headers).authorization
    const point = (outcome: number, remaining: string | undefined) =>
      spendsPoint({ ...attempt, method: opts.method, pathname, authorization, outcome, remaining })
    let answered = false
    const metered: Dispatcher.DispatchHandler = {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, statusCode, upgradeHeaders, socket) => {
        answered = true
        meter.record({ ...attempt, outcome: statusCode, point: point(statusCode, undefined) })
        handler.onRequestUpgrade?.(controller, statusCode, upgradeHeaders, socket)
      },
      onResponseStart: (controller, statusCode, responseHeaders, statusMessage) => {
        answered = true
        const remaining = stringHeader(responseHeaders['x-ratelimit-remaining'])
        meter.record({ ...attempt, outcome: statusCode, point: point(statusCode, remaining) })
        meter.observeRateLimit(host, responseHeaders, credentialKind(authorization))
        return handler.onResponseStart?.(controller, statusCode, responseHeaders, statusMessage)
      },
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError: (controller, error) => {
        if (!answered) {
          answered = true
          meter.record({ ...attempt, outcome: 'error' })
        }
        handler.onResponseError?.(controller, error)
      },
    }
    return dispatch({ ...opts, headers }, metered)
  }
}
