/**
 * Chooses and starts the real MongoDB-wire server that the tests, benchmarks and chaos runs use.
 *
 * Order: `MONGO_URL` when set; mongodb-memory-server (a real mongod, downloaded at first use where the
 * machine has internet); otherwise FerretDB 1.24.2 built from the Go module proxy
 * (`tools/ferretdb/build.sh`) on a free loopback port, over a throwaway PostgreSQL cluster where this
 * machine has PostgreSQL's binaries, else on SQLite in a temp directory (test/support/ferretdb-backend.ts).
 * It never pretends: when no server can be had it says so, and how to provide one.
 */
import type { ChildProcess } from 'node:child_process'
import { MongoClient } from 'mongodb'
import { startFerretDbOnBackend } from './ferretdb-backend.js'
import type { FerretDbBackend, FerretDbDeath, FerretDbOptions } from './ferretdb-server.js'

export type MongoServerKind = 'external' | 'mongodb-memory-server' | 'ferretdb'

export interface TestMongoServer {
  url: string
  kind: MongoServerKind
  /** The server's own `buildInfo.version` (FerretDB reports the MongoDB version it emulates). */
  version: string
  /**
   * The server said it is FerretDB (its `buildInfo` carries `ferretdbVersion` in 1.x, `ferretdb` in 2.x),
   * whoever started it: a `MONGO_URL` pointing at FerretDB gets FerretDB's skips too.
   */
  isFerretDb: boolean
  /** The storage of the FerretDB the harness started (none for another kind). */
  backend?: FerretDbBackend
  /** That storage in words, e.g. `PostgreSQL 15.20 (a throwaway cluster)`. */
  backendLabel?: string
  /** A human line: which server (and, for the harness's FerretDB, which backend) backs the run. */
  description: string
  /** The FerretDB child serving now (a restart after a death replaces it). */
  readonly process?: ChildProcess
  /** Each time the FerretDB the harness started exited while in use (said on stderr when it happened). */
  readonly deaths: readonly FerretDbDeath[]
  stop(): Promise<void>
}

export const HOW_TO_PROVIDE_MONGO =
  'Set MONGO_URL to a MongoDB server (e.g. MONGO_URL=mongodb://127.0.0.1:27017), or install Go so that ' +
  'tools/ferretdb/build.sh can build the FerretDB test server.'

/**
 * Starts (or connects to) the test server, trying each kind in order; throws with every reason when none works.
 * `warn` and `restartAfterDeath` apply to the FerretDB it starts (test/support/ferretdb-server.ts).
 */
export async function startTestMongo(options: FerretDbOptions = {}): Promise<TestMongoServer> {
  const log = options.log ?? ((l) => console.log(l))
  const reasons: string[] = []
  if (process.env.MONGO_URL) {
    const url = process.env.MONGO_URL
    const identity = await serverIdentity(url)
    return describe({ url, kind: 'external', ...identity, deaths: [], stop: async () => {} })
  }
  if (process.env.LEASECRON_TEST_SKIP_MEMORY_SERVER !== '1') {
    try {
      return describe(await startMemoryServer())
    } catch (error) {
      reasons.push(`mongodb-memory-server: ${oneLine(error)}`)
      log(`mongo: mongodb-memory-server unavailable (${oneLine(error)}); falling back to FerretDB`)
    }
  }
  try {
    return describe(await startOwnFerretDb({ ...options, log }))
  } catch (error) {
    reasons.push(`FerretDB: ${oneLine(error)}`)
  }
  throw new Error(`No MongoDB server for the tests (${reasons.join('; ')}). ${HOW_TO_PROVIDE_MONGO}`)
}

/** The FerretDB this harness runs, with its identity; `process` stays live across restarts. */
async function startOwnFerretDb(options: FerretDbOptions): Promise<Omit<TestMongoServer, 'description'>> {
  const ferret = await startFerretDbOnBackend(options)
  try {
    const identity = await pingUntilReady(ferret.url)
    return {
      ...identity,
      url: ferret.url,
      kind: 'ferretdb',
      backend: ferret.backend,
      backendLabel: ferret.backendLabel,
      get process() {
        return ferret.process
      },
      deaths: ferret.deaths,
      stop: () => ferret.stop(),
    }
  } catch (error) {
    await ferret.stop()
    throw error
  }
}

function describe(s: Omit<TestMongoServer, 'description'>): TestMongoServer {
  const label =
    s.kind === 'ferretdb'
      ? `FerretDB 1.24.2 on ${s.backendLabel} (wire version of MongoDB ${s.version})`
      : s.isFerretDb
        ? `${s.kind} FerretDB (wire version of MongoDB ${s.version})`
        : `${s.kind} MongoDB ${s.version}`
  // Assigned, not spread: a spread would freeze `process` at the child of the first start.
  return Object.assign(s, { description: `${label} at ${redactUrl(s.url)}` })
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@')
}

/** The error's message on one line (a download error puts its cause on the next line). */
function oneLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error)
    .replace(/\s*\n\s*/g, ' ')
    .slice(0, 200)
}

/** What the server says it is: `buildInfo` (no privileges needed) names its version and, for FerretDB, itself. */
async function serverIdentity(url: string): Promise<{ version: string; isFerretDb: boolean }> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 })
  try {
    await client.connect()
    const info = await client.db('admin').command({ buildInfo: 1 })
    return { version: String(info.version), isFerretDb: 'ferretdbVersion' in info || 'ferretdb' in info }
  } finally {
    await client.close()
  }
}

async function startMemoryServer(): Promise<Omit<TestMongoServer, 'description'>> {
  const { MongoBinary, MongoMemoryServer } = await import('mongodb-memory-server-core')
  let timer: NodeJS.Timeout | undefined
  // The binary first: create() prints a 20-line stack of its own when the download fails, where
  // getPath() only throws, and the caller reports it in one line.
  const created = MongoBinary.getPath().then(() =>
    MongoMemoryServer.create({ instance: { ip: '127.0.0.1' } }),
  )
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('gave up after 120 s')), 120_000)
  })
  try {
    const server = await Promise.race([created, timeout])
    const url = server.getUri()
    return {
      url,
      kind: 'mongodb-memory-server',
      ...(await serverIdentity(url)),
      deaths: [],
      stop: async () => void (await server.stop()),
    }
  } finally {
    clearTimeout(timer)
    // A late success after the timeout must not leave a mongod behind.
    created.then(
      (s) => (timer ? undefined : s.stop()),
      () => undefined,
    )
  }
}

async function pingUntilReady(url: string): Promise<{ version: string; isFerretDb: boolean }> {
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      return await serverIdentity(url)
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}
