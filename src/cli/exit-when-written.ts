/**
 * exitWhenWritten: ends the process with a code once everything written to stdout and stderr has left it.
 *
 * Why: on a pipe, Node writes stdout asynchronously, and `process.exit` right after a large write drops
 * whatever the pipe had not taken yet: a piped `backfill --dry-run --json` ended at 65,536 of 270,116
 * bytes (the pipe's buffer). A write's callback runs once that write, and every one before it, is
 * flushed (or failed: a reader that went away, EPIPE), so the exit waits for one empty write per stream.
 *
 * What it is not: a bound on how long a reader may take; a reader that never reads keeps the process, as
 * any writer to a full pipe is kept.
 */

/** Waits for `streams` to flush what was written to them, then exits with `code`. */
export async function exitWhenWritten(
  code: number,
  streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr],
): Promise<never> {
  await Promise.all(streams.map(flushed))
  process.exit(code)
}

/** Resolves once everything written to `stream` before this call is flushed or has failed. */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    try {
      stream.write('', () => resolve())
    } catch {
      // A destroyed stream throws instead of calling back: nothing more can leave through it.
      resolve()
    }
  })
}
