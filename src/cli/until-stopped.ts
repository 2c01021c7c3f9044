/**
 * When a long-running helper command (`leasecron sandbox`) should stop: SIGINT, SIGTERM or SIGHUP, or the
 * process that started it exiting. Not the worker's shutdown (worker/shutdown.ts): nothing to drain here.
 *
 * Why the parent too: `npx leasecron sandbox &` (npm exec) runs the command through `sh -c`, so the
 * sandbox is npm's grandchild. npm forwards SIGINT and SIGTERM to that shell only, measured with npm 11
 * and dash: on SIGTERM the shell dies without passing it on, and the sandbox, orphaned, kept running with
 * its key file and env file on disk. So it also stops when its parent changes (polled: Linux and macOS
 * have no portable "parent died" signal for Node). On SIGINT the shell waits for its child and npm waits
 * for the shell, so nothing changes that the sandbox could see: a SIGINT must reach the sandbox itself —
 * Ctrl-C in the foreground and `kill -INT %1` under job control signal the whole process group, and
 * `kill <the pid the sandbox prints>` always works.
 */
import { type Clock, systemClock } from '../lease/clock.js'
import { waitFor } from '../lease/wait.js'

/** How often the parent is checked: a second is well inside anything a person or a script waits for. */
export const PARENT_POLL_MS = 1_000

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Resolves, once, with why it stopped: the signal's name, or `parent exited` when the process that
 * started this one is gone (its parent pid changed). Removes its signal handlers before resolving.
 */
export async function untilStopped(clock: Clock = systemClock, pollMs = PARENT_POLL_MS): Promise<string> {
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
      if (process.ppid !== parent) return reason
    }
    return reason
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal)
  }
}
