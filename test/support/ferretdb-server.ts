/**
 * The FerretDB 1.24.2 child that a test run or a benchmark shares (the binary tools/ferretdb/build.sh
 * builds), on a free loopback port, on one of two backends: its postgresql handler over a throwaway
 * PostgreSQL cluster of its own (test/support/postgres-cluster.ts), or its SQLite handler in a temp
 * directory. It is watched: when it exits while still in use, that is said once on the run's stderr with
 * its pid, exit code, signal and its last output lines, so the tests that fail with ECONNREFUSED afterwards
 * have a reason next to them. Asked to, it then starts the server again on the same port and data (a
 * bounded number of times) and says so too: the death is never hidden, only the files after it keep a
 * server. It is not the chaos suite's server (test/chaos/ferret-server.ts), which tests kill on purpose.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { OutputTail } from './output-tail.js'
import { type PostgresCluster, startPostgresCluster } from './postgres-cluster.js'

/** FerretDB's storage: its postgresql handler over a throwaway cluster, or its SQLite handler. */
export type FerretDbBackend = 'postgresql' | 'sqlite'

export interface FerretDbOptions {
  /** Progress lines (the build). */
  log?: (line: string) => void
  /** Where a death and a restart are said: the run's stderr unless given. */
  warn?: (line: string) => void
  /** Start it again on the same port and data after a death (at most MAX_RESTARTS times). */
  restartAfterDeath?: boolean
  /** Its storage; SQLite unless given (test/support/ferretdb-backend.ts chooses for a run). */
  backend?: FerretDbBackend
  /** FerretDB's PostgreSQL pool (`pool_max_conns`) on the postgresql backend; POOL_MAX_CONNS unless given. */
  poolMaxConns?: number
}

/** Where a FerretDB keeps its data, and how that goes away. */
interface Storage {
  backend: FerretDbBackend
  /** `PostgreSQL 15.20 (a throwaway cluster)` or `SQLite`. */
  label: string
  /** The handler's flags. */
  args: string[]
  /** The directory holding the data (a death with it gone is not restarted). */
  dir: string
  cluster?: PostgresCluster
  remove(): Promise<void>
}

export interface FerretDbDeath {
  /** The backend it ran on (a death on PostgreSQL fails the run: scripts/run-tests.mjs). */
  backend: FerretDbBackend
  pid: number | undefined
  code: number | null
  signal: NodeJS.Signals | null
  /** Whether it serves again (false: not asked to, out of restarts, or the restart failed). */
  restarted: boolean
  /** A Go panic or fatal error it printed, from its first line on (empty: it printed none). */
  panic: string[]
  /** Its last output lines. */
  lastLines: string[]
}

/**
 * The first line of what a Go program prints when it crashes with exit code 2: a panic, a runtime throw
 * (`fatal error: concurrent map writes`) or a fatal signal's dump (`SIGQUIT: quit`).
 */
export const GO_CRASH = /^(panic: |fatal error: |SIG[A-Z]+: )/

export const MAX_RESTARTS = 3
const STARTUP_MS = 30_000
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Builds (once) and starts the shared FerretDB; resolves once it printed its address. */
export async function startFerretDb(options: FerretDbOptions = {}): Promise<SharedFerretDb> {
  const log = options.log ?? ((line) => console.log(line))
  log('mongo: preparing FerretDB 1.24.2 (tools/ferretdb/build.sh; the first build takes a few minutes)')
  const { stdout } = await promisify(execFile)('bash', [join(repoRoot, 'tools/ferretdb/build.sh')], {
    maxBuffer: 1 << 20,
  })
  const binary = stdout.trim().split('\n').pop()!
  const storage = await prepareStorage(options.backend ?? 'sqlite', options.poolMaxConns)
  const server = new SharedFerretDb(binary, storage, options)
  try {
    await server.launch('127.0.0.1:0')
  } catch (error) {
    await server.stop() // a server that never answered is not left running
    throw error
  }
  return server
}

