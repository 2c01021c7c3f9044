/**
 * The forge: an Octokit authenticated as one GitHub App installation, whose every request goes through
 * the metered transport. The Octokit class is built once per forge with `.plugin(throttling, retry,
 * lanePlugin, tracePlugin, …)` — the lane and trace plugins after those two, so they stamp the caller's
 * lane and span before the throttling queue — and
 * `.defaults({ baseUrl, request: { fetch } })`; an instance of that class authenticated as the App
 * (`@octokit/auth-app`: JWT, installation-token mints and their cache) mints the installation's tokens,
 * so token mints are metered like any other request. (`@octokit/app` did the same, with webhooks and
 * OAuth leasecron never used: it cost a consumer's install some forty packages.)
 *
 * A forge that cannot be reached is said at once (what, where, retrying until when), retried only while
 * retrying can help (a refused connection), and given up on without retries when it cannot (a port fetch
 * refuses, a host DNS does not know after a few tries): see `reachability`. A request whose signal aborts
 * — a stopping worker — leaves the throttling queue at once instead of waiting its turn.
 *
 * Not a GitHub SDK of its own (routes are Octokit's) and not an election: it talks to GitHub for
 * whichever net calls it, in that net's lane.
 */
import { createRequire } from 'node:module'
import type { Octokit } from '@octokit/core'
import type { Registry } from 'prom-client'
import type { ForgeCacheOptions } from './forge-cache.js'
import type { ForgeCacheBounds, ForgeCacheStore } from './forge-cache-store.js'
import { type ForgeConfig, checkForgeConfig } from './forge-config.js'
import type { ForgeLogger } from './forge-logger.js'
import { ForgeUnreachableError } from './forge-unreachable-error.js'
import { createReachability } from './reachability.js'
import { LANE_HEADER, lanePlugin } from './lane.js'
import { tracePlugin } from './request-span.js'
import { type ForgeMeter, createForgeMeter } from './meter.js'
import { MemoryForgeCacheStore } from './memory-forge-cache-store.js'
import { createForgeTransport } from './transport.js'

/** The Octokit class a forge builds: core with throttling, retry and the lane plugin. */
export type ForgeOctokit = InstanceType<ReturnType<typeof buildOctokitClass>>

/** Retry and throttling knobs; the defaults are GitHub's advice and suit production. */
export interface ForgeRetryOptions {
  /** 5xx / network retries per request (plugin-retry); 3 by default. */
  retries?: number
  /** plugin-retry waits (n+1)² × this between tries; 1000 ms by default (tests shrink it). */
  retryBaseDelayMs?: number
  /** Rate-limit (primary or secondary) waits before giving up on a request; 2 by default. */
  rateLimitRetries?: number
}

/** Options for `createForge`. */
export interface ForgeOptions {
  config: ForgeConfig
  logger: ForgeLogger
  /** The meter's clock (hour roll-over, flush); the wall clock when absent. */
  meterClock?: () => Date
  /** Where forge_requests_total and the rate-limit gauges register; a private registry when absent. */
  registry?: Registry
  retry?: ForgeRetryOptions
  /** Aborting it (the worker stops) rejects every request still queued or waiting for a retry at once. */
  signal?: AbortSignal
  /** The revalidating cache; on by default with a 64 MiB memory store (see ForgeCacheSettings). */
  cache?: ForgeCacheSettings
}

/** How the forge keeps answers to revalidate GETs. */
export interface ForgeCacheSettings extends ForgeCacheBounds {
  /** `false` sends every GET unconditional (benchmarks compare the two); true by default. */
  enabled?: boolean
  /** A store shared across processes (MongoForgeCacheStore), behind this process's memory store. */
  shared?: ForgeCacheStore
}

/** A running forge. */
export interface Forge {
  /** Authenticated as the configured installation: `forge.octokit.request('GET /repos/{owner}/{repo}', …)`. */
  octokit: ForgeOctokit
  meter: ForgeMeter
  /** This process's cache store (sizes for tests and the status page); undefined when disabled. */
  cache: ForgeCacheStore | undefined
  /** Flushes the meter (the `stopping` note) and closes the transport's Agent; idempotent. */
  close(): Promise<void>
}

// 429 and 403 belong to the throttling plugin; retrying them here as well would be a second layer.
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451]

/**
 * Builds a forge for `options.config` (validated again here: a bad key throws ForgeConfigError before any
 * request is sent). Synchronous: the client (Octokit over the undici transport) is built on the first read
 * of `octokit`, and the installation token is minted on the first request and cached by `@octokit/auth-app`
 * until shortly before it expires — a process that never calls the forge loads neither.
 */
