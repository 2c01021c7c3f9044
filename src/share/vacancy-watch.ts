/**
 * The vacancy watch: one read per interval tells which of this replica's leases an acquire could find
 * free, and a campaign whose lease is not among them sends nothing that retry. So a replica's store load
 * for the leases it does not hold is one read per interval, whatever their number — not one acquire (and
 * a read naming the holder) per lease per retry.
 *
 * On a store with `expiries` the read also tells, for a lease held, when its term expires unless renewed:
 * the watch lets a campaign try it from that instant on, without waiting for the next read — so a dead
 * holder's lease is tried within one retry of its expiry, not a read interval later. And a lease whose term
 * expired without a release is an orphan (its holder stopped renewing: a step-down releases), which the
 * fair share lets a replica take above its share (share-keeper.ts). On a store with only `vacant`, the
 * watch knows vacancies as of the last read, and no orphans.
 *
 * It only holds back: the acquire still decides. A lease it names may be taken first (the acquire answers
 * false and the lease is struck off until the next read); a held lease past its read expiry may have been
 * renewed since (one acquire refused). Before its first read it holds nothing back.
 */
import type { Clock } from '../lease/clock.js'
import type { LeaseStore } from '../lease/store.js'
import { waitFor } from '../lease/wait.js'
import type { Logger } from '../observe/logger.js'

/** What the last read found of one lease: free, or its term's expiry (ms; in the past: an orphan). */
type Seen = { free: true } | { free: false; expiresAtMs: number }

export class VacancyWatch {
  readonly #store: LeaseStore
  #leases: string[]
  readonly #clock: Clock
  readonly #log: Logger
  /** What the last read found, by lease; undefined before the first read. */
  #seen: Map<string, Seen> | undefined
  /** Leases tried since the last read: not vacant again until a read says so. */
  readonly #tried = new Set<string>()
  /** Leases added to the list (setLeases) since the read in flight began: no read covered them yet. */
  readonly #unread = new Set<string>()

  constructor(options: { store: LeaseStore; leases: readonly string[]; clock: Clock; log: Logger }) {
    this.#store = options.store
    this.#leases = [...options.leases]
    this.#clock = options.clock
    this.#log = options.log
  }

  /**
   * Whether a campaign for `lease` may send an acquire now. A lease of the list that the last read did not
   * cover (added since, setLeases) is not known to be held: it may be tried once until a read covers it.
   */
  mayTry(lease: string): boolean {
    if (this.#seen === undefined) return true
    if (this.#tried.has(lease)) return false
    const seen = this.#seen.get(lease)
    if (seen === undefined) return this.#unread.has(lease)
    return seen.free || seen.expiresAtMs <= this.#clock.now().getTime()
  }

  /**
   * The leases campaigned for changed (GITHUB_INSTALLATION_IDS=all): the next reads are of `leases`. The
   * ones new to the list may be tried before a read covers them; the ones dropped are never tried again.
   */
  setLeases(leases: readonly string[]): void {
    const known = new Set(this.#leases)
    this.#leases = [...new Set(leases)]
    for (const lease of this.#leases) if (!known.has(lease)) this.#unread.add(lease)
    for (const lease of this.#unread) if (!this.#leases.includes(lease)) this.#unread.delete(lease)
    if (this.#seen === undefined) return
    for (const lease of this.#seen.keys()) if (!this.#leases.includes(lease)) this.#seen.delete(lease)
  }

  /** Whether `lease`'s term expired without a release, as far as the last read and the clock tell. */
  orphaned(lease: string): boolean {
    const seen = this.#seen?.get(lease)
    return seen !== undefined && !seen.free && seen.expiresAtMs <= this.#clock.now().getTime()
  }

  /** An acquire for `lease` was sent: it is not vacant again until a read says so. */
  tried(lease: string): void {
    if (this.#seen !== undefined) this.#tried.add(lease)
  }

  /** Reads every `intervalMs` until `signal` aborts. Never rejects. */
  async run(intervalMs: number, signal: AbortSignal): Promise<void> {
    if (!this.#store.expiries && !this.#store.vacant) return
    while (!signal.aborted) {
      // The leases this read covers: any added while it is in flight stay unread until the next one.
      const covered = [...this.#leases]
      try {
        const seen = await this.#read(covered, signal)
        this.#tried.clear()
        this.#seen = seen
        for (const lease of covered) this.#unread.delete(lease)
      } catch (error) {
        // No answer: nothing is known to be vacant until the store answers (nobody is elected meanwhile).
        this.#tried.clear()
        this.#seen = new Map()
        if (!signal.aborted) this.#log.debug({ err: error }, 'vacancy read failed')
      }
      if (!(await waitFor(intervalMs, signal, this.#clock))) return
    }
  }

  /** One read: the expiries where the store has them, else the vacant leases (and no expiry known). */
  async #read(leases: readonly string[], signal: AbortSignal): Promise<Map<string, Seen>> {
    const store = this.#store
    if (store.expiries) {
      const read = await store.expiries(leases, { signal })
      return new Map(
        read.map(({ name, expiresAt }): [string, Seen] => [
          name,
          expiresAt ? { free: false, expiresAtMs: expiresAt.getTime() } : { free: true },
        ]),
      )
    }
    const vacant = new Set(await store.vacant?.(leases, this.#clock.now(), { signal }))
    // A lease left out is held with an unknown expiry: vacant only when a later read says so.
    return new Map(
      leases.map((name): [string, Seen] => [
        name,
        vacant.has(name) ? { free: true } : { free: false, expiresAtMs: Number.POSITIVE_INFINITY },
      ]),
    )
  }
}