async function prepareStorage(backend: FerretDbBackend, poolMaxConns?: number): Promise<Storage> {
  if (backend === 'postgresql') {
    const cluster = await startPostgresCluster()
    const url = new URL(cluster.url)
    if (poolMaxConns !== undefined) url.searchParams.set('pool_max_conns', String(poolMaxConns))
    return {
      backend,
      label: `${cluster.version} (a throwaway cluster)`,
      args: ['--handler=postgresql', '--postgresql-url', url.toString()],
      dir: cluster.dir,
      cluster,
      remove: () => cluster.stop(),
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-ferretdb-'))
  return {
    backend,
    label: 'SQLite',
    args: ['--handler=sqlite', '--sqlite-dir', dir],
    dir,
    remove: () => rm(dir, { recursive: true, force: true }),
  }
}

export class SharedFerretDb {
  url = ''
  readonly deaths: FerretDbDeath[] = []
  readonly #binary: string
  readonly #storage: Storage
  readonly #warn: (line: string) => void
  readonly #restartAfterDeath: boolean
  #child: ChildProcess | undefined
  #stopping = false
  #restarting: Promise<void> | undefined

  constructor(binary: string, storage: Storage, options: FerretDbOptions) {
    this.#binary = binary
    this.#storage = storage
    this.#warn = options.warn ?? ((line) => process.stderr.write(`${line}\n`))
    this.#restartAfterDeath = options.restartAfterDeath ?? false
    this.#storage.cluster?.process.once('close', (code, signal) => this.#clusterExited(code, signal))
  }

  get backend(): FerretDbBackend {
    return this.#storage.backend
  }

  /** What it stores its data in, for the run's description line. */
  get backendLabel(): string {
    return this.#storage.label
  }

  /** The PostgreSQL cluster under it (postgresql backend). */
  get cluster(): PostgresCluster | undefined {
    return this.#storage.cluster
  }

  /** The child serving now (a restart replaces it). */
  get process(): ChildProcess {
    return this.#child!
  }

  /** Spawns the server on `listen` and resolves with the address it printed; watches it from then on. */
  async launch(listen: string): Promise<void> {
    const tail = new OutputTail(80, 400, isRoutineWarning, GO_CRASH)
    // Its stdin is a pipe it stops on the close of: a parent killed without a word leaves no FerretDB.
    // Its own process group: a Ctrl-C stops the run, which stops it, instead of killing it mid-run (a
    // death said and restarted while the run winds down).
    const args = ['--listen-addr', listen, '--stop-on-stdin-close', ...this.#storage.args]
    const child = spawn(this.#binary, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    tail.follow(child.stdout!, 'stdout')
    tail.follow(child.stderr!, 'stderr')
    this.#child = child
    this.url = await printedUrl(child, tail)
    await answering(this.url, child)
    // 'close', not 'exit': by then its pipes are drained, so the tail holds its very last words.
    child.once('close', (code, signal) => this.#exited(child, tail, code, signal))
  }

  async stop(): Promise<void> {
    this.#stopping = true
    await this.#restarting
    const child = this.#child
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const forced = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(forced)
    }
    await this.#storage.remove()
  }

  #exited(child: ChildProcess, tail: OutputTail, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping) return
    const lines = tail.lines()
    const death: FerretDbDeath = {
      backend: this.#storage.backend,
      pid: child.pid,
      code,
      signal,
      restarted: false,
      panic: tail.pinned(),
      lastLines: lines,
    }
    this.deaths.push(death)
    const dirGone = !existsSync(this.#storage.dir)
    this.#warn(
      `mongo: the run's FerretDB (pid ${child.pid}, ${this.url}, on ${this.#storage.label}) exited while ` +
        `tests still used it: exit code ${code}, signal ${signal}; its data directory ${this.#storage.dir} ` +
        `${dirGone ? 'is GONE' : 'is still there'}. ${describeCrash(death)}Its last ${lines.length} output lines:\n` +
        lines.map((line) => `  ${line}`).join('\n'),
    )
    if (!this.#restartAfterDeath) return
    const refusal = dirGone
      ? 'its data directory is gone'
      : this.deaths.length > MAX_RESTARTS
        ? `it died ${this.deaths.length} times already`
        : undefined
    if (refusal) this.#warn(`mongo: FerretDB is not restarted: ${refusal}.`)
    else this.#restarting = this.#restart(death).finally(() => (this.#restarting = undefined))
  }

  /** The cluster under it is gone while in use: every operation fails from now on, and the run with it. */
  #clusterExited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping) return
    const cluster = this.#storage.cluster!
    const lines = cluster.lastLines().map((line) => `[postgres] ${line}`)
    this.deaths.push({
      backend: 'postgresql',
      pid: cluster.postmasterPid,
      code,
      signal,
      restarted: false,
      panic: [],
      lastLines: lines,
    })
    this.#warn(
      `mongo: the PostgreSQL cluster under the run's FerretDB (postmaster pid ${cluster.postmasterPid}, ` +
        `port ${cluster.port}) exited while tests still used it: exit code ${code}, signal ${signal}; ` +
        `it is not restarted. Its last ${lines.length} output lines:\n${lines.map((l) => `  ${l}`).join('\n')}`,
    )
  }

  async #restart(death: FerretDbDeath): Promise<void> {
    const listen = new URL(this.url).host
    const started = Date.now()
    try {
      await this.launch(listen)
      death.restarted = true
      this.#warn(
        `mongo: FerretDB restarted on ${listen} over the same data (pid ${this.#child?.pid}, ` +
          `${Date.now() - started} ms, restart ${this.deaths.length} of at most ${MAX_RESTARTS}); ` +
          'tests that used it while it was down failed for that, not for their code.',
      )
    } catch (error) {
      this.#warn(`mongo: FerretDB could not be restarted on ${listen}: ${(error as Error).message}`)
    }
  }
}

