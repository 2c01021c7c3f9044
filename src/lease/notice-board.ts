/**
 * A lease store's side of notices (LeaseStore.notify / onNotice): the notice count last seen on each lease
 * through this store instance, and who listens. A twin calls `heard` with the count its renewal read back;
 * a count other than the last one seen (or the first one seen) is told to every listener.
 *
 * What it is not: the notice itself (that is a count on the lease, written by `notify`) nor a cache of
 * controls: a listener is only told to go and read.
 */

export class NoticeBoard {
  readonly #seen = new Map<string, number>()
  readonly #listeners = new Set<(name: string) => void>()

  /** The count last seen on `name`, or undefined before the first renewal of it through this store. */
  seen(name: string): number | undefined {
    return this.#seen.get(name)
  }

  /** A renewal of `name` read `count`: listeners are told when it differs from the last one seen. */
  heard(name: string, count: number): void {
    const before = this.#seen.get(name)
    this.#seen.set(name, count)
    if (before === count) return
    for (const listener of this.#listeners) {
      try {
        listener(name)
      } catch {
        // A listener's failure is its own (the contract: ignored); the renewal's answer stands.
      }
    }
  }

  subscribe(listener: (name: string) => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }
}

/** A stored notice count as a number: absent or unusable (an older version's lease) reads 0. */
export function noticeCount(stored: unknown): number {
  return typeof stored === 'number' && Number.isSafeInteger(stored) && stored >= 0 ? stored : 0
}
