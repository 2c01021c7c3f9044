/**
 * The vacancy watch: one `store.vacant(leases, now)` read per interval tells which of this replica's
 * leases an acquire could find free, and a campaign whose lease is not among them sends nothing that
 * retry. So a replica's store load for the leases it does not hold is one read per interval, whatever
 * their number — not one acquire (and a read naming the holder) per lease per retry.
 *
 * It only holds back: the acquire still decides. A lease it names may be taken first (the acquire answers
 * false and the lease is struck off until the next read); one it does not name may expire a moment later
 * (the next read finds it, so a takeover can take up to one interval longer). Before its first read, and
 * on a store without `vacant`, it holds nothing back.
 */
import type { Clock } from '../lease/clock.js'
import type { LeaseStore } from '../lease/store.js'
import { waitFor } from '../lease/wait.js'
import type { Logger } from './logger.js'

export class VacancyWatch {
  readonly #store: LeaseStore
  readonly #leases: string[]
  readonly #clock: Clock
  readonly #log: Logger
  /** The leases the last read found vacant, less those tried since; undefined before the first read. */
  #vacant: Set<string> | undefined

  constructor(options: { store: LeaseStore; leases: readonly string[]; clock: Clock; log: Logger }) {
    this.#store = options.store
    this.#leases = [...options.leases]
    this.#clock = options.clock
    this.#log = options.log
  }

  /** Whether a campaign for `lease` may send an acquire now. */
  mayTry(lease: string): boolean {
    return this.#vacant === undefined || this.#vacant.has(lease)
  }

  /** An acquire for `lease` was sent: it is not vacant again until a read says so. */
  tried(lease: string): void {
    this.#vacant?.delete(lease)
  }

  /** Reads every `intervalMs` until `signal` aborts. Never rejects. */
  async run(intervalMs: number, signal: AbortSignal): Promise<void> {
    const vacant = this.#store.vacant?.bind(this.#store)
    if (!vacant) return
    while (!signal.aborted) {
      try {
        this.#vacant = new Set(await vacant(this.#leases, this.#clock.now(), { signal }))
      } catch (error) {
        // No answer: nothing is known to be vacant until the store answers (nobody is elected meanwhile).
        this.#vacant = new Set()
        if (!signal.aborted) this.#log.debug({ err: error }, 'vacancy read failed')
      }
      if (!(await waitFor(intervalMs, signal, this.#clock))) return
    }
  }
}
