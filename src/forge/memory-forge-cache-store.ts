/**
 * The in-process twin of the forge cache store: `lru-cache` (a well-kept LRU with byte accounting)
 * bounded by entries and by bytes, evicting the least recently used entry first. An entry larger than
 * the whole byte bound is not stored at all.
 *
 * Not shared: each process has its own. `MongoForgeCacheStore` is the shared twin.
 */
import { LRUCache } from 'lru-cache'
import {
  checkForgeCacheBounds,
  type ForgeCacheBounds,
  type ForgeCacheEntry,
  type ForgeCacheSize,
  type ForgeCacheStore,
  forgeCacheEntryBytes,
} from './forge-cache-store.js'

/** The memory twin; see the module doc. Throws ForgeCacheBoundsError for bad bounds. */
export class MemoryForgeCacheStore implements ForgeCacheStore {
  readonly #lru: LRUCache<string, ForgeCacheEntry>

  constructor(bounds: ForgeCacheBounds = {}) {
    const { maxBytes, maxEntries } = checkForgeCacheBounds(bounds)
    this.#lru = new LRUCache<string, ForgeCacheEntry>({
      max: maxEntries,
      maxSize: maxBytes,
      maxEntrySize: maxBytes,
      sizeCalculation: forgeCacheEntryBytes,
    })
  }

  async get(key: string): Promise<ForgeCacheEntry | undefined> {
    return this.#lru.get(key)
  }

  async set(entry: ForgeCacheEntry): Promise<void> {
    // An entry over maxEntrySize is refused by lru-cache, which also drops any older value of the key.
    if (forgeCacheEntryBytes(entry) > this.#lru.maxSize) this.#lru.delete(entry.key)
    else this.#lru.set(entry.key, entry)
  }

  async delete(key: string): Promise<void> {
    this.#lru.delete(key)
  }

  async size(): Promise<ForgeCacheSize> {
    return { entries: this.#lru.size, bytes: this.#lru.calculatedSize }
  }
}