export function createForge(options: ForgeOptions): Forge {
  const config = checkForgeConfig(options.config)
  const { logger } = options
  const meter = createForgeMeter({
    logger,
    ...(options.meterClock === undefined ? {} : { clock: options.meterClock }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  })
  const cache = cacheOptions(options.cache ?? {}, config.installationId, logger)
  // The client (Octokit, undici) is built on first use: a worker campaigns, and a `once` that finds its
  // slot taken exits, without loading either.
  let client: ReturnType<typeof buildClient> | undefined
  const built = () => {
    client ??= buildClient(options, config, meter, cache)
    return client
  }
  let closing: Promise<void> | undefined
  return {
    get octokit() {
      return built().octokit
    },
    meter,
    cache: cache?.local,
    close() {
      closing ??= (async () => {
        meter.flush()
        await client?.transport.close()
      })()
      return closing
    },
  }
}

/** The metered transport and the installation's Octokit over it. */
function buildClient(
  options: ForgeOptions,
  config: ForgeConfig,
  meter: ForgeMeter,
  cache: ForgeCacheOptions | undefined,
) {
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
    authStrategy: octokitModules().createAppAuth,
    auth: { appId: config.appId, privateKey: config.privateKey },
  })
  const octokit = new OctokitClass({
    authStrategy: appInstallationAuth,
    auth: { app, installationId: config.installationId },
  })
  return { transport, octokit }
}

// Octokit is required on the first client, not imported with this module: with undici it was a third of
// a cold start, and every `import 'leasecron'` paid for it. require() of these ES modules (Node >= 20.19,
// the package's floor; none awaits at top level) keeps createForge synchronous.
const requireLazily = createRequire(import.meta.url)
let octokit:
  | {
      createAppAuth: typeof import('@octokit/auth-app').createAppAuth
      Octokit: typeof import('@octokit/core').Octokit
      retry: typeof import('@octokit/plugin-retry').retry
      throttling: typeof import('@octokit/plugin-throttling').throttling
    }
  | undefined
function octokitModules() {
  octokit ??= {
    createAppAuth: (requireLazily('@octokit/auth-app') as typeof import('@octokit/auth-app')).createAppAuth,
    Octokit: (requireLazily('@octokit/core') as typeof import('@octokit/core')).Octokit,
    retry: (requireLazily('@octokit/plugin-retry') as typeof import('@octokit/plugin-retry')).retry,
    throttling: (requireLazily('@octokit/plugin-throttling') as typeof import('@octokit/plugin-throttling'))
      .throttling,
  }
  return octokit
}

/** How long plugin-retry keeps retrying one request: (n+1)² × base for each retry n. */
function retryWindowMs(options: ForgeRetryOptions): number {
  const base = options.retryBaseDelayMs ?? 1000
  let total = 0
  for (let n = 1; n <= (options.retries ?? 3); n++) total += n * n * base
  return total
}

/** The transport's cache options for the settings, or undefined when the cache is disabled. */
function cacheOptions(
  settings: ForgeCacheSettings,
  installationId: number,
  logger: ForgeLogger,
): ForgeCacheOptions | undefined {
  if (settings.enabled === false) return undefined
  const bounds = {
    ...(settings.maxBytes === undefined ? {} : { maxBytes: settings.maxBytes }),
    ...(settings.maxEntries === undefined ? {} : { maxEntries: settings.maxEntries }),
  }
  return {
    local: new MemoryForgeCacheStore(bounds),
    ...(settings.maxBytes === undefined ? {} : { maxBodyBytes: settings.maxBytes }),
    ...(settings.shared === undefined ? {} : { shared: settings.shared }),
    installationId,
    // A store outage costs points, never a pass: warn and go on uncached.
    onStoreError: (error, operation) =>
      logger.warn(
        { component: 'forge', operation: `cache ${operation}`, err: error },
        `forge cache: ${operation} failed (${error instanceof Error ? error.message : String(error)}); request sent without it`,
      ),
  }
}

function buildOctokitClass(
  config: ForgeConfig,
  fetch: (input: string | URL, init?: Record<string, unknown>) => Promise<Response>,
  logger: ForgeLogger,
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
  const throttleId = `leasecron-${config.installationId}-${Math.random().toString(36).slice(2, 10)}`
  const { Octokit, throttling, retry } = octokitModules()
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
    inflight ??= (app.auth({ type: 'installation', installationId }) as Promise<{ token: string }>).finally(
      () => {
        inflight = undefined
      },
    )
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
function octokitLog(logger: ForgeLogger) {
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
      const signal = signals.length === 1 ? signals[0]! : AbortSignal.any(signals)
      if (signal.aborted) return Promise.reject(abortError(signal))
      return new Promise<Awaited<ReturnType<typeof request>>>((resolve, reject) => {
        const onAbort = () => reject(abortError(signal))
        signal.addEventListener('abort', onAbort, { once: true })
        Promise.resolve(request(options))
          .then(resolve, reject)
          .finally(() => signal.removeEventListener('abort', onAbort))
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
