/**
 * What one process believes the shared forge cache holds (entries and bytes), so a write can tell
 * whether to evict without reading the collection: summing it took 0.6–0.7 s at 10,000 entries on
 * FerretDB, on every write.
 *
 * Why a per-process running total and not a shared stats document updated with `$inc`: FerretDB applies
 * an update as read-then-write, so concurrent `$inc`s from several replicas can lose counts for good,
 * while a total this process keeps can only drift by what *other* processes wrote or evicted since it last
 * read the collection. The totals are therefore read from the collection (one scan) at the first write,
 * every `resyncMs` after, and whenever an eviction finds the collection other than expected; between
 * those they follow this process's own writes and deletes exactly. The cache is a cost saver, so the
 * bound may be overshot by other processes' writes for at most `resyncMs`; it is never a correctness
 * matter (an evicted entry costs one unconditional GET).
 *
 * Not the store and not a counter of record: `MongoForgeCacheStore.size()` still reads the collection.
 */
import type { ForgeCacheSize } from './forge-cache-store.js'

/** How often the totals are re-read from the collection by default: every 5 minutes of writes. */
export const DEFAULT_FORGE_CACHE_RESYNC_MS = 5 * 60_000

/** Running totals; see the module doc. `now` is the caller's clock (ms). */
export class ForgeCacheTotals {
  #known: ForgeCacheSize | undefined
  #readAt = 0

  constructor(private readonly resyncMs: number = DEFAULT_FORGE_CACHE_RESYNC_MS) {}

  /** The totals, or undefined when they must be read from the collection first. */
  current(now: number): ForgeCacheSize | undefined {
    if (this.#known === undefined || now - this.#readAt >= this.resyncMs) return undefined
    return { ...this.#known }
  }

  /** The collection was read at `now` and held `size`. */
  read(size: ForgeCacheSize, now: number): void {
    this.#known = { ...size }
    this.#readAt = now
  }

  /** This process wrote an entry of `bytes`, replacing one of `replaced` bytes (undefined: a new key). */
  wrote(bytes: number, replaced: number | undefined): void {
    if (this.#known === undefined) return
    if (replaced === undefined) this.#known.entries++
    this.#known.bytes += bytes - (replaced ?? 0)
  }

  /** This process deleted `entries` documents holding `bytes`. */
  removed(entries: number, bytes: number): void {
    if (this.#known === undefined) return
    this.#known.entries = Math.max(0, this.#known.entries - entries)
    this.#known.bytes = Math.max(0, this.#known.bytes - bytes)
  }

  /** The collection is not what the totals say (another process evicted, a document was malformed). */
  forget(): void {
    this.#known = undefined
  }
}
