/**
 * The Mongo server's version as the status page names it: `MongoDB 7.0.14`, or `FerretDB 2.1.0 (MongoDB
 * 7.0.77 wire)` when the server says it is FerretDB. Reads `buildInfo`, which needs no privileges.
 */
import type { Db } from 'mongodb'
import { plainStoreError, storeCommand } from '../store-call/store-call.js'

/**
 * Resolves the server's version text; rejects (a StoreError) when the server does not answer within 2 s
 * or `signal` aborts.
 */
export async function mongoServerVersion(db: Db, signal?: AbortSignal): Promise<string> {
  const error = plainStoreError({ component: 'mongo', operation: 'buildInfo' })
  const info = await storeCommand(db, { buildInfo: 1 }, { signal, timeoutMs: 2_000, error })
  const version = typeof info.version === 'string' ? info.version : 'unknown'
  // FerretDB 1.x names itself in `ferretdbVersion`, 2.x in `ferretdb.version`.
  const ferret = info.ferretdbVersion ?? (info.ferretdb as { version?: unknown } | undefined)?.version
  if (typeof ferret === 'string') {
    // A FerretDB built without version stamps (tools/ferretdb/build.sh) says `unknown`: leave it out.
    const named = ferret === 'unknown' ? '' : ` ${ferret.replace(/^v/, '')}`
    return `FerretDB${named} (MongoDB ${version} wire)`
  }
  return `MongoDB ${version}`
}
