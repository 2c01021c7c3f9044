/**
 * The in-process twin of the forge cache store: `lru-cache` (a well-kept LRU with byte accounting)
 * bounded by entries and by bytes, evicting the least recently used entry first. An entry larger than
 * the whole byte bound is not stored at all.
 *
 * Not shared: each process has its own. `MongoForgeCacheStore` is the shared twin.
 */
import { LRUCache } from 'lru-cache'
import type { StoreCallOptions } from '../../store-call/store-call.js'
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

  async get(key: string, options?: StoreCallOptions): Promise<ForgeCacheEntry | undefined> {
    options?.signal?.throwIfAborted()
    return this.#lru.get(key)
  }

  async set(entry: ForgeCacheEntry, options?: StoreCallOptions): Promise<void> {
    options?.signal?.throwIfAborted()
    // An entry over maxEntrySize is refused by lru-cache, which also drops any older value of the key.
    if (forgeCacheEntryBytes(entry) > this.#lru.maxSize) this.#lru.delete(entry.key)
    else this.#lru.set(entry.key, entry)
  }

  async delete(key: string, options?: StoreCallOptions): Promise<void> {
    options?.signal?.throwIfAborted()
    this.#lru.delete(key)
  }

  async size(options?: StoreCallOptions): Promise<ForgeCacheSize> {
    options?.signal?.throwIfAborted()
    return { entries: this.#lru.size, bytes: this.#lru.calculatedSize }
  }
}
