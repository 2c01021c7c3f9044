/**
 * The forge cache: an undici interceptor that makes every GET the forge sends a conditional request.
 * It sends the validators of the last successful answer it kept for that method + URL + Accept +
 * installation (`If-None-Match` from the etag, else `If-Modified-Since` from last-modified); when the
 * server answers 304 it hands the caller the kept body as a 200 whose headers are the kept ones updated
 * from the 304 (rate-limit headers, date, etag). A 304 from GitHub costs no rate-limit point.
 *
 * It never serves a body without asking the server first — GitHub sends `Cache-Control: private,
 * max-age=60`, and a minute-old commit status could have a pass post a synthetic failure over a real
 * verdict — so it is a revalidation cache, never a freshness cache. Only 200 answers are kept (never an
 * error, redirect or partial answer); a 404/410 forgets the entry.
 *
 * Why our own interceptor and not undici 7's `interceptors.cache` (evaluated against undici 7.30's
 * lib/interceptor/cache.js and lib/cache/memory-cache-store.js):
 * - it keys by origin + path + the `Vary` headers, and GitHub varies on `Authorization`, so entries are
 *   keyed by token — lost at every hourly token rotation — and cannot be keyed by installation;
 * - a 304 that carries `Cache-Control` (GitHub's always do) deletes the entry, so every other GET would
 *   go out unconditional and pay a point; the served answer keeps the stored headers, not the 304's
 *   (stale `x-ratelimit-*` for Octokit's throttling), and gains `warning`/`age` headers;
 * - it stores heuristically cacheable error answers (404, 410, 501) and redirects;
 * - its MemoryCacheStore bounds count and bytes but evicts by halving every bucket, not LRU.
 * What it does do well (the 304 is visible to an inner interceptor) holds here too: this interceptor is
 * composed outside the metering one, so the meter sees and counts the 304 on the wire.
 *
 * Not a store (see forge-cache-store.ts and its twins) and not a retry layer.
 */
import { createHash } from 'node:crypto'
import type { Dispatcher } from 'undici'
import {
  DEFAULT_FORGE_CACHE_BYTES,
  type ForgeCacheEntry,
  type ForgeCacheStore,
  forgeCacheKey,
} from './forge-cache-store.js'
import { credentialKind } from '../meter/rate-limit-points.js'
import { stripHeader } from '../client/strip-header.js'
import { splitWatermark, WATERMARK_HEADER } from './watermark-parameter.js'

/** Options for `cachingInterceptor`. */
export interface ForgeCacheOptions {
  /** This process's store (usually a MemoryForgeCacheStore). */
  local: ForgeCacheStore
  /** The shared store (MongoForgeCacheStore) consulted on a local miss and written through; optional. */
  shared?: ForgeCacheStore
  /** The installation the forge authenticates as; requests with an installation token are keyed by it. */
  installationId: number
  /**
   * A 200 body past this many bytes is passed on without being recorded (the stores would refuse it, and
   * recording it would hold a second copy of it); the cache's byte bound, 64 MiB by default.
   */
  maxBodyBytes?: number
  /** Told when a store call failed; the request goes on uncached. Never told a token or body. */
  onStoreError?: (error: unknown, operation: 'get' | 'set' | 'delete') => void
}

type Headers = Record<string, string>
type IncomingHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2]

/** The interceptor and a way to wait for the store writes it started. */
export interface ForgeCache {
  /** Compose it outside the metering interceptor so the meter sees 304s. */
  interceptor: Dispatcher.DispatcherComposeInterceptor
  /** Resolves once every store write started so far has landed or failed (a short-lived process's exit). */
  settle(): Promise<void>
}

/** Builds the revalidating cache over the given stores. */
export function createForgeCache(options: ForgeCacheOptions): ForgeCache {
  const tiers = tieredStore(options)
  const limits = {
    installationId: options.installationId,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_FORGE_CACHE_BYTES,
  }
  return { interceptor: cachingInterceptor(tiers, limits), settle: () => tiers.settle() }
}

function cachingInterceptor(
  tiers: Tiers,
  { installationId, maxBodyBytes }: { installationId: number; maxBodyBytes: number },
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (given, handler) => {
    const { headers: unmarked, value: watermark } = stripHeader(given.headers, WATERMARK_HEADER)
    const opts = { ...given, headers: unmarked }
    const method = (opts.method ?? 'GET').toUpperCase()
    const headers = headerRecord(opts.headers)
    if (
      method !== 'GET' ||
      headers['if-none-match'] !== undefined ||
      headers['if-modified-since'] !== undefined
    ) {
      return dispatch(opts, handler)
    }
    // A watermarked list is one entry, keyed without its position (watermark-parameter.ts).
    const list = watermark === undefined ? undefined : splitWatermark(opts.path ?? '/', watermark)
    const key = forgeCacheKey({
      method,
      url: `${String(opts.origin ?? '')}${list?.path ?? opts.path ?? '/'}`,
      accept: headers.accept,
      installation: credentialOf(headers.authorization, installationId),
    })
    const credential = fingerprint(headers.authorization)
    const request = { key, credential, maxBodyBytes, position: list?.position }
    void tiers.get(key).then(
      (kept) => {
        // Another position's answer says nothing about this one's: a miss, and this answer replaces it.
        const entry = kept?.position === request.position ? kept : undefined
        const sent = { ...opts, headers: { ...headers, ...validatorsOf(entry, credential) } }
        dispatch(sent, new RevalidatingHandler(handler, request, entry, tiers))
      },
      (error: unknown) => handler.onResponseError?.(idleController(), asError(error)),
    )
    return true
  }
}

