/**
 * The forge's client, loaded on a forge's first request: Octokit (core, `@octokit/auth-app`, the
 * throttling and retry plugins, our lane, trace and abort plugins) over the metered undici transport.
 * The bundle puts this module, Octokit and undici into a chunk of their own that only `import()` reaches
 * (test/library/bundle-graph.test.ts), so importing leasecron, `--version` and a worker that has not yet
 * called the forge load none of it, and a consumer installs neither package: both are inside the bundle.
 *
 * Not the public face of the forge (github-app.ts: `createForge`, the `ForgeOctokit` interface); nothing
 * here is exported from the package.
 */
import { createAppAuth } from '@octokit/auth-app'
import { mintRefusal } from '../installations/installation-token-error.js'
import { Octokit } from '@octokit/core'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import type { ForgeCacheOptions } from '../cache/forge-cache.js'
import type { ForgeAppConfig, ForgeConfig } from '../forge-config.js'
import type { Logger } from '../../logger.js'
import type { ForgeOctokit } from './forge-octokit.js'
import { ForgeUnreachableError } from './forge-unreachable-error.js'
import type { ForgeRetryOptions } from './forge-retry-options.js'
import { LANE_HEADER, lanePlugin } from '../lane.js'
import type { ForgeMeter } from '../meter/meter.js'
import { createReachability } from './reachability.js'
import { tracePlugin } from './request-span.js'
import { createForgeTransport, type ForgeTransport } from './transport.js'

/** What createForge's options the client reads (ForgeOptions has them). */
export interface ForgeClientOptions {
  logger: Logger
  retry?: ForgeRetryOptions
  /** Aborting it rejects every request still queued or waiting for a retry at once. */
  signal?: AbortSignal
}

/** What a forge holds once loaded: the transport (closed with the forge) and the installation's client. */
export interface ForgeClient {
  transport: ForgeTransport
  octokit: ForgeOctokit
}

// 429 and 403 belong to the throttling plugin; retrying them here as well would be a second layer.
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451]

/**
 * Builds the metered transport and the installation's Octokit over it. `config` is already checked
 * (createForge); nothing is sent until the returned client's first request.
 */
export function buildForgeClient(
  options: ForgeClientOptions,
  config: ForgeConfig,
  meter: ForgeMeter,
  cache: ForgeCacheOptions | undefined,
): ForgeClient {
  const { logger } = options
  const transport = createForgeTransport({ meter, ...(cache === undefined ? {} : { cache }) })
  const retryOptions = options.retry ?? {}
  const reachability = createReachability({ logger, retryWindowMs: retryWindowMs(retryOptions) })
  const fetch = reachability.wrap(transport.fetch)
  const OctokitClass = buildOctokitClass(config, fetch, logger, retryOptions, options.signal)
  // The App's own client (token mints) does not retry: the installation request around a mint retries
  // already, and two nested retry loops made 16 mints of one unreachable forge.
  const AppOctokit = OctokitClass.defaults({ retry: { enabled: false } })
  const app = new AppOctokit({
    authStrategy: createAppAuth,
    auth: { appId: config.appId, privateKey: config.privateKey },
  })
  const octokit = new OctokitClass({
    authStrategy: appInstallationAuth,
    auth: { app, installationId: config.installationId },
  })
  // Octokit's route-typed request, seen through our own interface (the public types name no @octokit/*).
  return { transport, octokit: { request: (route, parameters) => octokit.request(route, parameters) } }
}

/**
 * The App's own client (JWT, no installation): what `GET /app/installations` needs. Metered like every
 * forge request (token mints and discovery are the App's, not an installation's budget); no cache.
 */
export function buildAppClient(
  options: ForgeClientOptions,
  app: ForgeAppConfig,
  meter: ForgeMeter,
): ForgeClient {
  const { logger } = options
  const transport = createForgeTransport({ meter })
  const retryOptions = options.retry ?? {}
  const reachability = createReachability({ logger, retryWindowMs: retryWindowMs(retryOptions) })
  const OctokitClass = buildOctokitClass(
    app,
    reachability.wrap(transport.fetch),
    logger,
    retryOptions,
    options.signal,
  )
  const octokit = new OctokitClass({
    authStrategy: createAppAuth,
    auth: { appId: app.appId, privateKey: app.privateKey },
  })
  return { transport, octokit: { request: (route, parameters) => octokit.request(route, parameters) } }
}

/** How long plugin-retry keeps retrying one request: (n+1)² × base for each retry n. */
function retryWindowMs(options: ForgeRetryOptions): number {
  const base = options.retryBaseDelayMs ?? 1000
  let total = 0
  for (let n = 1; n <= (options.retries ?? 3); n++) total += n * n * base
  return total
}

