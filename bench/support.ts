/**
 * What the scenarios share: child processes (built workers, the unelected runner, agenda workers, the
 * sandbox forge) with their JSON log lines parsed, machine information in the shape bench/store.ts
 * records, percentiles, a text table, timing helpers and the result writer.
 *
 * Not a scenario and not a test harness: nothing here asserts; it measures and records. Every wait is
 * bounded and every child it starts is tracked so `stopAll` can end it (by its own pid).
 */
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, release as kernelRelease, loadavg, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type NodeProcess, spawnNodeProcess } from '../test/support/node-process.js'
import { POOL_MAX_CONNS } from '../test/support/postgres-cluster.js'

/** LEASECRON_BENCH_QUICK=1: short windows and few trials, to try the suite out; results say so. */
export const QUICK = process.env.LEASECRON_BENCH_QUICK === '1'

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')
export const resultsDir = join(repoRoot, 'bench', 'results')
/** The package's bin, as installed users run it (the bundled CLI). */
export const WORKER_MAIN = join(repoRoot, 'dist', 'bundle', 'leasecron.js')
export const UNELECTED_MAIN = join(repoRoot, 'bench', 'unelected-worker.mjs')
/** One cold function instance of `leasecron/serverless` (footprint). */
export const SERVERLESS_COLD = join(repoRoot, 'bench', 'serverless-cold.mjs')
export const AGENDA_MAIN = join(repoRoot, 'bench', 'agenda-worker.mjs')
export const SANDBOX_MAIN = join(repoRoot, 'bench', 'sandbox-process.mjs')
export const NETS = {
  product: join(repoRoot, 'bench', 'nets', 'product.mjs'),
  idleTen: join(repoRoot, 'bench', 'nets', 'idle-ten.mjs'),
  oneTick: join(repoRoot, 'bench', 'nets', 'one-tick.mjs'),
}

/** What the runner passes every scenario. */
export interface BenchContext {
  mongo: { url: string; kind: string; version: string; description: string }
  command: string
  /** A fresh database name for one run. */
  database(label: string): string
}

export interface LogLine {
  msg?: string
  event?: string
  at?: number
  time?: number | string
  [field: string]: unknown
}

/** A child process whose stdout/stderr JSON lines are parsed as they arrive. */
export type Child = NodeProcess<LogLine>

const running = new Set<Child>()

/**
 * Spawns `node script ...args` with exactly `env` (plus PATH), in the repository root. `keep` filters which
 * parsed lines are retained (all by default), so long runs with chatty children stay small.
 */
export function spawnNode(
  label: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  keep: (line: LogLine) => boolean = () => true,
  node?: string,
): Child {
  const child = spawnNodeProcess<LogLine>(script, args, env, {
    label,
    cwd: repoRoot,
    keep,
    maxText: 200,
    ...(node ? { node } : {}),
  })
  running.add(child)
  void child.exited.then(() => running.delete(child))
  return child
}

/** Ends every child still running (each by its own pid), SIGTERM first. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop('SIGTERM', 5_000)))
}

/**
 * A pool of same-kind children (workers, agenda processes) for the kill-and-take-over scenarios: a stopped
 * member is removed and the scenario spawns a fresh one, so the pool's size holds across trials. `isRun`
 * says which log line marks an execution (a pass start) and carries its wall-clock `at`.
 */
export class ProcessPool {
  readonly members: Child[] = []
  #spawned = 0

  constructor(
    private readonly spawnMember: (index: number) => Child,
    private readonly isRun: (line: LogLine) => boolean,
  ) {}

