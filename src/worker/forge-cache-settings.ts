/**
 * LEASECRON_FORGE_CACHE_MB turned into the forge's cache settings, for the worker and `leasecron once`
 * alike. Not the cache (src/forge/forge-cache.ts) and not configuration parsing (config.ts).
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
  const shared = new MongoForgeCacheStore(db, { maxBytes })
  // Without the index eviction scans; the cache still works, so a failure is a warning, not a stop.
  shared
    .ensureIndexes()
    .catch((error: unknown) => log.warn({ err: error }, 'forge cache: index creation failed'))
  return { maxBytes, shared }
}
