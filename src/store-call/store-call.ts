/**
 * The one way to call Mongo: every call a store twin (or the worker) makes to MongoDB goes through
 * `StoreCollection.call` or `storeCommand`, which bound it twice —
 * - on the server, by the driver's own limits: `maxTimeMS` on every call and, for a collection whose
 *   writes need a majority, `wtimeoutMS` in the write concern (the same bound), so an abandoned call cannot
 *   land minutes later and a replica set whose majority cannot acknowledge makes the call fail instead of
 *   hang;
 * - in this process, by the caller's abort signal: an aborted signal rejects before anything is sent; an
 *   abort in flight rejects at once while the driver call goes on (a write may still land — every store
 *   contract says so). The driver's own `signal` option is not used: it exists for reads only, and an abort
 *   while the driver reads closes the socket.
 * A failure becomes the store's own error (a StoreError subclass, see store-error.ts) naming the component,
 * the operation and the subject, with the driver's error as `cause` and described by describe-error.ts.
 *
 * The driver is imported for its types only: the twins above stay loadable without the driver, which the
 * worker loads when it connects (test/library/bundle-graph.test.ts). `scripts/check-store-calls.mjs`
 * (in `npm run check`) fails any `.collection(…)`/`.command(…)` call, or value import of `mongodb`,
 * outside this room, so no Mongo call bypasses it.
 *
 * Not a retry policy and not a connection: one call, one bound; the caller decides what an error means.
 */
import type { Collection, Db, Document, WriteConcernSettings } from 'mongodb'
import { describeError } from './describe-error.js'
import { StoreError, type StoreErrorContext } from './store-error.js'

/** A call's server-side bound unless the store or the call names another (ms). */
export const DEFAULT_CALL_TIMEOUT_MS = 5_000
/** The bound of index builds and whole-collection reads, which may scan every document (ms). */
export const LONG_CALL_TIMEOUT_MS = 60_000

/** Options every store call accepts. */
export interface StoreCallOptions {
  /** Bounds the call in this process; see the module doc. */
  signal?: AbortSignal | undefined
}

/**
 * The batch a find asks for: above every read this project makes, so its whole answer comes in the first
 * reply and no server cursor waits between round trips. On FerretDB 1.24 over PostgreSQL such a cursor
 * holds one of FerretDB's pool connections until its getMore; when as many cursors wait for their getMore
 * as the pool holds while the clients' own connections wait on that pool, nothing answers (bench
 * stand-in-pool). MongoDB still splits a reply past 16 MiB.
 */
export const FIND_BATCH = 100_000

/** The driver options that bound one call on the server: spread them into the driver call's options. */
export interface CallBounds {
  /** For reads, commands and index builds. */
  read: { maxTimeMS: number }
  /** For a find that may answer more than one default batch (101 documents): the read bound, one batch. */
  find: { maxTimeMS: number; batchSize: number }
  /** For writes: the same `maxTimeMS`, and the collection's majority write concern with `wtimeoutMS`. */
  write: { maxTimeMS: number; writeConcern?: WriteConcernSettings }
}

/** Builds the store's own error for a call that failed or was aborted (`cause`: the driver's error or the reason). */
export type StoreCallError = (kind: 'failed' | 'aborted', detail: string, cause: unknown) => Error

/** One call: its signal, its server-side bound and the error it fails with. */
export interface StoreCall extends StoreCallOptions {
  /** The server-side bound (ms, ≥ 1); the collection's by default. */
  timeoutMs?: number | undefined
  /** The store's own error; a plain StoreError (STORE_CALL_FAILED / STORE_CALL_ABORTED) by default. */
  error: StoreCallError
}

/** How a store opens one of its collections. */
export interface StoreCollectionOptions {
  /** The store, as its errors name it: `MongoStore`, `MongoRunLedger`… */
  component: string
  /** Writes wait for a majority of the replica set (bounded by `wtimeoutMS`); the client's default otherwise. */
  majority?: boolean
  /** The server-side bound of a call that names none (ms, whole, ≥ 1); 5000 by default. */
  callTimeoutMs?: number
}

/**
 * One collection of a store, reachable only through `call`. Throws a TypeError naming the component
 * when `db` is not a mongodb Db or the bound is not a whole number of ms ≥ 1.
 */
export class StoreCollection<Doc extends Document> {
  readonly name: string
  readonly component: string
  readonly callTimeoutMs: number
  readonly #collection: Collection<Doc>
  readonly #majority: boolean

  constructor(db: Db, name: string, options: StoreCollectionOptions) {
    const { component } = options
    if (!db || typeof db.collection !== 'function') {
      throw new TypeError(`${component}: expected a mongodb Db as its first argument`)
    }
    const timeout = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    if (!Number.isInteger(timeout) || timeout < 1) {
      throw new TypeError(
        `${component}: callTimeoutMs must be a whole number of ms ≥ 1, got ${String(timeout)}`,
      )
    }
    this.name = name
    this.component = component
    this.callTimeoutMs = timeout
    this.#majority = options.majority ?? false
    this.#collection = db.collection<Doc>(name)
  }

  /** Runs `op` on the collection with the call's bounds; see the module doc. */
  call<T>(call: StoreCall, op: (collection: Collection<Doc>, bounds: CallBounds) => Promise<T>): Promise<T> {
    const ms = call.timeoutMs ?? this.callTimeoutMs
    const bounds: CallBounds = {
      read: { maxTimeMS: ms },
      find: { maxTimeMS: ms, batchSize: FIND_BATCH },
      write: this.#majority
        ? { maxTimeMS: ms, writeConcern: { w: 'majority', wtimeoutMS: ms } }
        : { maxTimeMS: ms },
    }
    return boundedStoreCall(call, () => op(this.#collection, bounds))
  }
}

/**
 * A database command (`ping`, `buildInfo`) bounded by the driver's `timeoutMS` (which covers server
 * selection too: a command takes no `maxTimeMS` option) and the call's signal; resolves the answer.
 */
export function storeCommand(
  db: Db,
  command: Document,
  call: StoreCall & { timeoutMs: number },
): Promise<Document> {
  return boundedStoreCall(call, () => db.command(command, { timeoutMS: call.timeoutMs }))
}

/** The error of a store without its own error type: a plain StoreError. */
export function plainStoreError(context: StoreErrorContext): StoreCallError {
  return (kind, detail, cause) =>
    new StoreError(kind === 'failed' ? 'STORE_CALL_FAILED' : 'STORE_CALL_ABORTED', context, detail, {
      cause,
    })
}

/** Sends `op` unless the signal is aborted, and races its answer against the signal. */
async function boundedStoreCall<T>(call: StoreCall, op: () => Promise<T>): Promise<T> {
  const { signal } = call
  if (signal?.aborted) throw call.error('aborted', 'the call was aborted before it was sent', signal.reason)
  const pending = Promise.resolve()
    .then(op)
    .catch((error: unknown) => {
      throw call.error('failed', `the store did not answer: ${describeError(error)}`, error)
    })
  if (!signal) return pending
  pending.catch(() => undefined)
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(call.error('aborted', 'the call was aborted before its answer arrived', signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([pending, aborted])
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort)
  }
}
