/**
 * The Mongo server's version as the status page names it: `MongoDB 7.0.14`, or `FerretDB 2.1.0 (MongoDB
 * 7.0.77 wire)` when the server says it is FerretDB. Reads `buildInfo`, which needs no privileges.
 */
import type { Db } from 'mongodb'

/** Resolves the server's version text; rejects when the server does not answer. */
export async function mongoServerVersion(db: Db): Promise<string> {
  const info = await db.command({ buildInfo: 1 }, { timeoutMS: 2_000 })
  const version = typeof info.version === 'string' ? info.version : 'unknown'
  const ferret = info.ferretdb as { version?: unknown } | undefined
  if (ferret && typeof ferret.version === 'string') return `FerretDB ${ferret.version} (MongoDB ${version} wire)`
  return `MongoDB ${version}`
}
