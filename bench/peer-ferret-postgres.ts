/**
 * The Mongo-wire store of the thousand-schedules scenario: FerretDB 1.24.2 on a throwaway PostgreSQL
 * cluster, started the way the tests start theirs (test/support/ferretdb-server.ts, postgres-cluster.ts),
 * with one counting proxy (bench/mongo-op-counter.ts) in front of it. Operations are the commands its
 * clients sent, driver monitoring and session housekeeping left out, by `<command> <collection>`, so the
 * scenario can set each kind beside leasecron's model of it.
 *
 * Why not peer-ferret.ts: that one is FerretDB on SQLite, whose handler scans every document of a
 * collection and could not carry 1,000 leases (issue 37). What it is not: crashable — the thousand
 * scenario kills processes, never its store, so `crashAndRestart` rejects. A FerretDB that dies is not
 * restarted; its deaths are kept for the result.
 */
import { type FerretDbDeath, startFerretDb } from '../test/support/ferretdb-server.js'
import { kindOf, startMongoOpCounter } from './mongo-op-counter.js'
import type { OpCounts, PeerStore } from './peer-store.js'

export interface FerretOnPostgres extends PeerStore {
  /** The counted address, with `maxPoolSize` as the caller set it (`withPoolShare`). */
  readonly url: string
  /** Each time FerretDB exited while in use. */
  readonly deaths: readonly FerretDbDeath[]
}

/** Starts PostgreSQL, FerretDB on it, and the counting proxy; throws with the reason when one cannot. */
export async function startFerretOnPostgres(): Promise<FerretOnPostgres> {
  const server = await startFerretDb({ backend: 'postgresql', log: () => undefined })
  const counter = await startMongoOpCounter(server.url, { maxOps: 1 }).catch(async (error) => {
    await server.stop()
    throw error
  })
  const counts: OpCounts = {}
  counter.onOp((op) => {
    const kind = kindOf(op)
    if (kind === 'monitoring' || kind === 'session') return
    const key = op.collection ? `${op.command} ${op.collection}` : op.command
    counts[key] = (counts[key] ?? 0) + 1
  })
  return {
    url: counter.url,
    deaths: server.deaths,
    description: `FerretDB 1.24.2 on ${server.backendLabel}`,
    settings:
      'FerretDB defaults over a throwaway PostgreSQL cluster (test/support/postgres-cluster.ts), one counting proxy',
    crashAndRestart: () => Promise.reject(new Error('the thousand-schedules store is not crashed')),
    ops: async () => ({ ...counts }),
    async stop() {
      await counter.close()
      await server.stop()
    },
  }
}
