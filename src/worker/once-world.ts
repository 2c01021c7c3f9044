/**
 * What a `once` process opens around its one pass: the Mongo connection (or none: single-process mode),
 * the forge (the local sandbox when no GitHub App is configured) with its shared cache, and the pass
 * itself (the net's set-up, then its term). Closed in reverse by `close`.
 *
 * Not yet the one runtime opener `run` uses too (worker.ts opens its own): moved here as it was, so
 * that the CLI's `once` command holds no runtime.
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { createForge } from '../forge/github-app.js'
import { forgeCacheSettings } from './forge-cache-settings.js'
import { startLocalSandbox } from './local-sandbox.js'
import type { Logger } from './logger.js'
import { connectMongo, type MongoConnection } from './mongo-connection.js'

/** Opens the connection and the forge a `once` pass uses; `close` ends them. */
export async function openOnceWorld(config: WorkerConfig, log: Logger) {
  const stop = new AbortController()
  const connection = config.mongo
    ? connectMongo(config.mongo.uri, config.mongo.db, log, stop.signal)
    : undefined
  if (!connection)
    log.warn({}, 'single-process mode: no MONGO_URI, so this process elects itself (in-memory store)')
  const local = config.forge.kind === 'sandbox' ? await startLocalSandbox() : undefined
  if (local && config.forge.kind === 'sandbox')
    log.warn(
      { url: local.sandbox.url, reason: config.forge.reason },
      'using the local sandbox forge, not GitHub',
    )
  const forge = createForge({
    config: config.forge.kind === 'github' ? config.forge.config : local!.config,
    logger: log.child({ component: 'forge' }),
    // The shared forge_cache makes a cold `once` process revalidate instead of paying for every GET.
    cache: forgeCacheSettings(config.forgeCacheMb, connection?.db, log),
  })
  const close = async () => {
    stop.abort()
    await forge.close()
    await local?.sandbox.close()
    await connection?.close().catch(() => undefined)
  }
  return { connection, forge, close }
}

/** The net's pass for one term of a `once` process: its set-up (once the connection is up), then its term. */
export async function buildPass(
  net: NetConfig,
  config: WorkerConfig,
  connection: MongoConnection | undefined,
  log: Logger,
  term: AbortSignal,
  stepDownAt: () => number,
) {
  if (connection) await connection.connected
  const resources = await net.net.setup({
    options: net.options,
    db: connection?.db,
    log,
    publicUrl: config.publicUrl,
    now: () => new Date(),
  })
  return net.net.term(resources, { options: net.options, log, signal: term, stepDownAt })
}