  add(): Child {
    const child = this.spawnMember(this.#spawned++)
    this.members.push(child)
    return child
  }

  remove(child: Child): void {
    this.members.splice(this.members.indexOf(child), 1)
  }

  /** Executions the pool logged in [from, to), oldest first. */
  runsBetween(from: number, to: number): Array<{ child: Child; at: number }> {
    return this.members
      .flatMap((child) => child.lines.filter(this.isRun).map((l) => ({ child, at: Number(l.at) })))
      .filter((r) => r.at >= from && r.at < to)
      .sort((a, b) => a.at - b.at)
  }

  /** The member that logged the latest execution. */
  latestRunner(): Child | undefined {
    return this.runsBetween(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY).at(-1)?.child
  }

  /** The first execution any of `among` (the whole pool by default) logs after `after` (wall-clock ms). */
  nextRun(after: number, what: string, timeoutMs = 30_000, among: readonly Child[] = this.members) {
    return Promise.any(
      among.map((child) =>
        child
          .waitFor((l) => this.isRun(l) && Number(l.at) > after, timeoutMs, what)
          .then((line) => ({ child, at: Number(line.at), line })),
      ),
    )
  }

  /** Waits until every member logged a line that `started` accepts. */
  async allStarted(started: (line: LogLine) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    await Promise.all(this.members.map((child) => child.waitFor(started, timeoutMs, what)))
  }

  /** Sends `signal` to `victim`, waits for another member's next execution and the victim's exit. */
  async killAndTime(victim: Child, signal: NodeJS.Signals, timeoutMs = 120_000) {
    const sentAt = Date.now()
    victim.child.kill(signal)
    const others = this.members.filter((c) => c !== victim)
    const next = await this.nextRun(sentAt, 'an execution after the stop', timeoutMs, others)
    const { code } = await victim.exited
    const exitedMs = Date.now() - sentAt
    this.remove(victim)
    return { sentAt, next, takeoverMs: next.at - sentAt, exitedMs, exitCode: code }
  }

  stopAll(): Promise<unknown> {
    return Promise.all(this.members.map((child) => child.stop('SIGTERM', 10_000)))
  }
}

/** The sandbox forge in its own process. */
export interface SandboxProcess {
  child: Child
  url: string
  env: Record<string, string>
  resetStats(): Promise<void>
  stats(): Promise<SandboxStats>
}

export interface SandboxStats {
  total: number
  since: string
  entries: Array<{
    installation: string
    method: string
    route: string
    status: number | string
    count: number
  }>
}

export const SANDBOX_DATA = { repos: 3, pullsPerRepo: 12, issuesPerRepo: 20, seed: 1 }

/** The sandbox with `generate`'s data, or with `installations` installations of one repository each (> 0). */
export async function startSandboxProcess(
  generate = SANDBOX_DATA,
  installations = 0,
): Promise<SandboxProcess> {
  const child = spawnNode('sandbox', SANDBOX_MAIN, [], {
    BENCH_SANDBOX: JSON.stringify(generate),
    BENCH_SANDBOX_INSTALLATIONS: String(installations),
  })
  const info = await child.waitFor((l) => typeof l.url === 'string', 30_000, 'the sandbox url')
  const url = String(info.url)
  // The key stays in this process's memory only; drop the line that carried it.
  child.lines.length = 0
  const env = {
    GITHUB_APP_ID: String(info.appId),
    GITHUB_INSTALLATION_ID: String(info.installationId),
    GITHUB_APP_PRIVATE_KEY: String(info.privateKey),
    GITHUB_API_URL: url,
  }
  return {
    child,
    url,
    env,
    async resetStats() {
      const answer = await fetch(`${url}/_sandbox/stats/reset`, { method: 'POST' })
      if (!answer.ok) throw new Error(`sandbox stats reset: HTTP ${answer.status}`)
    },
    async stats() {
      const answer = await fetch(`${url}/_sandbox/stats`)
      if (!answer.ok) throw new Error(`sandbox stats: HTTP ${answer.status}`)
      return (await answer.json()) as SandboxStats
    },
  }
}

/** Environment every leasecron worker child gets. */
export function workerEnv(extra: Record<string, string>): Record<string, string> {
  return { PORT: '0', LOG_LEVEL: 'info', LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000', ...extra }
}

/**
 * `url` with `maxPoolSize` set to this client's share of FerretDB's PostgreSQL pool (POOL_MAX_CONNS) among
 * `clients` (`poolShare`). FerretDB 1.24 on PostgreSQL holds a pool connection for an update's read and
 * takes a second for its write: once every connection holds a read, each update waits for a second one
 * for good (bench stand-in-pool: over a pool of 4, 5 to 8 updates at once stalled it in up to 3 trials of
 * 5, 1 to 4 never). So all clients together must hold fewer connections than the pool.
 */
export function withPoolShare(url: string, clients: number): string {
  const parsed = new URL(url)
  parsed.searchParams.set('maxPoolSize', String(poolShare(clients)))
  return parsed.toString()
}

/**
 * One client's share of FerretDB's pool among `clients`, one share kept back for the bench's own reads,
 * with the shares' sum below the pool (above, FerretDB can stall: withPoolShare). Throws when even one
 * connection each would reach the pool.
 */
export function poolShare(clients: number): number {
  const share = Math.floor((POOL_MAX_CONNS - 1) / (clients + 1))
  if (share < 1) {
    throw new Error(
      `bench: ${clients} clients and the bench's own reads cannot share FerretDB's pool of ${POOL_MAX_CONNS} ` +
        'connections below its size (FerretDB can stall when every connection carries an update)',
    )
  }
  return share
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Sleeps until the wall clock's millisecond-of-second reaches `ms` (e.g. 500: half past a second). */
export async function alignTo(ms: number, period = 1000): Promise<void> {
  const now = Date.now()
  await sleep((((ms - now) % period) + period) % period)
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!
}

export function sig(value: number, digits = 4): number {
  return Number.isFinite(value) ? Number(value.toPrecision(digits)) : value
}

export interface Distribution {
  n: number
  minMs: number
  medianMs: number
  p95Ms: number
  maxMs: number
  meanMs: number
}

export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    n: sorted.length,
    minMs: sorted[0] ?? Number.NaN,
    medianMs: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    meanMs: sig(sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length)),
  }
}

