/**
 * A Node.js child process whose stdout and stderr are read line by line as JSON, for the end-to-end
 * tests, the chaos suite and the benchmarks: the built worker, the sandbox forge or agenda in a process
 * of their own. Lines that are not JSON objects (usage texts, configuration errors) are kept as text.
 */
import { type ChildProcess, spawn } from 'node:child_process'

export interface NodeProcess<L extends object = Record<string, unknown>> {
  label: string
  child: ChildProcess
  pid: number
  /** Date.now() at spawn. */
  spawnedAt: number
  /** Parsed JSON lines (those `keep` retained). */
  lines: L[]
  /** Output lines that were not JSON objects (at most `maxText`). */
  text: string[]
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  alive(): boolean
  /** Resolves with the first line (seen or future) matching `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (line: L) => boolean, timeoutMs?: number, what?: string): Promise<L>
  /** Sends `signal` and resolves once the process is gone (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>
}

export interface SpawnOptions<L> {
  label?: string
  cwd?: string
  /** Which parsed lines to retain (all by default), so chatty long runs stay small; waiters see all. */
  keep?: (line: L) => boolean
  maxText?: number
  /** The Node binary to run (this process's own by default): the footprint bench measures two. */
  node?: string
}

/** Starts `node script ...args` with exactly `env` (plus PATH). */
export function spawnNodeProcess<L extends object = Record<string, unknown>>(
  script: string,
  args: string[],
  env: Record<string, string>,
  options: SpawnOptions<L> = {},
): NodeProcess<L> {
  const label = options.label ?? script
  const keep = options.keep ?? (() => true)
  const maxText = options.maxText ?? 10_000
  const spawnedAt = Date.now()
  const child = spawn(options.node ?? process.execPath, [script, ...args], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: L[] = []
  const text: string[] = []
  const waiters = new Set<{ predicate: (l: L) => boolean; resolve: (l: L) => void }>()
  const take = (buffer: { rest: string }) => (chunk: string) => {
    buffer.rest += chunk
    const parts = buffer.rest.split('\n')
    buffer.rest = parts.pop() ?? ''
    for (const part of parts) {
      if (!part.trim()) continue
      let line: L | undefined
      try {
        const parsed: unknown = JSON.parse(part)
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) line = parsed as L
      } catch {
        // Not JSON: a configuration error, a usage text, pretty-printed `config` output.
      }
      if (!line) {
        if (text.length < maxText) text.push(part)
        continue
      }
      for (const w of waiters) {
        if (w.predicate(line)) {
          waiters.delete(w)
          w.resolve(line)
        }
      }
      if (keep(line)) lines.push(line)
    }
  }
  child.stdout!.setEncoding('utf8').on('data', take({ rest: '' }))
  child.stderr!.setEncoding('utf8').on('data', take({ rest: '' }))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const alive = () => child.exitCode === null && child.signalCode === null
  return {
    label,
    child,
    pid: child.pid ?? -1,
    spawnedAt,
    lines,
    text,
    exited,
    alive,
    waitFor(predicate, timeoutMs = 20_000, what = 'a log line') {
      const seen = lines.find(predicate)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve }
        waiters.add(waiter)
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(
            new Error(
              `${label} (pid ${child.pid}): no ${what} within ${timeoutMs} ms; last lines:\n${lines
                .slice(-8)
                .map((l) => JSON.stringify(l).slice(0, 300))
                .join('\n')}\n${text.slice(-5).join('\n')}`,
            ),
          )
        }, timeoutMs)
        waiter.resolve = (l) => {
          clearTimeout(timer)
          resolve(l)
        }
      })
    },
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (!alive()) return
      child.kill(signal)
      const forced = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(forced)
    },
  }
}
