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
import type { ForgeClient } from './forge-client.js'
import type { ForgeCacheOptions } from '../cache/forge-cache.js'
import type { ForgeCacheBounds, ForgeCacheStore } from '../cache/forge-cache-store.js'
import { type ForgeAppConfig, type ForgeConfig, checkForgeConfig } from '../forge-config.js'
import type { Logger } from '../../logger.js'
import type { ForgeOctokit, ForgeRequestParameters } from './forge-octokit.js'
import type { ForgeRetryOptions } from './forge-retry-options.js'
import type { ForgeBudget } from '../installations/forge-reserve.js'
import { budgetMeter, InstallationBudget } from '../installations/installation-budget.js'
import { type ForgeMeter, createForgeMeter } from '../meter/meter.js'
import { MemoryForgeCacheStore } from '../cache/memory-forge-cache-store.js'
import type { MetricsRegistry } from '../meter/metrics-registry.js'

export type { ForgeOctokit, ForgeRequestParameters, ForgeResponse } from './forge-octokit.js'
export type { ForgeRetryOptions } from './forge-retry-options.js'

/** Options for `createForge`. */
export interface ForgeOptions {
  config: ForgeConfig
  logger: Logger
  /** The meter's clock (hour roll-over, flush); the wall clock when absent. */
  meterClock?: () => Date
  /** Where forge_requests_total and the rate-limit gauges register; a private registry when absent. */
  registry?: MetricsRegistry
  retry?: ForgeRetryOptions
  /** Aborting it (the worker stops) rejects every request still queued or waiting for a retry at once. */
  signal?: AbortSignal
  /** The revalidating cache; on by default with a 64 MiB memory store (see ForgeCacheSettings). */
  cache?: ForgeCacheSettings
  /**
   * Another installation's forge's meter, to count this one's requests with it (one hourly line, one page;
   * lanes tell installations apart). The owner of the meter flushes it; this forge's close does not.
   */
  meter?: ForgeMeter
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
  /** The installation it acts as. */
  readonly installationId: number
  /** The installation's budget as its newest answer told it (for the reserve); undefined before one. */
  budget(): ForgeBudget | undefined
  /** This process's cache store (sizes for tests and the status page); undefined when disabled. */
  cache: ForgeCacheStore | undefined
  /** Flushes the meter (the `stopping` note) and closes the transport's Agent; idempotent. */
  close(): Promise<void>
}

/**
 * Builds a forge for `options.config` (validated again here: a bad key throws ForgeConfigError before any
 * request is sent). Synchronous: the client (Octokit over the undici transport) is loaded and built on the
 * first request, and the installation token is minted on the first request and cached by `@octokit/auth-app`
 * until shortly before it expires — a process that never calls the forge loads neither.
 */
export function createForge(options: ForgeOptions): Forge {
  const config = checkForgeConfig(options.config)
  const { logger } = options
  const budget = new InstallationBudget()
  const meter = budgetMeter(
    options.meter ??
      createForgeMeter({
        logger,
        ...(options.meterClock === undefined ? {} : { clock: options.meterClock }),
        ...(options.registry === undefined ? {} : { registry: options.registry }),
      }),
    budget,
    options.meter !== undefined,
    config.installationId,
  )
  const cache = cacheOptions(options.cache ?? {}, config.installationId, logger)
  // The client (Octokit and undici, bundled into a chunk of their own) is loaded and built on the first
  // request: a worker campaigns, and a `once` that finds its slot taken exits, without loading either.
  let client: Promise<ForgeClient> | undefined
  const built = () => {
    client ??= import('./forge-client.js').then((m) => m.buildForgeClient(options, config, meter, cache))
    return client
  }
  const octokit: ForgeOctokit = {
    request: async <T>(route: string, parameters?: ForgeRequestParameters) =>
      (await built()).octokit.request<T>(route, parameters),
  }
  let closing: Promise<void> | undefined
  return {
    octokit,
    meter,
    installationId: config.installationId,
    budget: () => budget.current(),
    cache: cache?.local,
    close() {
      closing ??= (async () => {
        meter.flush()
        // A client that failed to load has nothing to close; its error reached the request that loaded it.
        const loaded = await client?.catch(() => undefined)
        await loaded?.transport.close()
      })()
      return closing
    },
  }
}

/** The transport's cache options for the settings, or undefined when the cache is disabled. */
function cacheOptions(
  settings: ForgeCacheSettings,
  installationId: number,
  logger: Logger,
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

/** The App's own client (JWT), for what no installation can ask: `GET /app/installations`. */
export interface AppForge {
  octokit: ForgeOctokit
  /** Closes the transport's Agent; idempotent. */
  close(): Promise<void>
}

/**
 * Builds the App's client over `meter` (the installations' shared meter: its requests are counted in their
 * lane, `other` unless a lane is set). Loaded on first request, like a forge's.
 */
export function createAppForge(
  options: Pick<ForgeOptions, 'logger' | 'retry' | 'signal'> & { app: ForgeAppConfig; meter: ForgeMeter },
): AppForge {
  // The App's key and URL checked as a forge's would be; the installation is none of this client's business.
  const app = checkForgeConfig({ ...options.app, installationId: 1 }, 'createAppForge')
  let client: Promise<ForgeClient> | undefined
  const built = () => {
    client ??= import('./forge-client.js').then((m) => m.buildAppClient(options, app, options.meter))
    return client
  }
  let closing: Promise<void> | undefined
  return {
    octokit: {
      request: async <T>(route: string, parameters?: ForgeRequestParameters) =>
        (await built()).octokit.request<T>(route, parameters),
    },
    close() {
      closing ??= (async () => {
        const loaded = await client?.catch(() => undefined)
        await loaded?.transport.close()
      })()
      return closing
    },
  }
}
