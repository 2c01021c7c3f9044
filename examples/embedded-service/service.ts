/**
 * An HTTP service (node:http, the same shape with Express) that embeds leasecron's `run()`: every replica
 * serves requests, and only the elected one refreshes the shared report every few seconds.
 *
 *   MONGO_URI=mongodb://localhost:27017 PORT=3000 npx tsx service.ts
 *
 * Without MONGO_URI the lease lives in this process (MemoryStore): one replica, always elected.
 * GET /report answers the latest report; GET /healthz says whether this replica holds the lease.
 */
import { createServer, type Server } from 'node:http'
import { pathToFileURL } from 'node:url'
import { MemoryStore, MongoStore, ownerId, run, type LeaseStore } from 'leasecron'
import { MongoClient } from 'mongodb'

export interface Service {
  server: Server
  /** Steps down (releases the lease), closes the server and the database connection. */
  close(): Promise<void>
}

interface Report {
  refreshedAt: string
  by: string
  refreshes: number
}

/** Starts the service on `port` (0: any free port). */
export async function startService(env: NodeJS.ProcessEnv, port: number): Promise<Service> {
  const client = env.MONGO_URI ? await new MongoClient(env.MONGO_URI).connect() : undefined
  const store: LeaseStore = client ? new MongoStore(client.db(env.MONGO_DB ?? 'service')) : new MemoryStore()
  const owner = ownerId()
  let report: Report | undefined
  let elected = false

  // The campaign runs until `stop` aborts; work runs only during a term and ends when the term's signal aborts.
  const stop = new AbortController()
  const campaign = run(
    store,
    { name: 'report-refresh', owner, ttlMs: 6_000, signal: stop.signal },
    async (term) => {
      elected = true
      let refreshes = 0
      while (!term.aborted) {
        refreshes += 1
        report = { refreshedAt: new Date().toISOString(), by: owner, refreshes }
        await new Promise((resolve) => setTimeout(resolve, 1_000))
      }
      elected = false
    },
  )

  const server = createServer((req, res) => {
    const body =
      req.url === '/healthz' ? { owner, elected } : req.url === '/report' ? (report ?? null) : undefined
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body ?? { error: 'not found' }))
  })
  await new Promise<void>((resolve) => server.listen(port, resolve))

  return {
    server,
    async close() {
      stop.abort()
      await campaign
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      )
      await client?.close()
    },
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const service = await startService(process.env, Number(process.env.PORT ?? 3000))
  const address = service.server.address()
  console.log(
    JSON.stringify({ msg: 'listening', port: typeof address === 'object' ? address?.port : address }),
  )
  process.once('SIGTERM', () => void service.close().then(() => process.exit(0)))
}
