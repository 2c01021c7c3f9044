/**
 * Runs the built worker (dist/) as a child process and reads its JSON log lines, for end-to-end tests
 * and the chaos suite.
 */
import { fileURLToPath } from 'node:url'
import { type NodeProcess, spawnNodeProcess } from './node-process.js'

export const MAIN = fileURLToPath(new URL('../../dist/bundle/leasecron.js', import.meta.url))

/** One pino line of the worker. */
export interface LogLine {
  level: string
  time: string
  msg: string
  owner?: string
  [field: string]: unknown
}

export interface WorkerProcess extends NodeProcess<LogLine> {
  /** The owner id the worker logged (host + random suffix), once it has. */
  owner(): string | undefined
}

/** Starts `node dist/bundle/leasecron.js ...args` (the package's bin) with exactly `env` (plus PATH). */
export function startWorkerProcess(args: string[], env: Record<string, string>): WorkerProcess {
  const worker = spawnNodeProcess<LogLine>(MAIN, args, env, { label: 'worker' })
  return { ...worker, owner: () => worker.lines.find((l) => typeof l.owner === 'string')?.owner }
}
