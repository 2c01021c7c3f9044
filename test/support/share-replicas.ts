/**
 * Real worker processes with the fair share on, over the six one-second nets of
 * test/e2e/fixtures/share-nets.mjs, on the run's Mongo and a sandbox forge; and the store-side reads the
 * fair-share e2e tests judge them by (holdings from the `leases` collection, what every replica sees).
 * What it is not: a check — each test says what the holdings must come to.
 */
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, inject } from 'vitest'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { mongoServer } from './mongo.js'
import { startWorkerProcess, type WorkerProcess } from './worker-process.js'

const NETS = fileURLToPath(new URL('../e2e/fixtures/share-nets.mjs', import.meta.url))
export const SHARE_NET_NAMES = ['share-a', 'share-b', 'share-c', 'share-d', 'share-e', 'share-f']
export const SHARE_TTL = 3000
export const SHARE_RETRY = 1000
// Generous: a loaded 2-core machine, process start-up, a step-down waits for its pass, one retry to take over.
export const CONVERGE_MS = 30_000

export interface ShareReplicas {
  /** Starts one more replica (stopped after the file's tests). */
  replica(): WorkerProcess
  /** Leases held unexpired right now, counted by owner (absent owners hold none). */
  holdings(): Promise<Map<string, number>>
  /** Waits until every lease is held and the owners' counts equal `expected` (any order); returns the ms. */
  converge(owners: string[], expected: number[], what: string): Promise<number>
  /** The replica's owner id, from its log. */
  ownerOf(w: WorkerProcess): Promise<string>
}

/** Registers the file's set-up and tear-down (a sandbox, a Mongo client, a database named `<prefix>_…`). */
export function useShareReplicas(prefix: string): ShareReplicas {
  let sandbox: SandboxForge | undefined
  let client: MongoClient | undefined
  const running: WorkerProcess[] = []
  const db = `${prefix}_${Date.now().toString(36)}`
  beforeAll(async () => {
    const buildError = inject('buildError')
    if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
    sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 7 } })
    client = new MongoClient(mongoServer().url)
    await client.connect()
  })
  afterAll(async () => {
    // Every replica stopped and gone before the drop. Killed without a wait, a replica's last renewals
    // reached FerretDB during the drop and created the database again; FerretDB 1.24 removes a dropped
    // database's file but not its WAL index (-shm), so the new database truncated the index a request still
    // in flight had mapped, and FerretDB died of SIGBUS (exit code 2) under the rest of the run.
    await Promise.all(running.map((w) => w.stop('SIGTERM', 8_000)))
    await client
      ?.db(db)
      .dropDatabase()
      .catch(() => undefined)
    await client?.close()
    await sandbox?.close()
  })
  const holdings = async () => {
    const docs = await client!
      .db(db)
      .collection<{ _id: string; owner?: string; token?: string | null; expiresAt?: Date }>('leases')
      .find({ expiresAt: { $gt: new Date() }, token: { $ne: null } })
      .toArray()
    const byOwner = new Map<string, number>()
    for (const doc of docs) byOwner.set(String(doc.owner), (byOwner.get(String(doc.owner)) ?? 0) + 1)
    return byOwner
  }
  return {
    replica: () => {
      const w = startWorkerProcess(['run', '--config', NETS], replicaEnv(db))
      running.push(w)
      return w
    },
    holdings,
    converge: (owners, expected, what) => converge(holdings, owners, expected, what),
    ownerOf: async (w) =>
      String((await w.waitFor((l) => typeof l.owner === 'string', 20_000, 'the owner id')).owner),
  }
}

function replicaEnv(db: string): Record<string, string> {
  const pacing = Object.fromEntries(
    SHARE_NET_NAMES.flatMap((name) => {
      const prefix = `LEASECRON_NET_${name.toUpperCase().replace(/-/g, '_')}_`
      return [
        [`${prefix}TTL_MS`, String(SHARE_TTL)],
        [`${prefix}RETRY_MS`, String(SHARE_RETRY)],
      ]
    }),
  )
  return {
    PORT: '0',
    LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    MONGO_URI: mongoServer().url,
    MONGO_DB: db,
    LEASECRON_FORGE: 'sandbox',
    LEASECRON_FAIR_SHARE: 'on',
    ...pacing,
  }
}

async function converge(
  holdings: () => Promise<Map<string, number>>,
  owners: string[],
  expected: number[],
  what: string,
): Promise<number> {
  const start = Date.now()
  let last = new Map<string, number>()
  while (Date.now() - start < CONVERGE_MS) {
    last = await holdings()
    const counts = owners.map((o) => last.get(o) ?? 0).sort((a, b) => b - a)
    const total = [...last.values()].reduce((a, b) => a + b, 0)
    if (total === SHARE_NET_NAMES.length && JSON.stringify(counts) === JSON.stringify(expected))
      return Date.now() - start
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(
    `${what}: holdings did not converge to ${JSON.stringify(expected)} within ${CONVERGE_MS} ms; last seen ${JSON.stringify([...last])}`,
  )
}