/** `inst:<id>` for an installation token, `app` for the App's JWT, `anonymous` without credentials. */
function credentialOf(authorization: string | undefined, installationId: number): string {
  const kind = credentialKind(authorization)
  return kind === 'installation' ? `inst:${installationId}` : kind === 'app' ? 'app' : 'anonymous'
}

/** A truncated SHA-256 of the Authorization header: tells tokens apart without keeping one. */
function fingerprint(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined
  return createHash('sha256').update(authorization).digest('hex').slice(0, 16)
}

/**
 * The etag when the entry came to this credential (or has no date to fall back on); else the date,
 * because an etag may not survive a token rotation (the sandbox's `etagPerToken` assumes it does not)
 * while a last-modified date does. A server given both must ignore the date (RFC 9110 §13.1.3).
 */
function validatorsOf(entry: ForgeCacheEntry | undefined, credential: string | undefined): Headers {
  const sameCredential = entry?.credential === credential
  if (entry?.etag !== undefined && (sameCredential || entry.lastModified === undefined)) {
    return { 'if-none-match': entry.etag }
  }
  if (entry?.lastModified !== undefined) return { 'if-modified-since': entry.lastModified }
  return {}
}

interface Tiers {
  get(key: string): Promise<ForgeCacheEntry | undefined>
  /** `local` only: a 304 with unchanged validators refreshes headers here, sparing the shared store a write. */
  set(entry: ForgeCacheEntry, where?: 'both' | 'local'): void
  delete(key: string): void
  settle(): Promise<void>
}

/** Local first, then shared (filling local); writes go to both. Store failures degrade to a miss. */
function tieredStore({ local, shared, onStoreError }: ForgeCacheOptions): Tiers {
  const report = (operation: 'get' | 'set' | 'delete') => (error: unknown) => {
    onStoreError?.(error, operation)
    return undefined
  }
  const pending = new Set<Promise<unknown>>()
  const track = (write: Promise<unknown>) => {
    pending.add(write)
    void write.finally(() => pending.delete(write))
  }
  return {
    async settle() {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
    async get(key) {
      const near = await local.get(key).catch(report('get'))
      if (near !== undefined || shared === undefined) return near
      const far = await shared.get(key).catch(report('get'))
      if (far !== undefined) await local.set(far).catch(report('set'))
      return far
    },
    set(entry, where = 'both') {
      track(local.set(entry).catch(report('set')))
      if (where === 'both' && shared !== undefined) track(shared.set(entry).catch(report('set')))
    },
    delete(key) {
      track(local.delete(key).catch(report('delete')))
      if (shared !== undefined) track(shared.delete(key).catch(report('delete')))
    },
  }
}

// Headers that describe one transfer, not the resource: never kept, never replayed.
const PER_ANSWER = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'age'])
// What a 304 may not change about the kept body (RFC 9111 §4.3.4 updates the rest).
const BODY_BOUND = new Set([...PER_ANSWER, 'content-encoding', 'content-type', 'content-range'])

/**
 * Wraps the caller's handler: a 304 for a kept entry becomes a 200 with the kept body; a 200 with a
 * validator is passed on while its bytes are kept; anything else passes untouched.
 */
