/**
 * The shared twin of the forge cache store: the `forge_cache` collection, one document per key, so a
 * successor after a takeover and every `leasecron once` process start with the validators the last
 * holder saw — their first GETs are 304s, not points.
 *
 * Document: `_id` = the key, `etag`, `lastModified`, `credential` (a token fingerprint), `headers`, `body` (the answer's bytes, zlib
 * deflated), `bytes` (the entry's uncompressed charge, as the memory twin counts it) and `usedAt` (ms,
 * set on every write and read). Index `usedAt_1`. Bounded by entries and bytes like the memory twin:
 * after a write, the least recently used documents are deleted until both bounds hold. No TTL index
 * (FerretDB has none, and age is not the bound). Recency is what this store saw: reads served from a
 * process's memory tier do not touch it.
 *
 * Not a lock and not authoritative: concurrent writers of one key leave the last write, which is fine
 * for a revalidation cache (a stale validator costs one 200, never a wrong body).
 */
import { deflateSync, inflateSync } from 'node:zlib'
import type { Binary, Collection, Db } from 'mongodb'
import {
  checkForgeCacheBounds,
  type ForgeCacheBounds,
  type ForgeCacheEntry,
  type ForgeCacheSize,
  type ForgeCacheStore,
  forgeCacheEntryBytes,
} from './forge-cache-store.js'

interface CacheDocument {
  _id: string
  etag?: string
  lastModified?: string
  credential?: string
  headers: Record<string, string>
  /** Written as bytes (the driver stores them as BinData), read back as the driver's Binary. */
  body: Uint8Array | Binary
  bytes: number
  usedAt: number
}

/** Options for MongoForgeCacheStore. */
export interface MongoForgeCacheStoreOptions extends ForgeCacheBounds {
  /** Collection name; `forge_cache` by default. */
  collection?: string
  /** Recency stamps (ms); the wall clock by default. */
  clock?: () => number
}

/** The Mongo twin; see the module doc. Throws ForgeCacheBoundsError for bad bounds. */
export class MongoForgeCacheStore implements ForgeCacheStore {
  readonly #docs: Collection<CacheDocument>
  readonly #bounds: Required<ForgeCacheBounds>
  readonly #clock: () => number
  #lastStamp = 0

  constructor(db: Db, options: MongoForgeCacheStoreOptions = {}) {
    this.#bounds = checkForgeCacheBounds(options)
    this.#docs = db.collection<CacheDocument>(options.collection ?? 'forge_cache')
    this.#clock = options.clock ?? Date.now
  }

  /** Creates the recency index; idempotent. */
  async ensureIndexes(): Promise<void> {
    await this.#docs.createIndex({ usedAt: 1 }, { name: 'usedAt_1' })
  }

  async get(key: string): Promise<ForgeCacheEntry | undefined> {
    const doc = await this.#docs.findOneAndUpdate({ _id: key }, { $set: { usedAt: this.#stamp() } })
    return doc === null ? undefined : entryOf(doc)
  }

  async set(entry: ForgeCacheEntry): Promise<void> {
    const bytes = forgeCacheEntryBytes(entry)
    if (bytes > this.#bounds.maxBytes) return this.delete(entry.key)
    const doc: CacheDocument = {
      _id: entry.key,
      headers: entry.headers,
      body: deflateSync(entry.body),
      bytes,
      usedAt: this.#stamp(),
      ...(entry.etag === undefined ? {} : { etag: entry.etag }),
      ...(entry.lastModified === undefined ? {} : { lastModified: entry.lastModified }),
      ...(entry.credential === undefined ? {} : { credential: entry.credential }),
    }
    await this.#docs.replaceOne({ _id: entry.key }, doc, { upsert: true })
    await this.#evict()
  }

  async delete(key: string): Promise<void> {
    await this.#docs.deleteOne({ _id: key })
  }

  async size(): Promise<ForgeCacheSize> {
    // Summed here, not with $group/$sum: FerretDB 1.24 answered 0 bytes for that pipeline. The
    // collection is bounded (10,000 entries by default) and only `bytes` is read.
    let entries = 0
    let bytes = 0
    for await (const doc of this.#docs.find({}, { projection: { _id: 0, bytes: 1 } })) {
      entries++
      bytes += doc.bytes
    }
    return { entries, bytes }
  }

  /** Deletes least recently used documents until both bounds hold. */
  async #evict(): Promise<void> {
    let { entries, bytes } = await this.size()
    if (entries <= this.#bounds.maxEntries && bytes <= this.#bounds.maxBytes) return
    const victims: string[] = []
    const oldest = this.#docs.find({}, { projection: { _id: 1, bytes: 1 }, sort: { usedAt: 1, _id: 1 } })
    for await (const doc of oldest) {
      if (entries <= this.#bounds.maxEntries && bytes <= this.#bounds.maxBytes) break
      victims.push(doc._id)
      entries--
      bytes -= doc.bytes
    }
    await oldest.close()
    if (victims.length > 0) await this.#docs.deleteMany({ _id: { $in: victims } })
  }

  /** Strictly increasing stamps, so two uses within one millisecond still order by recency. */
  #stamp(): number {
    this.#lastStamp = Math.max(this.#lastStamp + 1, this.#clock())
    return this.#lastStamp
  }
}

function entryOf(doc: CacheDocument): ForgeCacheEntry {
  return {
    key: doc._id,
    headers: doc.headers,
    body: inflateSync(doc.body instanceof Uint8Array ? doc.body : doc.body.buffer),
    ...(doc.etag === undefined ? {} : { etag: doc.etag }),
    ...(doc.lastModified === undefined ? {} : { lastModified: doc.lastModified }),
    ...(doc.credential === undefined ? {} : { credential: doc.credential }),
  }
}
