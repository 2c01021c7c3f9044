/**
 * When a long-running command (`leasecron run`, `leasecron sandbox`) should stop: SIGINT, SIGTERM or
 * SIGHUP, or the process that started it exiting. Not what stopping does (worker/worker.ts drains and
 * releases; the sandbox removes its files): only when.
 *
 * Why the parent too: `npx leasecron … &` (npm exec) runs the command through `sh -c`, so it is npm's
 * grandchild. npm forwards SIGINT and SIGTERM to that shell only, measured with npm 11 and dash: on
 * SIGTERM the shell dies without passing it on, and the command, orphaned, kept running (the worker
 * holding its leases, the sandbox with its key file and env file on disk). So it can also stop when its
 * parent changes (polled: Linux and macOS have no portable "parent died" signal for Node). On SIGINT the
 * shell waits for its child and npm waits for the shell, so nothing changes that the command could see: a
 * SIGINT must reach the command itself — Ctrl-C in the foreground and `kill -INT %1` under job control
 * signal the whole process group, and a signal to the command's own pid always works.
 */
import { type Clock, systemClock } from '../lease/clock.js'
import { waitFor } from '../lease/wait.js'

/** How often the parent is checked: a second is well inside anything a person or a script waits for. */
export const PARENT_POLL_MS = 1_000

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

export interface UntilStoppedOptions {
  /** Also stop when the parent exits (default true). */
  followParent?: boolean
  clock?: Clock
  pollMs?: number
}

/**
 * Resolves, once, with why it stopped: the signal's name, or `parent exited` when the process that
 * started this one is gone (its parent pid changed) and `followParent` is on. Its signal handlers are in
 * place when it returns (so a signal that arrives while the caller starts up is not lost) and removed
 * before it resolves.
 */
export async function untilStopped(options: UntilStoppedOptions = {}): Promise<string> {
  const { followParent = true, clock = systemClock, pollMs = PARENT_POLL_MS } = options
  const parent = process.ppid
  const stopped = new AbortController()
  let reason = 'parent exited'
  const onSignal = (signal: NodeJS.Signals) => {
    reason = signal
    stopped.abort()
  }
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal)
  try {
    while (await waitFor(pollMs, stopped.signal, clock)) {
      if (followParent && process.ppid !== parent) return reason
    }
    return reason
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal)
  }
}

/**
 * Whether npm started this process (`npx`, `npm exec`, `npm start`: npm sets `npm_command`), the case
 * where a SIGTERM to the job reaches npm's shell and not the command, so the command follows its parent.
 * Started otherwise (node directly, a container's entry, a supervisor) signals reach it, and following
 * the parent would stop a worker that a short-lived parent meant to leave running (`(leasecron run &)`).
 */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.npm_command)
}
