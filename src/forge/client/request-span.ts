/**
 * Traces of forge requests: every attempt the transport puts on the wire — each retry, each redirect hop,
 * each token mint, a revalidation's 304 as the 304 it is — becomes one OpenTelemetry span named and
 * attributed by the HTTP client semantic conventions: named after the method (`GET`), kind CLIENT,
 * `http.request.method`, `url.full` (credentials redacted), `server.address`, `server.port`,
 * `http.response.status_code` when an answer came, and on failure status ERROR with `error.type` (the
 * status code for a 4xx/5xx, the error's code or name when no answer came).
 *
 * Its parent is the span that was active where the request was made — a pass's span (observe/pass-span.ts)
 * — carried the way lanes are (lane.ts): `tracePlugin` stamps the active span's context into a private
 * header in the caller's async context, before the throttling queue (which does not carry it), and the
 * interceptor reads and strips it. Token mints serve every pass that waits for the token, so they are
 * root spans of their own rather than children of whichever pass happened to ask.
 *
 * Through `@opentelemetry/api` alone: until an SDK is registered, the tracer is a no-op, no header is
 * stamped and a span costs an object. Not a propagator: nothing is sent to the forge (no `traceparent`).
 */
import {
  type Attributes,
  type Context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
} from '@opentelemetry/api'
import type { Dispatcher } from 'undici'
import { isSecretParameter } from '../../secret-parameter.js'
import { AUTH_LANE, chargedLane } from '../lane.js'
import { stripHeader } from './strip-header.js'

/** The instrumentation scope of every leasecron span (passes and forge requests). */
export const TRACER_NAME = 'leasecron'

/** The private header that carries the caller's span context from the Octokit hook to the transport. */
export const TRACE_HEADER = 'x-leasecron-trace'

/** The methods the conventions know; any other is `_OTHER`, its span named `HTTP`. */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
])

interface HookableOctokit {
  hook: { before(name: 'request', fn: (options: { headers: Record<string, unknown> }) => void): void }
}

/**
 * Octokit plugin that stamps the active span's context into TRACE_HEADER (`traceId-spanId-flags`). Listed
 * beside lanePlugin, after throttling and retry, so its hook runs in the caller's async context; retries
 * reuse the stamped options, so every attempt of a request has the same parent.
 */
export function tracePlugin(octokit: HookableOctokit): Record<string, never> {
  octokit.hook.before('request', (options) => {
    const parent = trace.getSpanContext(context.active())
    if (parent && isSpanContextValid(parent))
      options.headers[TRACE_HEADER] = `${parent.traceId}-${parent.spanId}-${parent.traceFlags}`
  })
  return {}
}

/** The context a stamped header names as the parent; the root for none, a bad one, or a token mint. */
function parentContext(stamped: string | undefined, pathname: string): Context {
  if (stamped === undefined || chargedLane(pathname, undefined) === AUTH_LANE) return ROOT_CONTEXT
  const [traceId = '', spanId = '', flags = ''] = stamped.split('-')
  const parent = { traceId, spanId, traceFlags: Number(flags), isRemote: false }
  return isSpanContextValid(parent) ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT
}

/** A request's span, started with the attributes known before it is sent. */
function startRequestSpan(opts: Dispatcher.DispatchOptions, parent: Context, url: URL): Span {
  const method = opts.method.toUpperCase()
  const known = KNOWN_METHODS.has(method)
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
  const attributes: Attributes = {
    'http.request.method': known ? method : '_OTHER',
    'url.full': redactedUrl(url),
    'server.address': url.hostname,
    'server.port': port,
    ...(known ? {} : { 'http.request.method_original': opts.method }),
  }
  return trace
    .getTracer(TRACER_NAME)
    .startSpan(known ? method : 'HTTP', { kind: SpanKind.CLIENT, attributes }, parent)
}

/** Ends a request's span: its status code, and ERROR with `error.type` for a 4xx/5xx or no answer. */
function endRequestSpan(span: Span, status: number | undefined, error?: unknown): void {
  if (status !== undefined) span.setAttribute('http.response.status_code', status)
  if (error !== undefined) {
    // No description: error.type names the class, and an error's message is not this module's to vouch for.
    span.setAttribute('error.type', errorType(error))
    span.setStatus({ code: SpanStatusCode.ERROR })
  } else if (status !== undefined && status >= 400) {
    span.setAttribute('error.type', String(status))
    span.setStatus({ code: SpanStatusCode.ERROR })
  }
  span.end()
}

/** The low-cardinality class of an error: its code (ECONNREFUSED, UND_ERR_…) or its name. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && code !== '') return code
  return error instanceof Error ? error.name : '_OTHER'
}

/**
 * `url.full` as the conventions want it: no user info, and the values of credential-bearing query
 * parameters replaced by `REDACTED`, judged by the one rule the scrubber applies to every other text
 * (config/scrub.ts, a leaf module forge/ may import: it imports nothing). The forge's own credentials
 * travel in the Authorization header, never in a URL.
 */
function redactedUrl(url: URL): string {
  const copy = new URL(url.href)
  copy.username = ''
  copy.password = ''
  for (const name of [...copy.searchParams.keys()])
    if (isSecretParameter(name)) copy.searchParams.set(name, 'REDACTED')
  return copy.href
}

/**
 * The undici interceptor that makes each dispatch a client span (see the module doc). Compose it
 * innermost, under the meter and the cache, so it sees exactly what goes on the wire; it strips
 * TRACE_HEADER, which never leaves the process.
 */
export function requestSpanInterceptor(): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const { headers, value } = stripHeader(opts.headers, TRACE_HEADER)
    const url = new URL(opts.path ?? '/', opts.origin ?? 'http://unknown')
    const span = startRequestSpan(opts, parentContext(value, url.pathname), url)
    let status: number | undefined
    let ended = false
    const end = (error?: unknown) => {
      if (ended) return
      ended = true
      endRequestSpan(span, status, error)
    }
    const traced: Dispatcher.DispatchHandler = {
      onRequestStart: (controller, ctx) => handler.onRequestStart?.(controller, ctx),
      onRequestUpgrade: (controller, statusCode, upgradeHeaders, socket) => {
        status = statusCode
        end()
        handler.onRequestUpgrade?.(controller, statusCode, upgradeHeaders, socket)
      },
      onResponseStart: (controller, statusCode, responseHeaders, statusMessage) => {
        status = statusCode
        return handler.onResponseStart?.(controller, statusCode, responseHeaders, statusMessage)
      },
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => {
        end()
        handler.onResponseEnd?.(controller, trailers)
      },
      onResponseError: (controller, error) => {
        end(error)
        handler.onResponseError?.(controller, error)
      },
    }
    return dispatch({ ...opts, headers }, traced)
  }
}
