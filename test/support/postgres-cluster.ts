/**
 * A throwaway PostgreSQL cluster for the test FerretDB's postgresql handler: `initdb` into a fresh temp
 * directory, `postgres` on a free loopback port (listening on 127.0.0.1 only, trust auth for 127.0.0.1 and
 * its own unix socket in that directory only), and both gone at the end: stopped, and the directory removed.
 *
 * The cluster is started under a small `sh` lifeline holding the read end of a pipe from this process:
 * when this process ends in any way (a stop, an exception, Ctrl-C, SIGKILL), its end closes, and the
 * lifeline stops postgres (fast shutdown) and removes the directory. So no run leaves a postgres behind.
 * It runs as an unprivileged user when this process is root (initdb and postgres refuse root).
 *
 * It is not a general PostgreSQL manager: no durability (fsync off), no users, no TLS.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { findPostgresBinaries, type PostgresBinaries } from './postgres-binaries.js'
import { freePort } from './free-port.js'
import { OutputTail } from './output-tail.js'

const run = promisify(execFile)
const STARTUP_MS = 60_000

/**
 * How many PostgreSQL connections FerretDB may hold (its `pool_max_conns`; its own default is 50).
 * FerretDB holds one connection per operation in flight and per open cursor, and waits (never fails)
 * for a free one: a pool too small turns a run's bursts of worker processes into stalls, one too large
 * only costs idle backends. 40 covers the suite's busiest files (a few replicas × a few nets, each
 * with its renewals, claims and status reads) on a 2-core machine, where more than a handful of busy
 * backends only queue for the CPU; the cluster allows 60 so the pool and a few admin connections fit.
 */
export const POOL_MAX_CONNS = 40
const MAX_CONNECTIONS = 60

/** The user the cluster's files and processes belong to, when this process runs as root. */
export interface ClusterOwner {
  name: string
  uid: number
  gid: number
}

export interface PostgresCluster {
  /** For FerretDB's --postgresql-url (TCP on 127.0.0.1, the `postgres` database, the pool bound set). */
  url: string
  /** `PostgreSQL 15.20`, as `postgres --version` says it. */
  version: string
  /** The temp directory holding the data and the socket; removed by stop(). */
  dir: string
  port: number
  /** The lifeline (`sh`) whose child is the postmaster. */
  readonly process: ChildProcess
  /** The postmaster's pid (from its postmaster.pid file). */
  readonly postmasterPid: number
  /** Its last output lines (warnings and errors: it logs nothing routine). */
  lastLines(): string[]
  stop(): Promise<void>
}

/**
 * The script of the lifeline: `$1` the directory to remove, the rest the postgres command. It keeps its
 * stdin (the pipe from the parent) on fd 3, since an asynchronous list's stdin is /dev/null.
 */
const LIFELINE = [
  'dir=$1; shift',
  'exec 3<&0',
  '"$@" &',
  'pid=$!',
  // Returns on the parent's end closing (a stop or its death), or on a line; then a fast shutdown.
  '{ read -r _ <&3; kill -INT "$pid" 2>/dev/null; } &',
  'watcher=$!',
  'wait "$pid"; status=$?',
  'kill "$watcher" 2>/dev/null',
  'rm -rf "$dir"',
  'exit "$status"',
].join('\n')

