/**
 * A real Prometheus server (Debian's `prometheus` package, /usr/bin/prometheus) as a child process for
 * end-to-end tests: it scrapes the given targets and evaluates the given rule files every second, keeps
 * its storage in a directory the caller owns, and is read through its HTTP API (`/api/v1/...`).
 *
 * Not a Prometheus client library and not a fake: the test reads what the real server decided. Its
 * process's output is kept so a failing test can show why Prometheus refused a configuration.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { freePort } from './free-port.js'

/** How a machine gets the server: Debian's package ships both `prometheus` and `promtool`. */
export const PROMETHEUS_INSTALL = 'apt-get install -y prometheus (Debian ships /usr/bin/prometheus in it)'

/** Whether a `prometheus` server binary answers `--version` on PATH. */
export function prometheusInstalled(): boolean {
  return spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0
}

export interface PrometheusOptions {
  /** A directory the caller creates and removes: the configuration and the TSDB go in it. */
  dir: string
  /** `host:port` of every target, scraped at `/metrics` as one job. */
  targets: string[]
  /** Rule files to load (absolute paths). */
  ruleFiles: string[]
  /** How long to wait for `/-/ready`; 30 s by default (a loaded machine replays its empty WAL slowly). */
  readyTimeoutMs?: number
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>`. */
  url: string
  /** What the process printed (logfmt lines), for failure messages. */
  output(): string
  /** GET `/api/v1/<path>` and return its `data`; throws on a status other than `success`. */
  api<T>(path: string): Promise<T>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>
}

/** Starts Prometheus on a free loopback port and resolves once it reports ready; throws with its output. */
export async function startPrometheusServer(options: PrometheusOptions): Promise<PrometheusServer> {
  const config = join(options.dir, 'prometheus.yml')
  writeFileSync(config, stringify(prometheusConfig(options)))
  const port = await freePort()
  const child = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(options.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const lines: string[] = []
  const keep = (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const server = prometheusHandle(`http://127.0.0.1:${port}`, child, exited, () => lines.join('\n'))
  try {
    await waitUntilReady(server.url, child, options.readyTimeoutMs ?? 30_000)
  } catch (error) {
    await server.stop(2_000)
    throw new Error(`${(error as Error).message}; its output:\n${server.output().slice(-3000)}`)
  }
  return server
}

/** One job scraping every target each second, and each rule file evaluated each second. */
function prometheusConfig(options: PrometheusOptions): object {
  return {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: options.ruleFiles,
    scrape_configs: [{ job_name: 'leasecron', static_configs: [{ targets: options.targets }] }],
  }
}

function prometheusHandle(
  url: string,
  child: ChildProcess,
  exited: Promise<void>,
  output: () => string,
): PrometheusServer {
  const alive = () => child.exitCode === null && child.signalCode === null
  return {
    url,
    output,
    async api<T>(path: string): Promise<T> {
      const response = await fetch(`${url}/api/v1/${path}`, { signal: AbortSignal.timeout(5_000) })
      const body = (await response.json()) as { status: string; data: T; error?: string }
      if (body.status !== 'success') throw new Error(`Prometheus /api/v1/${path}: ${body.error}`)
      return body.data
    },
    async stop(graceMs = 5_000) {
      if (!alive()) return
      child.kill('SIGTERM')
      const forced = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(forced)
    },
  }
}

async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`prometheus exited with ${child.exitCode} before it was ready`)
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) return
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`prometheus was not ready at ${url} within ${timeoutMs} ms`)
}