class RevalidatingHandler implements Dispatcher.DispatchHandler {
  #mode: 'pass' | 'replay' | 'record' = 'pass'
  #chunks: Buffer[] = []
  #recorded = 0
  #kept: ForgeCacheEntry | undefined

  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly request: CacheRequest,
    private readonly entry: ForgeCacheEntry | undefined,
    private readonly tiers: Tiers,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.inner.onRequestStart?.(controller, context)
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHeaders,
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3],
  ): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket)
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHeaders,
    statusMessage?: string,
  ): void {
    const answered = flatHeaders(headers)
    if (statusCode === 304 && this.entry !== undefined) {
      this.#mode = 'replay'
      this.#kept = refreshed(this.entry, answered, this.request.credential)
      const replayed = { ...this.#kept.headers, 'content-length': String(this.#kept.body.byteLength) }
      this.inner.onResponseStart?.(controller, 200, replayed, 'OK')
      return
    }
    if (statusCode === 200 && (answered.etag !== undefined || answered['last-modified'] !== undefined)) {
      this.#mode = noStore(answered) ? 'pass' : 'record'
      this.#kept = entryOf(this.request, answered)
    } else if (statusCode === 404 || statusCode === 410) {
      this.tiers.delete(this.request.key)
    }
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage)
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#mode === 'replay') return // a 304 has no body; the kept one is sent at the end
    if (this.#mode === 'record') this.#record(chunk)
    this.inner.onResponseData?.(controller, chunk)
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHeaders): void {
    if (this.#mode === 'replay' && this.#kept !== undefined && this.entry !== undefined) {
      const { etag, lastModified, credential } = this.#kept
      const moved =
        etag !== this.entry.etag ||
        lastModified !== this.entry.lastModified ||
        credential !== this.entry.credential
      this.tiers.set(this.#kept, moved ? 'both' : 'local')
      if (this.#kept.body.byteLength > 0) this.inner.onResponseData?.(controller, this.#kept.body)
    } else if (this.#mode === 'record' && this.#kept !== undefined) {
      this.tiers.set({ ...this.#kept, body: Buffer.concat(this.#chunks) })
    }
    this.inner.onResponseEnd?.(controller, trailers)
  }

  /** Keeps the chunk, unless the body passed the bound: then nothing is kept and the older entry is forgotten. */
  #record(chunk: Buffer): void {
    this.#recorded += chunk.byteLength
    if (this.#recorded <= this.request.maxBodyBytes) {
      this.#chunks.push(chunk)
      return
    }
    this.#mode = 'pass'
    this.#chunks = []
    this.tiers.delete(this.request.key)
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#chunks = [] // a cut-off answer is never kept
    this.inner.onResponseError?.(controller, error)
  }
}

/** What the handler knows of the request: its key, its credential's fingerprint, its list position. */
interface CacheRequest {
  key: string
  credential: string | undefined
  maxBodyBytes: number
  /** The watermark's value, for a request that named one (watermark-parameter.ts). */
  position: string | undefined
}

function entryOf(request: CacheRequest, answered: Headers): ForgeCacheEntry {
  const headers: Headers = {}
  for (const [name, value] of Object.entries(answered)) if (!PER_ANSWER.has(name)) headers[name] = value
  return {
    key: request.key,
    headers,
    ...(request.credential === undefined ? {} : { credential: request.credential }),
    ...(request.position === undefined ? {} : { position: request.position }),
    body: Buffer.alloc(0),
    ...(answered.etag === undefined ? {} : { etag: answered.etag }),
    ...(answered['last-modified'] === undefined ? {} : { lastModified: answered['last-modified'] }),
  }
}

/** The kept entry with the 304's headers applied (its etag too, if it sent one). */
function refreshed(
  entry: ForgeCacheEntry,
  answered: Headers,
  credential: string | undefined,
): ForgeCacheEntry {
  const headers = { ...entry.headers }
  for (const [name, value] of Object.entries(answered)) if (!BODY_BOUND.has(name)) headers[name] = value
  // The 304 was an answer to this credential: if it sent an etag, that etag is this credential's now.
  const adopt = credential !== undefined && answered.etag !== undefined
  return {
    ...entry,
    headers,
    ...(adopt ? { credential } : {}),
    ...(answered.etag === undefined ? {} : { etag: answered.etag }),
    ...(answered['last-modified'] === undefined ? {} : { lastModified: answered['last-modified'] }),
  }
}

function noStore(headers: Headers): boolean {
  return /(?:^|,)\s*no-store\s*(?:,|$)/i.test(headers['cache-control'] ?? '')
}

/** Response headers as one lower-case string per name (repeated values joined as HTTP allows). */
function flatHeaders(headers: IncomingHeaders): Headers {
  const flat: Headers = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return flat
}

/** Request headers in any of undici's shapes as a lower-case record (the last value of a name wins). */
export function headerRecord(headers: Dispatcher.DispatchOptions['headers']): Headers {
  const record: Headers = {}
  const put = (name: unknown, value: unknown) => {
    if (typeof name === 'string' && value !== undefined && value !== null) {
      record[name.toLowerCase()] = Array.isArray(value) ? value.map(String).join(', ') : String(value)
    }
  }
  if (headers == null) return record
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown[]) put((pair as unknown[])[0], (pair as unknown[])[1])
    } else for (let i = 0; i < headers.length; i += 2) put(headers[i], headers[i + 1])
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const pair of headers as Iterable<[string, string]>) put(pair[0], pair[1])
  } else for (const [name, value] of Object.entries(headers)) put(name, value)
  return record
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

/** A controller for failing a request that never reached the wire. */
function idleController(): Dispatcher.DispatchController {
  return {
    aborted: false,
    paused: false,
    reason: null,
    abort() {},
    pause() {},
    resume() {},
  }
}
