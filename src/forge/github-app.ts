/**
 * The forge: an Octokit authenticated as one GitHub App installation, whose every request goes through
 * the metered transport. The Octokit class is built once per forge with `.plugin(throttling, retry,
 * lanePlugin)` — the lane plugin last, so it stamps the caller's lane before the throttling queue — and
 * `.defaults({ baseUrl, request: { fetch } })`; `@octokit/app` drives it (JWT, installation-token mints
 * and their cache) with that class, so token mints are metered like any other request.
 *
 * Not a GitHub SDK of its own (routes are Octokit's) and not an election: it talks to GitHub for
 * whichever net calls it, in that net's lane.
 */
import { App } from '@octokit/app'
import { Octokit } from '@octokit/core'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import type { Registry } from 'prom-client'
import type { ForgeCacheOptions } from './forge-cache.js'
import type { ForgeCacheBounds, ForgeCacheStore } from './forge-cache-store.js'
import { type ForgeConfig, checkForgeConfig } from './forge-config.js'
import type { ForgeLogger } from './forge-logger.js'
import { LANE_HEADER, lanePlugin } from './lane.js'
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
 * request is sent). Synchronous: the installation token is minted on the first request and cached by
 * `@octokit/app` until shortly before it expires.
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
  const transport = createForgeTransport({ meter, ...(cache === undefined ? {} : { cache }) })
  const OctokitClass = buildOctokitClass(config, transport.fetch, logger, options.retry ?? {})
  const app = new App({
    appId: config.appId,
    privateKey: config.privateKey,
    Octokit: OctokitClass as unknown as typeof Octokit,
    log: octokitLog(logger),
  })
  const octokit = new OctokitClass({
    authStrategy: appInstallationAuth,
    auth: { app, installationId: config.installationId },
  })
  let closing: Promise<void> | undefined
  return {
    octokit,
    meter,
    cache: cache?.local,
    close() {
      closing ??= (async () => {
        meter.flush()
        await transport.close()
      })()
      return closing
    },
  }
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
  return Octokit.plugin(throttling, retry, lanePlugin).defaults({
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
  app: App
  installationId: number
}

interface RequestInterface {
  (options: object): Promise<unknown>
  endpoint: { merge(route: unknown, parameters?: unknown): { headers: Record<string, string> } }
}

/**
 * An Octokit auth strategy that sends each request with the installation token `@octokit/app` keeps
 * (minted on demand, cached until near expiry). Concurrent first requests share one mint.
 */
function appInstallationAuth({ app, installationId }: InstallationAuthOptions) {
  let inflight: Promise<{ token: string }> | undefined
  const authenticate = () => {
    inflight ??= (
      app.octokit.auth({ type: 'installation', installationId }) as Promise<{ token: string }>
    ).finally(() => {
      inflight = undefined
    })
    return inflight
  }
  return {
    auth: authenticate,
    hook: async (request: RequestInterface, route: unknown, parameters?: unknown) => {
      const endpoint = request.endpoint.merge(route, parameters)
      const { token } = await authenticate()
      endpoint.headers.authorization = `token ${token}`
      return request(endpoint)
    },
  }
}

/** Octokit's logger, narrowed to messages: its extra arguments can hold request options, headers and tokens. */
function octokitLog(logger: ForgeLogger) {
  const line = (level: 'info' | 'warn' | 'error') => (message: unknown) =>
    logger[level]({ component: 'forge', source: 'octokit' }, `forge: ${String(message)}`)
  return { debug: () => {}, info: line('info'), warn: line('warn'), error: line('error') }
}
