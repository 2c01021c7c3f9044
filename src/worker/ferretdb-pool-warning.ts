/**
 * The warning a worker logs once connected when its server is FerretDB and this replica may open as many
 * connections as FerretDB's PostgreSQL backend has by default (`pool_max_conns`, 50), or more. FerretDB 1.24
 * over PostgreSQL reads an update's document through one pool connection and, that read still open, takes a
 * second for the write: when every pool connection holds such a read, every update waits for a second one
 * and nothing answers until the clients' sockets close — every call waits out its socket timeout and every
 * term is lost (bench stand-in-pool, over a pool of 4: 5 to 8 updates at once stalled it in up to 3 trials of 5,
 * 1 to 4 never, and a stalled one did not answer within 5 s of their client closing; bench stand-in-load:
 * 200 renewals at once through the driver's default pool of 100 over 40 all timed out).
 *
 * What it is not: a limit. The driver's pool stays what MONGO_URI says (`maxPoolSize`); MongoDB itself
 * needs no such care, and a FerretDB pool sized above 50 is the operator's to know. It does not count
 * the lease lane's two connections (mongo-connection.ts): docs/semantics.md's advice leaves room for them.
 */
import type { MongoClient } from 'mongodb'
import { mongoServerVersion } from '../status/server-version.js'

/** FerretDB's own default `pool_max_conns` for its PostgreSQL backend. */
export const FERRETDB_DEFAULT_POOL = 50

/**
 * The warning's text when `client`'s server is FerretDB and its `maxPoolSize` is FERRETDB_DEFAULT_POOL or
 * more (or 0, unlimited); undefined otherwise. Rejects (a StoreError) when the server does not answer
 * `buildInfo` within 2 s or `signal` aborts: the caller says nothing then, as it knows nothing.
 */
export async function ferretDbPoolWarning(
  client: MongoClient,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const pool = client.options.maxPoolSize
  if (pool > 0 && pool < FERRETDB_DEFAULT_POOL) return undefined
  const server = await mongoServerVersion(client.db('admin'), signal)
  if (!server.startsWith('FerretDB')) return undefined
  const shown = pool === 0 ? 'unlimited' : String(pool)
  return (
    `the store is ${server} and this replica may open ${shown} connections (the driver's maxPoolSize), as many ` +
    `as FerretDB's default PostgreSQL pool of ${FERRETDB_DEFAULT_POOL} or more: FerretDB holds a connection for ` +
    'an update while it waits for a second, so when as many updates reach it at once as its pool holds, it ' +
    'stops answering until the calls time out and every term is lost. Set maxPoolSize in MONGO_URI ' +
    '(e.g. ?maxPoolSize=10) so that all replicas together stay below its pool_max_conns'
  )
}
