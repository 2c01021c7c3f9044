/**
 * The shared twin of the forge cache store: the `forge_cache` collection, one document per key, so a
 * successor after a takeover and every `leasecron once` process start with the validators the last
 * holder saw — their first GETs are 304s, not points.
 *
 * Document: `_id` = the key, `etag`, `lastModified`, `credential` (a token fingerprint), `position` (a
 * watermarked list's position, watermark-parameter.ts), `headers`, `body`
 * (the answer's bytes, zlib deflated), `bytes` (the entry's uncompressed charge, as the memory twin counts
 * it) and `usedAt` (ms, set on every write and read). Index `usedAt_1`, created at construction time by
 * `ensureIndexes()` and, when the store was down then, at the next write that succeeds (retried at most
 * once a minute until it is there). No TTL index (FerretDB has none, and age is not the bound).
 *
 * Bounded by entries and bytes like the memory twin: after a write that passed a bound, the least recently
 * used documents are deleted until both hold with 1% to spare (one eviction per ~100 new entries at the
 * default bounds; exactly the bound below 100), judged by this process's running totals
 * (forge-cache-totals.ts: re-read from the collection every few minutes, never summed per write). Recency is what this store saw: reads
 * served from a process's memory tier do not touch it.
 *
 * Every document read is parsed and its body inflated within the byte bound (forge-cache-document.ts): a
 * malformed or oversized document is a miss, deleted and reported once through `onDrop`.
 *
 * Every call is bounded (store-call.ts): the server's `maxTimeMS` (5 s; a minute for the index and the
 * reads of many documents) and the caller's signal for `get`/`set`/`delete`/`size`; the upkeep a write
 * starts (index, eviction) is bounded by the server only, so an aborted caller never leaves it half done.
 * Failures are StoreError `STORE_CALL_FAILED`/`STORE_CALL_ABORTED` with the driver's error as cause.
 *
 * Not a lock and not authoritative: concurrent writers of one key leave the last write, which is fine
 * for a revalidation cache (a stale validator costs one 200, never a wrong body).
 */
import { deflateSync } from 'node:zlib'
import type { Binary, Collection, Db } from 'mongodb'
import {
  type CallBounds,
  LONG_CALL_TIMEOUT_MS,
  plainStoreError,
  StoreCollection,
  type StoreCallOptions,
} from '../../store-call/store-call.js'
import { readForgeCacheDocument } from './forge-cache-document.js'
import {
  checkForgeCacheBounds,
  type ForgeCacheBounds,
  type ForgeCacheEntry,
  type ForgeCacheSize,
  type ForgeCacheStore,
  forgeCacheEntryBytes,
} from './forge-cache-store.js'
import { DEFAULT_FORGE_CACHE_RESYNC_MS, ForgeCacheTotals } from './forge-cache-totals.js'

interface CacheDocument {
  _id: string
  etag?: string
  lastModified?: string
  credential?: string
  position?: string
  headers: Record<string, string>
  /** Written as bytes (the driver stores them as BinData), read back as the driver's Binary. */
  body: Uint8Array | Binary
  bytes: number
  usedAt: number
}

/** Why a stored entry was dropped as a miss; never carries the body. */
export interface ForgeCacheDrop {
  key: string
  reason: string
}

/** Options for MongoForgeCacheStore. */
export interface MongoForgeCacheStoreOptions extends ForgeCacheBounds {
  /** Collection name; `forge_cache` by default. */
  collection?: string
  /** The longest a call may take on the server (`maxTimeMS`), in ms; 5000 by default. */
  callTimeoutMs?: number
  /** Recency stamps, total re-reads and index retries (ms); the wall clock by default. */
  clock?: () => number
  /** How often the running totals are re-read from the collection (ms); 5 minutes by default. */
  resyncMs?: number
  /** Told once per stored document dropped as unusable (deleted, so it is told once). */
  onDrop?: (drop: ForgeCacheDrop) => void
  /** Told when creating the recency index failed; it is tried again at a later write. */
  onIndexError?: (error: unknown) => void
}

/** Documents read per eviction step at most: a short read of `_id` and `bytes`, never the collection. */
const EVICTION_BATCH_MAX = 1000
/** A failed index creation, while writes succeed, is retried at most this often. */
const INDEX_RETRY_MS = 60_000
const COMPONENT = 'MongoForgeCacheStore'

/** The Mongo twin; see the module doc. Throws ForgeCacheBoundsError for bad bounds. */
export class MongoForgeCacheStore implements ForgeCacheStore {
  readonly #docs: StoreCollection<CacheDocument>
  readonly #bounds: Required<ForgeCacheBounds>
  readonly #clock: () => number
  readonly #totals: ForgeCacheTotals
  readonly #options: MongoForgeCacheStoreOptions
  #lastStamp = 0
  #indexed = false
  #indexTriedAt = Number.NEGATIVE_INFINITY
  #indexing: Promise<void> | undefined
  #evicting: Promise<void> = Promise.resolve()
  #dropped = 0

