/**
 * LEASECRON_FORGE_CACHE_MB turned into the forge's cache settings, for the worker and `leasecron once`
 * alike. Not the cache (src/forge/forge-cache.ts) and not configuration parsing (src/config/).
 */
import type { Db } from 'mongodb'
import type { ForgeCacheSettings } from '../forge/github-app.js'
import { MongoForgeCacheStore } from '../forge/mongo-forge-cache-store.js'

/**
 * The forge cache for LEASECRON_FORGE_CACHE_MB: off at 0; else a memory tier of that size and, with
 * MONGO_URI, the shared `forge_cache` collection bounded the same way (a successor starts warm).
 */
export function forgeCacheSettings(
  megabytes: number,
  db: Db | undefined,
  log: { warn(fields: Record<string, unknown>, message: string): void },
): ForgeCacheSettings {
  if (megabytes === 0) return { enabled: false }
  const maxBytes = megabytes * 1024 * 1024
  if (db === undefined) return { maxBytes }
  const indexFailed = (error: unknown) =>
    log.warn(
      { component: 'forge', operation: 'cache ensureIndexes', err: error },
      'forge cache: index creation failed; tried again at the next write that succeeds',
    )
  const shared = new MongoForgeCacheStore(db, {
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
  shared.ensureIndexes().catch(indexFailed)
  return { maxBytes, shared }
}
