/**
 * Chooses and starts the real MongoDB-wire server that the tests, benchmarks and chaos runs use.
 *
 * Order: `MONGO_URL` when set; mongodb-memory-server (a real mongod, downloaded at first use where the
 * machine has internet); otherwise FerretDB 1.24.2 built from the Go module proxy
 * (`tools/ferretdb/build.sh`) on its SQLite handler in a temp directory on a free loopback port.
 * It never pretends: when no server can be had it says so, and how to provide one.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'

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
  /** A human line: which server backs the run. */
  description: string
  /** The FerretDB child process, for chaos tests that pause or kill the server. */
  process?: ChildProcess
  stop(): Promise<void>
}

export const HOW_TO_PROVIDE_MONGO =
  'Set MONGO_URL to a MongoDB server (e.g. MONGO_URL=mongodb://127.0.0.1:27017), or install Go so that ' +
  'tools/ferretdb/build.sh can build the FerretDB test server.'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Starts (or connects to) the test server, trying each kind in order; throws with every reason when none works. */
export async function startTestMongo(
  log: (line: string) => void = (l) => console.log(l),
): Promise<TestMongoServer> {
  const reasons: string[] = []
  if (process.env.MONGO_URL) {
    const url = process.env.MONGO_URL
    return describe({ url, kind: 'external', ...(await serverIdentity(url)), stop: async () => {} })
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
    return describe(await startFerretDb(log))
  } catch (error) {
    reasons.push(`FerretDB: ${oneLine(error)}`)
  }
  throw new Error(`No MongoDB server for the tests (${reasons.join('; ')}). ${HOW_TO_PROVIDE_MONGO}`)
}

function describe(s: Omit<TestMongoServer, 'description'>): TestMongoServer {
  const label =
    s.kind === 'ferretdb'
      ? `FerretDB 1.24.2 (wire version of MongoDB ${s.version})`
      : s.isFerretDb
        ? `${s.kind} FerretDB (wire version of MongoDB ${s.version})`
        : `${s.kind} MongoDB ${s.version}`
  return { ...s, description: `${label} at ${redactUrl(s.url)}` }
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

async function startFerretDb(log: (line: string) => void): Promise<Omit<TestMongoServer, 'description'>> {
  const build = promisify(execFile)
  log('mongo: preparing FerretDB 1.24.2 (tools/ferretdb/build.sh; the first build takes a few minutes)')
  const { stdout } = await build('bash', [join(repoRoot, 'tools/ferretdb/build.sh')], { maxBuffer: 1 << 20 })
  const binary = stdout.trim().split('\n').pop()!
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-ferretdb-'))
  const child = spawn(binary, ['--listen-addr', '127.0.0.1:0', '--sqlite-dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`FerretDB did not start within 30 s: ${stderr}`)), 30_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n').find((l) => l.startsWith('mongodb://'))
      if (line) {
        clearTimeout(timer)
        resolve(line.trim())
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`FerretDB exited with ${code}: ${stderr}`))
    })
  })
  const identity = await pingUntilReady(url)
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const forced = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(forced)
    }
    await rm(dir, { recursive: true, force: true })
  }
  return { url, kind: 'ferretdb', ...identity, process: child, stop }
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
