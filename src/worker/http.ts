/**
 * The worker's HTTP surface: /healthz (the process is live: its event loop is not stalled and no campaign
 * is stuck, liveness.ts),
 * /readyz (configuration valid and the lease store answering), /metrics (Prometheus text), /status (the
 * status snapshot as JSON), / (the status page) and, under /nets/, the admin API (admin/admin-routes.ts:
 * POST with a bearer token, off unless LEASECRON_ADMIN_TOKEN is set). Nothing else; it serves no secrets.
 * Every other route answers GET and HEAD only; all under the limits and with the headers of http-limits.ts.
 */
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { MetricsRegistry } from '../forge/meter/metrics-registry.js'
import { type AdminRoutesOptions, serveAdminRoute } from './admin/admin-routes.js'
import type { StaleCampaign } from '../term/campaign-heartbeats.js'
import { applyLimits, HTTP_LIMITS, type HttpLimits, SECURITY_HEADERS, serverOptions } from './http-limits.js'
import { type EventLoopLiveness, livenessResponse, watchEventLoop } from '../term/liveness.js'
import { type StatusRoutesOptions, serveStatusRoute } from './status/status-routes.js'

/**
 * node:http as CommonJS exports, not an ES import. Why: on Node 22+ `http` has lazy getters for undici's
 * WebSocket classes (`WebSocket`, `CloseEvent`, `MessageEvent`), and an ES import builds the module's
 * namespace from every export, so it evaluates them: Node's own undici and, through it, http2 load into
 * a process that serves plain HTTP/1.1 — 13 MiB of an idle worker's RSS on Node 24 (bench/NOTES.md,
 * "Where an idle worker's memory goes"). Node 20 has no such getters.
 */
const { createServer } = process.getBuiltinModule('node:http')

export interface HealthServer {
  server: Server
  port: number
  close(): Promise<void>
}

export interface HealthServerOptions {
  port: number
  host?: string
  registry: MetricsRegistry
  /** Whether the worker can do its work now: the store answers. */
  ready(): Promise<{ ready: boolean; detail: Record<string, unknown> }>
  /** The campaigns silent past their limit (campaign-heartbeats.ts); /healthz fails while any is. */
  staleCampaigns?: () => StaleCampaign[]
  /** The status snapshot behind /status and the page at /; both 404 without it. */
  status?: StatusRoutesOptions
  /** The admin API under /nets/ (its token undefined: it answers 404 `admin-off`); absent: plain 404s. */
  admin?: Omit<AdminRoutesOptions, 'maxBodyBytes'>
  /** The server's timeouts and connection cap; HTTP_LIMITS by default. */
  limits?: HttpLimits
}

/** Starts listening; rejects when the port cannot be bound (a clear error naming it). */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const liveness = watchEventLoop()
  const limits = options.limits ?? HTTP_LIMITS
  const server = createServer(serverOptions(limits), (req, res) => route(req, res, options, liveness))
  applyLimits(server, limits)
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      liveness.stop()
      reject(
        new Error(
          `worker http: cannot listen on ${options.host ?? '0.0.0.0'} port ${options.port} (LEASECRON_BIND_ADDRESS, PORT): ${error.code ?? error.message}`,
          { cause: error },
        ),
      )
    })
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve())
  })
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        liveness.stop()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Answers one request. */
function route(
  req: IncomingMessage,
  res: ServerResponse,
  options: HealthServerOptions,
  liveness: EventLoopLiveness,
): void {
  const path = (req.url ?? '/').split('?')[0]
  const reply = (
    status: number,
    body: string,
    type = 'application/json',
    headers: OutgoingHttpHeaders = {},
  ) => {
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      'content-type': type,
      'cache-control': 'no-store',
      ...headers,
    })
    res.end(body)
  }
  const limits = options.limits ?? HTTP_LIMITS
  if (
    options.admin &&
    serveAdminRoute(req, path ?? '/', { ...options.admin, maxBodyBytes: limits.maxBodyBytes }, reply)
  )
    return
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    // The admin API's shape of a refusal, so that a client reads every error of this server alike.
    const message = `expected GET or HEAD; got ${req.method}`
    reply(405, JSON.stringify({ error: { code: 'method-not-allowed', message } }), undefined, {
      allow: 'GET, HEAD',
    })
    return
  }
  if (path === '/healthz') {
    reply(...livenessResponse(liveness.check(), options.staleCampaigns?.() ?? []))
    return
  }
  if (path === '/readyz') {
    options.ready().then(
      ({ ready, detail }) => reply(ready ? 200 : 503, JSON.stringify({ ready, ...detail })),
      () => reply(503, '{"ready":false}'),
    )
    return
  }
  if (path === '/metrics') {
    options.registry.metrics().then(
      (text) => reply(200, text, options.registry.contentType),
      () => reply(500, '{"error":"metrics unavailable"}'),
    )
    return
  }
  const query = (req.url ?? '').split('?')[1] ?? ''
  if (options.status && serveStatusRoute(path ?? '/', options.status, reply, query)) return
  reply(404, '{"error":"not found"}')
}