/** A text table: first row headers, the first `leftColumns` columns left-aligned, the rest right-aligned. */
export function table(rows: string[][], leftColumns = 1): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)))
  const lines = rows.map((r) =>
    r.map((cell, c) => (c < leftColumns ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
  )
  return [lines[0], widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1)].join('\n')
}

export function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

export function machine(mongo: BenchContext['mongo']) {
  const cpuList = cpus()
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    availableParallelism: availableParallelism(),
    memoryGiB: sig(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch} ${kernelRelease()}`,
    loadAverage: loadavg().map((v) => sig(v)),
    node: process.version,
    server: { kind: mongo.kind, version: mongo.version, description: mongo.description },
  }
}

/** Writes `bench/results/<scenario>.json` with the common envelope and returns its path. */
export async function writeResult(
  scenario: string,
  context: BenchContext,
  startedAt: number,
  body: { inputs: unknown; [key: string]: unknown },
): Promise<string> {
  const path = join(resultsDir, `${scenario}.json`)
  const result = {
    benchmark: `leasecron ${scenario}`,
    generatedAt: new Date().toISOString(),
    command: context.command,
    commit: gitCommit(),
    durationS: sig((Date.now() - startedAt) / 1000),
    machine: machine(context.mongo),
    ...(QUICK ? { quick: 'LEASECRON_BENCH_QUICK=1: shortened windows and trials, not a real run' } : {}),
    ...body,
  }
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, `${JSON.stringify(result, null, 2)}\n`)
  return path
}

/** CPU ticks (utime + stime) and RSS of a live process, from /proc/<pid>/stat and /proc/<pid>/status. */
export async function procSample(pid: number): Promise<{ ticks: number; rssKiB: number } | undefined> {
  const { readFile } = await import('node:fs/promises')
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const rss = /VmRSS:\s+(\d+)\s+kB/.exec(status)
    return { ticks, rssKiB: rss ? Number(rss[1]) : Number.NaN }
  } catch {
    return undefined
  }
}

/** Clock ticks per second for /proc stat fields (`getconf CLK_TCK`, 100 on Linux almost always). */
export function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
}