function buildOctokitClass(
  config: ForgeAppConfig & { installationId?: number },
  fetch: (input: string | URL, init?: Record<string, unknown>) => Promise<Response>,
  logger: Logger,
  retryOptions: ForgeRetryOptions,
  stopping: AbortSignal | undefined,
) {
  const rateLimitRetries = retryOptions.rateLimitRetries ?? 2
  const onLimit =
    (kind: 'primary' | 'secondary') =>
    (
      retryAfter: number,
      request: { method: string; url: string; headers?: Record<string, unknown> },
      _octokit: unknown,
      retryCount: number,
    ) => {
      const retrying = retryCount < rateLimitRetries
      const lane = request.headers?.[LANE_HEADER]
      logger.warn(
        {
          component: 'forge',
          operation: 'request',
          kind,
          method: request.method,
          url: request.url,
          lane,
          retryAfter,
          retryCount,
          retrying,
        },
        `forge: ${kind} rate limit on ${request.method} ${request.url}; ${retrying ? `retrying after ${retryAfter}s` : 'giving up'}`,
      )
      return retrying
    }
  // A unique throttling id keeps each forge's queues apart (the plugin's groups are process-wide).
  const throttleId = `leasecron-${config.installationId ?? 'app'}-${Math.random().toString(36).slice(2, 10)}`
  return Octokit.plugin(throttling, retry, lanePlugin, tracePlugin, abortPlugin(stopping)).defaults({
    baseUrl: config.apiUrl,
    userAgent: 'leasecron',
    // Every instance (the App's and the installation's) logs through the forge logger, never the console.
    log: octokitLog(logger),
    request: { fetch },
    throttle: { id: throttleId, onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary') },
    retry: {
      doNotRetry: DO_NOT_RETRY,
      retries: retryOptions.retries ?? 3,
      retryAfterBaseValue: retryOptions.retryBaseDelayMs ?? 1000,
    },
  })
}

interface InstallationAuthOptions {
  /** An Octokit authenticated as the App (createAppAuth): its `auth()` mints installation tokens. */
  app: Pick<Octokit, 'auth'>
  installationId: number
}

interface RequestInterface {
  (options: object): Promise<unknown>
  endpoint: { merge(route: unknown, parameters?: unknown): { headers: Record<string, string> } }
}

/**
 * An Octokit auth strategy that sends each request with the installation token `@octokit/auth-app` keeps
 * (minted on demand, cached until near expiry). Concurrent first requests share one mint.
 */
function appInstallationAuth({ app, installationId }: InstallationAuthOptions) {
  let inflight: Promise<{ token: string }> | undefined
  const authenticate = () => {
    // A refused mint becomes InstallationTokenError, without the mint's status (installation-token-error.ts).
    inflight ??= (app.auth({ type: 'installation', installationId }) as Promise<{ token: string }>)
      .catch((error: unknown) => {
        throw mintRefusal(installationId, error)
      })
      .finally(() => {
        inflight = undefined
      })
    return inflight
  }
  return {
    auth: authenticate,
    hook: async (request: RequestInterface, route: unknown, parameters?: unknown) => {
      const endpoint = request.endpoint.merge(route, parameters)
      try {
        const { token } = await authenticate()
        endpoint.headers.authorization = `token ${token}`
        return await request(endpoint)
      } catch (error) {
        // Thrown as itself (not a status-500 RequestError), plugin-retry does not retry it.
        throw permanentlyUnreachable(error) ?? error
      }
    },
  }
}

/** Octokit's logger, narrowed to messages: its extra arguments can hold request options, headers and tokens. */
function octokitLog(logger: Logger) {
  const line = (level: 'info' | 'warn' | 'error') => (message: unknown) =>
    logger[level]({ component: 'forge', source: 'octokit' }, `forge: ${String(message)}`)
  return { debug: () => {}, info: line('info'), warn: line('warn'), error: line('error') }
}

/** The ForgeUnreachableError in `error`'s cause chain when it says retrying cannot help. */
function permanentlyUnreachable(error: unknown): ForgeUnreachableError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    if (e instanceof ForgeUnreachableError) return e.permanent ? e : undefined
  }
  return undefined
}

/**
 * Octokit plugin, listed last so it wraps throttling and retry: a request whose own signal or the
 * forge's `stopping` signal aborts rejects at once with an AbortError, instead of waiting its turn in
 * the throttling queue (writes are spaced a second apart) or its next retry. What was already sent
 * is not recalled; what waits in the queue fails fast when its turn comes (its signal is aborted).
 */
function abortPlugin(stopping: AbortSignal | undefined) {
  return (octokit: Octokit): Record<string, never> => {
    octokit.hook.wrap('request', (request, options) => {
      const signals = [options.request?.signal, stopping].filter((s): s is AbortSignal => s != null)
      if (signals.length === 0) return request(options)
      const aborted = signals.find((s) => s.aborted)
      if (aborted) return Promise.reject(abortError(aborted))
      // A listener on each signal, removed when the request settles, rather than AbortSignal.any: on
      // Node 20 that leaves an entry on the forge's long-lived `stopping` signal for every request
      // (lease/follow-abort.ts says more).
      return new Promise<Awaited<ReturnType<typeof request>>>((resolve, reject) => {
        const listeners = signals.map((signal) => {
          const onAbort = () => reject(abortError(signal))
          signal.addEventListener('abort', onAbort, { once: true })
          return () => signal.removeEventListener('abort', onAbort)
        })
        Promise.resolve(request(options))
          .then(resolve, reject)
          .finally(() => {
            for (const remove of listeners) remove()
          })
      })
    })
    return {}
  }
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('forge request aborted: the pass or the worker is stopping', {
    cause: signal.reason,
  })
  error.name = 'AbortError'
  return error
}
