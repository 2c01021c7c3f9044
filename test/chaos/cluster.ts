/**
 * A chaos cluster: built worker processes running the chaos net, each behind its own TCP proxy in front of
 * the suite's Mongo, sharing one sandbox forge. It records the faults it injects (on the same monotonic
 * scale as the workers' traces) and hands everything to the checker.
 */
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { SandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'
import type { Fault, WorkerTrace } from './checker.js'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js'

export const NETS = fileURLToPath(new URL('./fixtures/chaos-nets.mjs', import.meta.url))
export const TTL = 3000
export const RETRY = 1000
/** The term steps down this long after its last proven renewal was sent. */
export const HOLD = TTL - TTL / 6
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1'

/** CLOCK_MONOTONIC in ms: the scale of every trace line (`mono`). */
export const mono = () => Number(process.hrtime.bigint()) / 1e6
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** The store scenarios' allowance for a round trip and a timer on a loaded machine. */
export const SLACK = 1500
/** After a store outage heals: the driver reconnects (its pool was cleared), then a campaign retry. */
export const RECOVERY_BOUND = TTL + 1.2 * RETRY + 2 * SLACK
/** Each worker's owner id, or its own id where it has none yet. */
export const owners = (ws: ChaosWorker[]) => ws.map((w) => w.owner() ?? w.id)

export interface ChaosWorker {
  /** w1, w2, … in start order. */
  id: string
  proc: WorkerProcess
  proxy: TcpProxy
  /** The wall-clock offset faketime gives it, in ms (0: none). */
  skewMs: number
  /** Set when the suite stopped or killed it on purpose. */
  deliberateExit?: { signal: NodeJS.Signals; at: number }
  owner(): string | undefined
}

export interface Cluster {
  workers: ChaosWorker[]
  faults: Fault[]
  /** The scenario's own database on the suite's Mongo (its ledger is read after the scenario). */
  db: string
  /** Starts a worker; `env` adds variables (e.g. the chaos net's LEASECRON_NET_CHAOS_TICK_CATCH_UP). */
  start(options?: { skewMs?: number; env?: Record<string, string> }): Promise<ChaosWorker>
  /** The worker whose latest term is open (term-start without term-end), if any. */
  holder(): ChaosWorker | undefined
  /** The number (its process's count) of the worker's open term, as its lines read so far show. */
  openTerm(worker: ChaosWorker): number | undefined
  /** Waits for a worker (not in `exclude`) to start a term after `after` and run a pass in it. */
  waitForHolder(options?: {
    after?: number
    exclude?: ChaosWorker[]
    timeoutMs?: number
  }): Promise<ChaosWorker>
  /** Sends `signal` to a worker, recording it as deliberate (SIGKILL/SIGTERM) or as a stall (SIGSTOP). */
  signal(worker: ChaosWorker, signal: NodeJS.Signals): void
  /** Records a fault window. */
  fault(fault: Fault): Fault
  /** SIGTERMs every live worker, waits for them, closes the proxies; returns the traces. */
  stop(): Promise<WorkerTrace[]>
}

export function createCluster(options: {
  mongo: { host: string; port: number }
  sandbox: SandboxForge
  label: string
}): Cluster {
  const db = `chaos_${options.label.replace(/[^A-Za-z0-9]/g, '_').slice(0, 30)}_${randomBytes(3).toString('hex')}`
  const workers: ChaosWorker[] = []
  const faults: Fault[] = []

  const openTerm = (w: ChaosWorker) => {
    if (w.proc.child.exitCode !== null || w.proc.child.signalCode !== null || w.deliberateExit)
      return undefined
    let open: number | undefined
    for (const l of w.proc.lines) {
      if (l.event === 'term-start') open = Number(l.term)
      else if (l.event === 'term-end') open = undefined
    }
    return open
  }
  const isOpen = (w: ChaosWorker) => openTerm(w) !== undefined

  const cluster: Cluster = {
    workers,
    faults,
    db,
    async start({ skewMs = 0, env: extra = {} } = {}) {
      const proxy = await startTcpProxy(options.mongo)
      const env: Record<string, string> = {
        PORT: '0',
        MONGO_URI: `mongodb://127.0.0.1:${proxy.port}/`,
        MONGO_DB: db,
        LEASECRON_NET_CHAOS_TICK_TTL_MS: String(TTL),
        LEASECRON_NET_CHAOS_TICK_RETRY_MS: String(RETRY),
        LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
        GITHUB_APP_ID: String(options.sandbox.appId),
        GITHUB_INSTALLATION_ID: String(options.sandbox.installationId),
        GITHUB_APP_PRIVATE_KEY: options.sandbox.privateKey,
        GITHUB_API_URL: options.sandbox.url,
        ...extra,
      }
      if (skewMs !== 0) {
        // Only the wall clock moves: the checker's common timeline is CLOCK_MONOTONIC.
        env.LD_PRELOAD = LIBFAKETIME
        env.FAKETIME = `${skewMs >= 0 ? '+' : '-'}${(Math.abs(skewMs) / 1000).toFixed(3)}`
        env.FAKETIME_DONT_FAKE_MONOTONIC = '1'
      }
      const proc = startWorkerProcess(['run', '--config', NETS], env)
      const worker: ChaosWorker = {
        id: `w${workers.length + 1}`,
        proc,
        proxy,
        skewMs,
        owner: () => proc.owner(),
      }
      workers.push(worker)
      await proc.waitFor((l) => l.msg === 'campaigning', 30_000, `${worker.id} campaigning`)
      return worker
    },
    holder: () => workers.find(isOpen),
    openTerm,
    async waitForHolder({ after = 0, exclude = [], timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        for (const w of workers) {
          if (exclude.includes(w) || !isOpen(w)) continue
          const start = [...w.proc.lines].reverse().find((l) => l.event === 'term-start')
          if (!start || Number(start.mono) < after) continue
          if (w.proc.lines.some((l) => l.event === 'pass-start' && l.term === start.term)) return w
        }
        if (Date.now() > deadline) {
          throw new Error(
            `no worker was elected and ran a pass within ${timeoutMs} ms: the net went unserved. Last lines:\n${workers
              .flatMap((w) => w.proc.lines.slice(-3).map((l) => `${w.id} ${JSON.stringify(l)}`))
              .join('\n')}`,
          )
        }
        await sleep(20)
      }
    },
    signal(worker, signal) {
      if (signal === 'SIGKILL' || signal === 'SIGTERM') worker.deliberateExit = { signal, at: mono() }
      worker.proc.child.kill(signal)
    },
    fault(fault) {
      faults.push(fault)
      return fault
    },
    async stop() {
      const end = mono()
      await Promise.all(
        workers.map(async (w) => {
          if (w.proc.child.exitCode === null && w.proc.child.signalCode === null) {
            w.proc.child.kill('SIGCONT')
            w.deliberateExit ??= { signal: 'SIGTERM', at: end }
            w.proc.child.kill('SIGTERM')
            const timer = setTimeout(() => w.proc.child.kill('SIGKILL'), 15_000)
            await w.proc.exited
            clearTimeout(timer)
          }
          await w.proxy.close()
        }),
      )
      return Promise.all(
        workers.map(async (w) => {
          const exit = await w.proc.exited
          return {
            id: w.id,
            owner: w.owner() ?? w.id,
            skewMs: w.skewMs,
            lines: w.proc.lines,
            text: w.proc.text,
            exit,
            deliberateExit: w.deliberateExit,
          }
        }),
      )
    },
  }
  return cluster
}
