/**
 * Where a command writes and what environment it reads: the CLI's one way in and out. Every line goes
 * through the one scrubbing path (config/scrub.ts) before it leaves the process.
 */
import { scrubSecrets } from '../config/scrub.js'

/** A command's output, its errors and the environment it is configured from. */
export interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: NodeJS.ProcessEnv
  /**
   * Whether `out` is a terminal: a person reading, not a pipe or a file. A command whose log would share
   * stdout with its answer (`once`) keeps the log on stderr otherwise. Absent: not a terminal.
   */
  outIsTerminal?: boolean
}

/** `io` with every line scrubbed of secrets: the CLI's one way out. */
export function scrubbedIo(io: Io): Io {
  return {
    out: (line) => io.out(scrubSecrets(line)),
    err: (line) => io.err(scrubSecrets(line)),
    env: io.env,
    outIsTerminal: io.outIsTerminal,
  }
}

/** Whether stdout's reader went away (EPIPE: `| head` read what it wanted and closed the pipe). */
let stdoutClosed = false
let watchingStdout = false

/**
 * Marks stdout closed on EPIPE instead of letting the stream's error end the process with a stack trace:
 * the reader chose to stop reading, so the rest of the answer has nowhere to go, and the command ends as it
 * would have. Any other stdout error is thrown as before.
 */
function watchStdout(): void {
  if (watchingStdout) return
  watchingStdout = true
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    stdoutClosed = true
  })
}

/** The process's own: stdout, stderr and process.env. */
export function defaultIo(): Io {
  watchStdout()
  return {
    out: (l) => {
      if (!stdoutClosed) process.stdout.write(`${l}\n`)
    },
    err: (l) => process.stderr.write(`${l}\n`),
    env: process.env,
    outIsTerminal: process.stdout.isTTY === true,
  }
}