/** Runs initdb and starts postgres; throws with its last output when either fails. */
export async function startPostgresCluster(
  binaries?: PostgresBinaries,
  owner?: ClusterOwner,
): Promise<PostgresCluster> {
  const bin = binaries ?? (await findPostgresBinaries())
  if (!bin) throw new Error('PostgreSQL binaries (initdb, postgres) were not found')
  const user = owner ?? (await clusterOwner())
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-pg-'))
  try {
    if (user) await chown(dir, user.uid, user.gid)
    const data = join(dir, 'data')
    await initdb(bin, data, user)
    return await startPostmaster(bin, dir, data, user)
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

/**
 * Who the cluster runs as: nobody else when this process is not root; else the `postgres` user (Debian's
 * package makes it), or `nobody`. Throws when root has neither.
 */
export async function clusterOwner(): Promise<ClusterOwner | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const passwd = await readFile('/etc/passwd', 'utf8')
  for (const name of ['postgres', 'nobody']) {
    const fields = passwd
      .split('\n')
      .find((line) => line.startsWith(`${name}:`))
      ?.split(':')
    if (fields) return { name, uid: Number(fields[2]), gid: Number(fields[3]) }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as')
}

async function initdb(bin: PostgresBinaries, data: string, owner: ClusterOwner | undefined): Promise<void> {
  const args = ['-D', data, '-U', 'ferretdb', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']
  try {
    await run(bin.initdb, args, { ...asOwner(owner), cwd: tmpdir(), maxBuffer: 1 << 20 })
  } catch (error) {
    const { stderr } = error as { stderr?: string }
    throw new Error(
      `initdb failed: ${String(stderr ?? error)
        .trim()
        .slice(-1000)}`,
      { cause: error },
    )
  }
  // Trust, but only for the cluster's own socket (in a 0700 directory) and 127.0.0.1.
  await writeFile(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n')
}

/** The postmaster's settings: loopback only, its socket in `dir`, and throwaway durability. */
function postmasterArgs(port: number, dir: string): string[] {
  // Throwaway data: no fsync, no full-page writes, no waiting for the WAL on commit.
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    max_connections: String(MAX_CONNECTIONS),
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    log_min_messages: 'warning',
  }
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])
}

async function startPostmaster(
  bin: PostgresBinaries,
  dir: string,
  data: string,
  owner: ClusterOwner | undefined,
): Promise<PostgresCluster> {
  const port = await freePort()
  const args = postmasterArgs(port, dir)
  const child = spawn('sh', ['-c', LIFELINE, 'lifeline', dir, bin.postgres, '-D', data, ...args], {
    ...asOwner(owner),
    cwd: tmpdir(),
    // Its own process group: Ctrl-C reaches this process, which stops it; the lifeline covers the rest.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const tail = new OutputTail(40, 400)
  tail.follow(child.stdout!, 'stdout')
  tail.follow(child.stderr!, 'stderr')
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const stop = async () => {
    child.stdin!.end()
    await exited
  }
  try {
    const postmasterPid = await ready(child, tail, join(data, 'postmaster.pid'))
    const { stdout } = await run(bin.postgres, ['--version'])
    return {
      url: `postgres://ferretdb@127.0.0.1:${port}/postgres?pool_max_conns=${POOL_MAX_CONNS}`,
      version: stdout.replace(/^postgres \(PostgreSQL\) (\S+).*\n?$/s, 'PostgreSQL $1'),
      dir,
      port,
      process: child,
      postmasterPid,
      lastLines: () => tail.lines(),
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Resolves with the postmaster's pid once its pid file says it is ready to accept connections (its
 * 8th line, `ready`); rejects with its output when it exits first or is not ready in time.
 */
async function ready(child: ChildProcess, tail: OutputTail, pidFile: string): Promise<number> {
  const deadline = Date.now() + STARTUP_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `postgres exited (${child.exitCode ?? child.signalCode}) before it was ready: ${said(tail)}`,
      )
    const lines = (await readFile(pidFile, 'utf8').catch(() => '')).split('\n')
    if (lines[7]?.trim() === 'ready') return Number(lines[0])
    if (Date.now() > deadline)
      throw new Error(`postgres was not ready within ${STARTUP_MS / 1000} s: ${said(tail)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function said(tail: OutputTail): string {
  return tail.lines().join(' | ') || '(no output)'
}

function asOwner(owner: ClusterOwner | undefined): { uid?: number; gid?: number } {
  return owner ? { uid: owner.uid, gid: owner.gid } : {}
}