  constructor(db: Db, options: MongoForgeCacheStoreOptions = {}) {
    this.#bounds = checkForgeCacheBounds(options)
    this.#docs = new StoreCollection<CacheDocument>(db, options.collection ?? 'forge_cache', {
      component: COMPONENT,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    })
    this.#clock = options.clock ?? Date.now
    this.#totals = new ForgeCacheTotals(options.resyncMs ?? DEFAULT_FORGE_CACHE_RESYNC_MS)
    this.#options = options
  }

  /**
   * Creates the recency index; idempotent, and a no-op once it succeeded. Rejects when the store is down.
   * A call while another is creating it waits for that one (whose signal bounds it).
   */
  async ensureIndexes(options?: StoreCallOptions): Promise<void> {
    if (this.#indexed) return
    this.#indexing ??= this.#call(
      'ensureIndexes',
      options,
      (docs, bounds) => docs.createIndex({ usedAt: 1 }, { name: 'usedAt_1', ...bounds.read }),
      LONG_CALL_TIMEOUT_MS,
    )
      .then(() => {
        this.#indexed = true
      })
      .finally(() => {
        this.#indexing = undefined
      })
    await this.#indexing
  }

  /** Stored documents this store dropped as unusable since it was made. */
  get dropped(): number {
    return this.#dropped
  }

  async get(key: string, options?: StoreCallOptions): Promise<ForgeCacheEntry | undefined> {
    const used = { $set: { usedAt: this.#stamp() } }
    const doc = await this.#call('get', options, (docs, bounds) =>
      docs.findOneAndUpdate({ _id: key }, used, bounds.write),
    )
    if (doc === null) return undefined
    const read = readForgeCacheDocument(doc, this.#bounds.maxBytes)
    if (read.ok) return read.entry
    this.#dropped++
    this.#options.onDrop?.({ key, reason: read.reason })
    await this.#remove(key, options)
    return undefined
  }

  async set(entry: ForgeCacheEntry, options?: StoreCallOptions): Promise<void> {
    const bytes = forgeCacheEntryBytes(entry)
    if (bytes > this.#bounds.maxBytes) return this.delete(entry.key, options)
    // The replaced charge is read first (FerretDB 1.24's findAndModify takes no projection); a write by
    // another process in between only skews the totals until their next re-read.
    const before = await this.#chargeStored(entry.key, options)
    const doc = documentOf(entry, bytes, this.#stamp())
    await this.#call('set', options, (docs, bounds) =>
      docs.replaceOne({ _id: entry.key }, doc, { upsert: true, ...bounds.write }),
    )
    this.#totals.wrote(bytes, before)
    await this.#indexAfterOutage()
    await this.#evictInTurn()
  }

  async delete(key: string, options?: StoreCallOptions): Promise<void> {
    await this.#remove(key, options)
  }

  /** Reads the whole collection (only `bytes`): for tests, the bench and the totals' rare re-read. */
  async size(options?: StoreCallOptions): Promise<ForgeCacheSize> {
    // Summed here, not with $group/$sum: FerretDB 1.24 answered 0 bytes for that pipeline.
    const sum = async (docs: Collection<CacheDocument>, bounds: CallBounds) => {
      let entries = 0
      let bytes = 0
      for await (const doc of docs.find({}, { projection: { _id: 0, bytes: 1 }, ...bounds.find })) {
        entries++
        bytes += this.#chargeOf(doc)
      }
      return { entries, bytes }
    }
    return this.#call('size', options, sum, LONG_CALL_TIMEOUT_MS)
  }

  async #remove(key: string, options: StoreCallOptions | undefined): Promise<void> {
    const charge = await this.#chargeStored(key, options)
    if (charge === undefined) return
    const { deletedCount } = await this.#call('delete', options, (docs, bounds) =>
      docs.deleteOne({ _id: key }, bounds.write),
    )
    if (deletedCount === 1) this.#totals.removed(1, charge)
  }

  /** The charge the document of `key` was written with, or undefined when there is none. */
  async #chargeStored(key: string, options: StoreCallOptions | undefined): Promise<number | undefined> {
    const doc = await this.#call('charge', options, (docs, bounds) =>
      docs.findOne({ _id: key }, { projection: { _id: 0, bytes: 1 }, ...bounds.read }),
    )
    return doc === null ? undefined : this.#chargeOf(doc)
  }

  /** One bounded call (store-call.ts); its failure is a StoreError naming this store and the operation. */
  #call<T>(
    operation: string,
    options: StoreCallOptions | undefined,
    op: (docs: Collection<CacheDocument>, bounds: CallBounds) => Promise<T>,
    timeoutMs?: number,
  ): Promise<T> {
    const error = plainStoreError({ component: COMPONENT, operation })
    return this.#docs.call({ signal: options?.signal, timeoutMs, error }, op)
  }

  /** A document's recorded charge; a malformed one counts 0 and sends the totals back to the collection. */
  #chargeOf(doc: { bytes?: unknown }): number {
    if (typeof doc.bytes === 'number' && Number.isFinite(doc.bytes) && doc.bytes >= 0) return doc.bytes
    this.#totals.forget()
    return 0
  }

  /**
   * The index, if construction time could not make it (the store was down): tried at the first write that
   * succeeds, then — should the server refuse it while taking writes — at most once a minute.
   */
  async #indexAfterOutage(): Promise<void> {
    if (this.#indexed || this.#clock() - this.#indexTriedAt < INDEX_RETRY_MS) return
    this.#indexTriedAt = this.#clock()
    await this.ensureIndexes().catch((error: unknown) => this.#options.onIndexError?.(error))
  }

  /** One eviction at a time in this process, so two writes never count the same victims twice. */
  #evictInTurn(): Promise<void> {
    const turn = this.#evicting.then(() => this.#evict())
    this.#evicting = turn.catch(() => undefined)
    return turn
  }

  /**
   * Once a bound is passed, deletes least recently used documents until both hold with 1% to spare (the
   * low-water mark), by the running totals. The sorted read of the oldest documents is the costly step —
   * FerretDB 1.24 sorts without the index, about 0.6 s at 10,000 entries — so at the default bounds one
   * eviction makes room for about a hundred new entries instead of one.
   */
  async #evict(): Promise<void> {
    let left = await this.#knownTotals()
    if (!this.#over(left, this.#bounds)) return
    const target = lowWater(this.#bounds)
    while (this.#over(left, target)) {
      const batch = {
        projection: { _id: 1, bytes: 1 },
        sort: { usedAt: 1, _id: 1 } as const,
        limit: batchFor(left, target),
      }
      const oldest = await this.#call(
        'evict',
        undefined,
        (docs, bounds) => docs.find({}, { ...batch, ...bounds.find }).toArray(),
        LONG_CALL_TIMEOUT_MS,
      )
      const victims: string[] = []
      let freed = 0
      for (const doc of oldest) {
        if (!this.#over(left, target)) break
        victims.push(doc._id)
        const charge = this.#chargeOf(doc)
        freed += charge
        left = { entries: left.entries - 1, bytes: left.bytes - charge }
      }
      // Fewer documents than the totals said, or another process deleted some first: re-read next time.
      if (victims.length === 0) return this.#totals.forget()
      const { deletedCount } = await this.#call('evict', undefined, (docs, bounds) =>
        docs.deleteMany({ _id: { $in: victims } }, bounds.write),
      )
      this.#totals.removed(victims.length, freed)
      if (deletedCount !== victims.length) return this.#totals.forget()
    }
  }

  /** The running totals, read from the collection first when they are missing or due (see forge-cache-totals.ts). */
  async #knownTotals(): Promise<ForgeCacheSize> {
    const known = this.#totals.current(this.#clock())
    if (known !== undefined) return known
    const readAt = this.#clock()
    const read = await this.size()
    this.#totals.read(read, readAt)
    return read
  }

  #over(size: ForgeCacheSize, bounds: { maxEntries: number; maxBytes: number }): boolean {
    return size.entries > bounds.maxEntries || size.bytes > bounds.maxBytes
  }

  /** Strictly increasing stamps, so two uses within one millisecond still order by recency. */
  #stamp(): number {
    this.#lastStamp = Math.max(this.#lastStamp + 1, this.#clock())
    return this.#lastStamp
  }
}