/** The panic a death printed, as lines to read before its tail; empty text when it printed none. */
export function describeCrash(death: FerretDbDeath): string {
  if (death.panic.length === 0) return ''
  return `What it printed from its crash on:\n${death.panic.map((line) => `  ${line}`).join('\n')}\n`
}

/** Resolves once the server answers a ping: it prints its address before it accepts connections. */
async function answering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`FerretDB exited (${child.exitCode ?? child.signalCode}) before it answered on ${url}`)
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000 })
    try {
      await client.db('admin').command({ ping: 1 })
      return
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`FerretDB did not answer on ${url}`, { cause: error })
      await new Promise((r) => setTimeout(r, 100))
    } finally {
      await client.close().catch(() => undefined)
    }
  }
}

/**
 * FerretDB's warning for each error it answers (`Response header: …`, `Response message: …`): a duplicate
 * key on a claim or a lease is routine here, and 80 of them would push a dying server's last words out
 * of its tail. Panics and its other warnings are kept.
 */
export function isRoutineWarning(line: string): boolean {
  return /\bmsg="Response (header|message):/.test(line)
}

/** The `mongodb://` line the server prints once it listens (tools/ferretdb/main.go). */
function printedUrl(child: ChildProcess, tail: OutputTail): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const failed = (why: string) =>
      new Error(`FerretDB ${why}; its last output: ${tail.lines().join(' | ') || '(none)'}`)
    const timer = setTimeout(() => reject(failed(`did not start within ${STARTUP_MS / 1000} s`)), STARTUP_MS)
    const onExit = (code: number | null) => {
      clearTimeout(timer)
      reject(failed(`exited with ${code}`))
    }
    child.once('exit', onExit)
    // The tail follows stdout first, so it already holds every complete line of this chunk.
    child.stdout!.on('data', function found() {
      const line = tail.lines().find((l) => l.startsWith('[stdout] mongodb://'))
      if (!line) return
      clearTimeout(timer)
      child.off('exit', onExit)
      child.stdout!.off('data', found)
      resolve(line.slice('[stdout] '.length).trim())
    })
  })
}
