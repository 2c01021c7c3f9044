/**
 * The warning a worker logs once connected when its server is FerretDB and this replica may open more
 * connections than FerretDB's PostgreSQL backend has by default (`pool_max_conns`, 50). FerretDB 1.24 over
 * PostgreSQL stops answering when more operations reach it at once than its pool holds — every call waits
 * out its socket timeout and every term is lost (bench stand-in-load: 200 renewals at once through the
 * driver's default pool of 100 over a pool of 40 all timed out; through 20 or 40 they took under 0.5 s).
 *
 * What it is not: a limit. The driver's pool stays what MONGO_URI says (`maxPoolSize`); MongoDB itself
 * needs no such care, and a FerretDB pool sized above 50 is the operator's to know.
 */
import type { MongoClient } from 'mongodb'
import { mongoServerVersion } from '../status/server-version.js'

/** FerretDB's own default `pool_max_conns` for its PostgreSQL backend. */
export const FERRETDB_DEFAULT_POOL = 50

/**
 * The warning's text when `client`'s server is FerretDB and its `maxPoolSize` is above FERRETDB_DEFAULT_POOL
 * (or 0, unlimited); undefined otherwise. Rejects (a StoreError) when the server does not answer
 * `buildInfo` within 2 s or `signal` aborts: the caller says nothing then, as it knows nothing.
 */
export async function ferretDbPoolWarning(
  client: MongoClient,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const pool = client.options.maxPoolSize
  if (pool > 0 && pool <= FERRETDB_DEFAULT_POOL) return undefined
  const server = await mongoServerVersion(client.db('admin'), signal)
  if (!server.startsWith('FerretDB')) return undefined
  const shown = pool === 0 ? 'unlimited' : String(pool)
  return (
    `the store is ${server} and this replica may open ${shown} connections (the driver's maxPoolSize), more ` +
    `than FerretDB's default PostgreSQL pool of ${FERRETDB_DEFAULT_POOL}: when more operations reach FerretDB ` +
    'at once than its pool holds, it stops answering until the calls time out and every term is lost. Set ' +
    'maxPoolSize in MONGO_URI (e.g. ?maxPoolSize=10) so that all replicas together stay within its pool_max_conns'
  )
}
