/**
 * The forge cache's store contract: what the revalidating transport (`forge-cache.ts`) keeps per
 * GET — the validators (`etag`, `last-modified`) and the body of the last successful answer, keyed by
 * method + URL + Accept + installation (never by token: installation tokens rotate hourly).
 *
 * Two twins implement it: `MemoryForgeCacheStore` (this process, LRU by entries and bytes) and
 * `MongoForgeCacheStore` (the `forge_cache` collection, shared by every process of the installation,
 * bounded the same way). One conformance suite (test/forge/forge-cache-store.conformance.ts) runs both.
 *
 * Not a freshness cache: nothing here decides whether an entry may be served. The transport sends every
 * GET with the stored validators and only a 304 lets it hand out the stored body.
 */
import type { StoreCallOptions } from '../../store-call/store-call.js'

/** One stored answer. */
export interface ForgeCacheEntry {
  /** `GET <url> accept=<accept> inst=<installation>` (see `forgeCacheKey`). */
  key: string
  /** The answer's `etag`, when it sent one. */
  etag?: string
  /** The answer's `last-modified`, when it sent one (used only without an etag). */
  lastModified?: string
  /**
   * A fingerprint of the credential the answer was sent to (a truncated SHA-256, never the token):
   * GitHub does not document whether an etag survives a token rotation, so a successor with another
   * token revalidates with `If-Modified-Since` where the answer had a last-modified.
   */
  credential?: string
  /**
   * For a list read at a watermark (watermark-parameter.ts): the watermark's value the answer is for. The
   * key leaves the watermark out, so a list holds one entry, its latest position's.
   */
  position?: string
  /** The answer's headers, lower-cased, without hop-by-hop and per-answer headers. */
  headers: Record<string, string>
  /** The answer's body as received (already decoded by nothing: the bytes the server sent). */
  body: Buffer
}

/** Sizes a store reports, for tests, the bench and the status page. */
export interface ForgeCacheSize {
  entries: number
  bytes: number
}

/**
 * Where cached answers live. Every method may reject (a store that is down, or `signal` aborted: an
 * aborted one changes nothing); the transport treats a failed `get` as a miss and a failed
 * `set`/`delete` as not stored, so a cache outage costs points, never a pass.
 */
export interface ForgeCacheStore {
  /** The entry for `key`, or undefined; marks it most recently used. */
  get(key: string, options?: StoreCallOptions): Promise<ForgeCacheEntry | undefined>
  /** Stores (replaces) the entry and evicts least-recently-used entries beyond the bounds. */
  set(entry: ForgeCacheEntry, options?: StoreCallOptions): Promise<void>
  /** Forgets `key` (a 404/410 answer: the resource is gone). */
  delete(key: string, options?: StoreCallOptions): Promise<void>
  /** Current entries and bytes held. */
  size(options?: StoreCallOptions): Promise<ForgeCacheSize>
}

/** Bounds shared by both twins. */
export interface ForgeCacheBounds {
  /** Bytes held at most (body + headers + key); 64 MiB by default. */
  maxBytes?: number
  /** Entries held at most; 10,000 by default. */
  maxEntries?: number
}

/** 64 MiB: the default of LEASECRON_FORGE_CACHE_MB. */
export const DEFAULT_FORGE_CACHE_BYTES = 64 * 1024 * 1024
/** Enough for every pull, status and issue page of a few hundred repositories. */
export const DEFAULT_FORGE_CACHE_ENTRIES = 10_000

/** Thrown for bounds that are not positive whole numbers. */
export class ForgeCacheBoundsError extends Error {
  override readonly name = 'ForgeCacheBoundsError'
  readonly code = 'FORGE_CACHE_BOUNDS_INVALID'
}

/** Validated bounds with defaults; throws ForgeCacheBoundsError naming the bad field. */
export function checkForgeCacheBounds(bounds: ForgeCacheBounds = {}): Required<ForgeCacheBounds> {
  const maxBytes = bounds.maxBytes ?? DEFAULT_FORGE_CACHE_BYTES
  const maxEntries = bounds.maxEntries ?? DEFAULT_FORGE_CACHE_ENTRIES
  for (const [name, value] of [
    ['maxBytes', maxBytes],
    ['maxEntries', maxEntries],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ForgeCacheBoundsError(
        `forge cache: ${name} is ${String(value)}; expected a whole number of at least 1`,
      )
    }
  }
  return { maxBytes, maxEntries }
}

/** The bytes an entry is charged: body, header names and values, key and validators. */
export function forgeCacheEntryBytes(entry: ForgeCacheEntry): number {
  let bytes = entry.body.byteLength + Buffer.byteLength(entry.key)
  for (const [name, value] of Object.entries(entry.headers)) bytes += name.length + value.length
  return bytes + (entry.etag?.length ?? 0) + (entry.lastModified?.length ?? 0) + (entry.position?.length ?? 0)
}

/**
 * The cache key of one GET: method, absolute URL (without its watermark parameter, if the caller named
 * one), Accept and installation — never the token.
 */
export function forgeCacheKey(parts: {
  method: string
  url: string
  accept: string | undefined
  installation: string
}): string {
  return `${parts.method} ${parts.url} accept=${parts.accept ?? '*/*'} inst=${parts.installation}`
}