/** 99% of each bound (exactly the bound below 100): what an eviction brings the collection down to. */
function lowWater(bounds: Required<ForgeCacheBounds>): Required<ForgeCacheBounds> {
  return {
    maxEntries: bounds.maxEntries - Math.floor(bounds.maxEntries / 100),
    maxBytes: bounds.maxBytes - Math.floor(bounds.maxBytes / 100),
  }
}

/** How many of the oldest documents one step reads: the entries over, or the bytes over at the mean size. */
function batchFor(size: ForgeCacheSize, target: Required<ForgeCacheBounds>): number {
  const mean = size.entries > 0 ? Math.max(1, size.bytes / size.entries) : 1
  const byEntries = size.entries - target.maxEntries
  const byBytes = Math.ceil((size.bytes - target.maxBytes) / mean)
  return Math.min(EVICTION_BATCH_MAX, Math.max(16, byEntries, byBytes))
}

function documentOf(entry: ForgeCacheEntry, bytes: number, usedAt: number): CacheDocument {
  return {
    _id: entry.key,
    headers: entry.headers,
    body: deflateSync(entry.body),
    bytes,
    usedAt,
    ...(entry.etag === undefined ? {} : { etag: entry.etag }),
    ...(entry.lastModified === undefined ? {} : { lastModified: entry.lastModified }),
    ...(entry.credential === undefined ? {} : { credential: entry.credential }),
    ...(entry.position === undefined ? {} : { position: entry.position }),
  }
}
