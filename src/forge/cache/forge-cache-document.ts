/**
 * A `forge_cache` document turned back into a ForgeCacheEntry — parsed, then inflated within a byte
 * limit. Anything can be in the collection (another version, a hand edit, an attacker with write access
 * to the store): a document of the wrong shape, a header set larger than the cache, or a body that
 * inflates past the limit (261 KB of zlib can hold 256 MiB of zeros) is a miss with a reason, never a
 * crash and never an allocation beyond the cache's own bound.
 *
 * Not the store (mongo-forge-cache-store.ts): it decides nothing about keeping or evicting.
 */
import { inflateSync } from 'node:zlib'
import * as z from 'zod'
import { type ForgeCacheEntry, forgeCacheEntryBytes } from './forge-cache-store.js'

/**
 * The driver hands a stored BinData back as its `Binary` (bytes in `.buffer`). Recognised by shape, not by
 * `instanceof`: an embedder's Db may come from another copy of the driver.
 */
const storedBytes = z.custom<Uint8Array | { buffer: Uint8Array }>(
  (value) =>
    value instanceof Uint8Array ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { _bsontype?: unknown })._bsontype === 'Binary' &&
      (value as { buffer?: unknown }).buffer instanceof Uint8Array),
  { message: 'expected binary data' },
)

/** What a `forge_cache` document must look like to be used (extra fields are ignored). */
const cacheDocument = z.object({
  _id: z.string(),
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  credential: z.string().optional(),
  position: z.string().optional(),
  headers: z.record(z.string(), z.string()),
  body: storedBytes,
  bytes: z.number().int().nonnegative(),
  usedAt: z.number(),
})

/** A usable entry, or why the document is not one (a miss: the caller drops it). */
export type ReadEntry = { ok: true; entry: ForgeCacheEntry } | { ok: false; reason: string }

/**
 * Parses `doc` and inflates its body. The entry may be charged (forgeCacheEntryBytes) at most the
 * smaller of `maxBytes` and the charge the document was written with, and the body is never inflated
 * past what is left of that: zlib stops at `maxOutputLength` instead of allocating the whole body.
 */
export function readForgeCacheDocument(doc: unknown, maxBytes: number): ReadEntry {
  const parsed = cacheDocument.safeParse(doc)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return { ok: false, reason: `malformed document: ${issue?.path.join('.') || '(root)'} ${issue?.message}` }
  }
  const { _id, headers, body, bytes, etag, lastModified, credential, position } = parsed.data
  const entry: ForgeCacheEntry = {
    key: _id,
    headers,
    body: Buffer.alloc(0),
    ...(etag === undefined ? {} : { etag }),
    ...(lastModified === undefined ? {} : { lastModified }),
    ...(credential === undefined ? {} : { credential }),
    ...(position === undefined ? {} : { position }),
  }
  const limit = Math.min(maxBytes, bytes)
  const budget = limit - forgeCacheEntryBytes(entry)
  if (budget < 0) return { ok: false, reason: `headers and key exceed ${limit} bytes` }
  const inflated = inflateWithin(body instanceof Uint8Array ? body : body.buffer, budget)
  if (!inflated.ok) return inflated
  return { ok: true, entry: { ...entry, body: inflated.body } }
}

function inflateWithin(
  compressed: Uint8Array,
  budget: number,
): { ok: true; body: Buffer } | { ok: false; reason: string } {
  try {
    // maxOutputLength must be at least 1; an empty body inflates to 0 bytes within it.
    const body = inflateSync(compressed, { maxOutputLength: Math.max(1, budget) })
    if (body.byteLength <= budget) return { ok: true, body }
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE') {
      return { ok: false, reason: `body is not zlib data (${(error as Error).message})` }
    }
  }
  return { ok: false, reason: `body inflates past the ${budget} bytes left within the cache's bound` }
}
