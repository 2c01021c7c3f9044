/**
 * LEASECRON_FORGE_CACHE_MB turned into the forge's cache settings, for the worker and `leasecron once`
 * alike. Not the cache (src/forge/cache/forge-cache.ts) and not configuration parsing (src/config/).
 */
import type { ForgeCacheSettings } from '../forge/client/github-app.js'
import { MongoForgeCacheStore } from '../forge/cache/mongo-forge-cache-store.js'
import type { MongoConnection } from './mongo-connection.js'
import type { Logger } from '../logger.js'

/**
 * The forge cache for LEASECRON_FORGE_CACHE_MB: off at 0; else a memory tier of that size and, with
 * MONGO_URI, the shared `forge_cache` collection bounded the same way (a successor starts warm). Its index
 * is asked for once the connection is up and until `signal` (the runtime closing) aborts: a call made
 * before then fails only with "Topology is closed" once the client closes, beside the real cause.
 */
export function forgeCacheSettings(
  megabytes: number,
  mongo: Pick<MongoConnection, 'db' | 'connected'> | undefined,
  log: Logger,
  signal: AbortSignal,
): ForgeCacheSettings {
  if (megabytes === 0) return { enabled: false }
  const maxBytes = megabytes * 1024 * 1024
  if (mongo === undefined) return { maxBytes }
  const indexFailed = (error: unknown) => {
    // Closing is not a cache failure: the runtime's own cause (an unreachable Mongo, a stop) is told.
    if (signal.aborted) return
    log.warn(
      { component: 'forge', operation: 'cache ensureIndexes', err: error },
      'forge cache: index creation failed; tried again at the next write that succeeds',
    )
  }
  const shared = new MongoForgeCacheStore(mongo.db, {
    maxBytes,
    // Deleted as it is dropped, so each bad document is told once; never its body.
    onDrop: ({ key, reason }) =>
      log.warn(
        { component: 'forge', event: 'forge_cache_entry_dropped', key, reason },
        `forge cache: dropped a stored entry as a miss (${reason})`,
      ),
    onIndexError: indexFailed,
  })
  // Without the index eviction sorts the collection; the cache still works, so a failure is a warning.
  // `connected` never rejects, and stays pending while Mongo does not answer.
  void mongo.connected.then(() => shared.ensureIndexes({ signal })).catch(indexFailed)
  return { maxBytes, shared }
}
