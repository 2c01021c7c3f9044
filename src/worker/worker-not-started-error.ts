/**
 * Thrown when a worker's part that loads on `start()` (its metrics) is read before `start()` has loaded it.
 * A programming error in the caller, not an outcome: read it after `await worker.start()`.
 */
export class WorkerNotStartedError extends Error {
  override readonly name = 'WorkerNotStartedError'
  readonly code = 'WORKER_NOT_STARTED'
  constructor(
    /** The worker's owner id. */
    readonly owner: string,
    /** What was read: `metrics`. */
    readonly part: string,
  ) {
    super(
      `worker ${owner}: ${part} is available once start() has loaded the worker; read it after \`await worker.start()\``,
    )
  }
}
