/**
 * Turns for one replica's acquires: at most `limit` of its campaigns have an acquire (or the release of an
 * acquire that got no answer) with the store at once; the others wait for a turn, in the order they
 * asked, before their call is sent and its bound starts.
 *
 * Why (issue #39): a replica campaigning for 1,000 leases sent its 1,000 acquires together. They queued on
 * its lease lane (two connections, mongo-connection.ts) ahead of the renewals of the terms it had just
 * won, ran out their bound there, and each that ran out sent a release too: the renewals waited behind
 * both, the new terms stepped down unproven, and the next round of acquires did it again. With turns, a
 * replica's acquires reach the store one after another and a lane connection stays free for renewals.
 *
 * What it is not: a rate limit (a turn ends when its call settles, however fast), nor a fair share between
 * replicas (share/), nor a queue for renewals, reads or releases of held terms, which never wait here.
 * Hand-written, not a library's semaphore: the worker installs two packages (issue #24), and this is the
 * one counter and queue it needs.
 */

/** What `run` asks before each acquire (RunSpec `acquireTurns`). */
export interface AcquireTurnTaker {
  /**
   * Resolves with the turn's end (call it once the acquire, and its release when it got no answer, have
   * settled) when this caller may send; rejects with the signal's reason when `signal` aborts first.
   */
  take(signal?: AbortSignal): Promise<() => void>
}

/** See the module's doc. */
export class AcquireTurns implements AcquireTurnTaker {
  #free: number
  readonly #waiting: Array<() => void> = []

  /** `limit`: how many acquires may be with the store at once (an integer ≥ 1). */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`AcquireTurns: limit must be an integer ≥ 1, got ${String(limit)}`)
    this.#free = limit
  }

  /** How many callers wait for a turn now. */
  get waiting(): number {
    return this.#waiting.length
  }

  take(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (this.#free > 0) {
      this.#free--
      return Promise.resolve(this.#ender())
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(start)
        if (at >= 0) this.#waiting.splice(at, 1)
        reject(signal?.reason)
      }
      const start = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve(this.#ender())
      }
      this.#waiting.push(start)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** The end of one turn: hands it to the first caller waiting, or frees it; a second call does nothing. */
  #ender(): () => void {
    let ended = false
    return () => {
      if (ended) return
      ended = true
      const next = this.#waiting.shift()
      if (next) next()
      else this.#free++
    }
  }
}
