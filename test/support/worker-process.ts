/**
 * Runs the built worker (dist/) as a child process and reads its JSON log lines, for end-to-end tests,
 * benchmarks and the chaos suite.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const MAIN = fileURLToPath(new URL('../../dist/src/worker/main.js', import.meta.url))

export interface LogLine {
  level: string
  time: string
  msg: string
  owner?: string
  [field: string]: unknown
}

export interface WorkerProcess {
  child: ChildProcess
  lines: LogLine[]
  /** Non-JSON output (stderr, config errors). */
  text: string[]
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Resolves with the first line (already seen or future) matching `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (line: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>
  owner(): string | undefined
}

/** Starts `node dist/src/worker/main.js ...args` with exactly `env` (plus PATH). */
export function startWorkerProcess(args: string[], env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: LogLine[] = []
  const text: string[] = []
  const waiters = new Set<{ predicate: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>()
  const take = (chunk: string, buffer: { rest: string }) => {
    buffer.rest += chunk
    const parts = buffer.rest.split('\n')
    buffer.rest = parts.pop() ?? ''
    for (const part of parts) {
      if (!part.trim()) continue
      let line: LogLine | undefined
      try {
        const parsed: unknown = JSON.parse(part)
        if (parsed && typeof parsed === 'object' && typeof (parsed as LogLine).msg === 'string')
          line = parsed as LogLine
      } catch {
        // Not JSON: a configuration error, a usage text, pretty-printed `config` output.
      }
      if (!line) {
        text.push(part)
        continue
      }
      lines.push(line)
      for (const w of waiters) {
        if (w.predicate(line)) {
          waiters.delete(w)
          w.resolve(line)
        }
      }
    }
  }
  const out = { rest: '' }
  const err = { rest: '' }
  child.stdout!.setEncoding('utf8').on('data', (c: string) => take(c, out))
  child.stderr!.setEncoding('utf8').on('data', (c: string) => take(c, err))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return {
    child,
    lines,
    text,
    exited,
    owner: () => lines.find((l) => typeof l.owner === 'string')?.owner,
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
              `worker ${child.pid}: no ${what} within ${timeoutMs} ms; last lines:\n${lines
                .slice(-8)
                .map((l) => JSON.stringify(l))
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
  }
}
