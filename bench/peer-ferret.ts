/**
 * The Mongo-wire store of the peers scenario: FerretDB 1.24.2 on SQLite (tools/ferretdb, started through
 * the chaos suite's launcher) — the only Mongo-wire server this machine has — with one counting proxy
 * (bench/mongo-op-counter.ts) per peer in front of it, so each peer's commands are counted apart. A crash
 * is SIGKILL; the restart reuses the port and the SQLite directory, and the proxies stay up. Operations
 * are commands other than driver monitoring and session housekeeping, by peer label.
 */
import { startChaosMongo } from '../test/chaos/ferret-server.js'
import { kindOf, type MongoOpCounter, startMongoOpCounter } from './mongo-op-counter.js'
import type { OpCounts, PeerStore } from './peer-store.js'

/** Starts FerretDB and a proxy per label; `url(label)` is the address that label's processes use. */
export async function startFerret(labels: string[]): Promise<PeerStore & { url(label: string): string }> {
  const server = await startChaosMongo()
  const counters = new Map<string, MongoOpCounter>()
  const totals = new Map<string, number>()
  for (const label of labels) {
    const counter = await startMongoOpCounter(server.url, { maxOps: 1 })
    totals.set(label, 0)
    counter.onOp((op) => {
      const kind = kindOf(op)
      if (kind !== 'monitoring' && kind !== 'session') totals.set(label, totals.get(label)! + 1)
    })
    counters.set(label, counter)
  }
  return {
    url: (label) => counters.get(label)!.url,
    description: 'FerretDB 1.24.2 on SQLite (tools/ferretdb)',
    settings: 'FerretDB defaults, SQLite backend in a temporary directory; one counting proxy per peer',
    async crashAndRestart(downMs) {
      await server.kill()
      await new Promise((r) => setTimeout(r, downMs))
      await server.restart()
    },
    ops: async () => Object.fromEntries(totals) as OpCounts,
    async stop() {
      for (const counter of counters.values()) await counter.close()
      await server.stop()
    },
  }
}
