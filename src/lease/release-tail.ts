/**
 * ReleaseTail: MongoStore's word that a lease was released, heard by every replica within about a second.
 * A clean release (a holder stopping, stepping down) appends one small event to a capped collection next
 * to the leases (`<collection>_releases`); each replica that has a standby waiting keeps one tailable,
 * awaiting cursor open on it and tells its listeners the lease's name. A standby then tries at once,
 * where it would otherwise wait for the expiry it last read (up to a TTL).
 *
 * It costs one `getMore` per await period (AWAIT_MS) per listening replica, and one insert per release.
 * It is a hint, never a grant: a listener is only told to go and look. Everything here is best effort: an
 * announcement that fails, a tail that errs or a store without capped collections leaves the standby on
 * its expiry, as before. A holder that dies announces nothing; its lease is taken at expiry.
 *
 * What it is not: a change stream (FerretDB has none; a tailable cursor on a capped collection works on
 * both MongoDB and FerretDB ≥ 1.18), nor an ordering of releases.
 *
 * Why the cursor asks for one document a batch: FerretDB closes a tailable cursor whose first batch came
 * back short of its batch size, so a larger batch over the few events kept would end the tail at once.
 */
import type { Db, FindCursor } from 'mongodb'
import { plainStoreError, StoreCollection, storeCommand } from '../store-call/store-call.js'
import { type Clock, systemClock } from './clock.js'
import { waitFor } from './wait.js'

/** How long one `getMore` waits on the server for an event: the tail's whole cost at rest. */
export const RELEASE_AWAIT_MS = 120_000
/** Pause before opening the tail again after it ended or failed (store down, collection dropped). */
const REOPEN_MS = 30_000
/** Events kept: a new tail reads them all once (one per round trip), so few. */
const KEPT = 8
/** An event older than this when a tail opens is an old release, not news. */
const STALE_MS = 5_000

/** The server's bound on creating the collection when a tail opens (no caller's bound applies there). */
const ENSURE_MS = 5_000

const COMPONENT = 'MongoStore'

interface ReleaseEvent {
  lease?: unknown
  at?: unknown
}

export interface ReleaseTailOptions {
  awaitMs?: number
  reopenMs?: number
  clock?: Clock
}

export class ReleaseTail {
  readonly #db: Db
  readonly #name: string
  readonly #events: StoreCollection<ReleaseEvent>
  readonly #listeners = new Set<(lease: string) => void>()
  readonly #awaitMs: number
  readonly #reopenMs: number
  readonly #clock: Clock
  #ensured: Promise<void> | undefined
  #stop: AbortController | undefined
  #cursor: FindCursor<ReleaseEvent> | undefined

  constructor(db: Db, leasesCollection: string, options: ReleaseTailOptions = {}) {
    this.#db = db
    this.#name = `${leasesCollection}_releases`
    this.#events = new StoreCollection<ReleaseEvent>(db, this.#name, { component: COMPONENT, majority: true })
    this.#awaitMs = options.awaitMs ?? RELEASE_AWAIT_MS
    this.#reopenMs = options.reopenMs ?? REOPEN_MS
    this.#clock = options.clock ?? systemClock
  }

  /**
   * Says `lease` was released: one insert, bounded on the server by `timeoutMs`. Never rejects (a standby
   * then waits for the expiry it read).
   */
  async announce(lease: string, timeoutMs: number): Promise<void> {
    try {
      await this.#ensure(timeoutMs)
      await this.#insert({ lease, at: this.#clock.now() }, timeoutMs)
    } catch {
      // Best effort by design (module doc): the release itself has landed.
    }
  }

  /** Tells `listener` each lease released from now on; the first listener opens the tail, the last closes it. */
  subscribe(listener: (lease: string) => void): () => void {
    this.#listeners.add(listener)
    if (!this.#stop) {
      const stop = new AbortController()
      this.#stop = stop
      void this.#follow(stop.signal)
    }
    return () => {
      this.#listeners.delete(listener)
      if (this.#listeners.size > 0 || !this.#stop) return
      this.#stop.abort()
      this.#stop = undefined
      void this.#cursor?.close().catch(() => undefined)
    }
  }

  #insert(event: ReleaseEvent, timeoutMs: number): Promise<unknown> {
    const error = plainStoreError({ component: COMPONENT, operation: 'announce release' })
    return this.#events.call({ timeoutMs, error }, (events, bounds) => events.insertOne(event, bounds.write))
  }

  /** Creates the capped collection once (with one event, so a tail on it is not dead from the start). */
  #ensure(timeoutMs = ENSURE_MS): Promise<void> {
    const create = {
      create: this.#name,
      capped: true,
      size: 64 * 1024,
      max: KEPT,
      maxTimeMS: timeoutMs,
      writeConcern: { w: 'majority', wtimeout: timeoutMs },
    }
    const error = plainStoreError({ component: COMPONENT, operation: 'create the releases collection' })
    this.#ensured ??= storeCommand(this.#db, create, { timeoutMs, error })
      .then(() => this.#insert({ at: this.#clock.now() }, timeoutMs))
      .then(
        () => undefined,
        (failure: unknown) => {
          // NamespaceExists: another replica (or an earlier run) made it.
          if ((failure as { cause?: { code?: unknown } })?.cause?.code === 48) return
          this.#ensured = undefined
          throw failure
        },
      )
    return this.#ensured
  }

  /** Keeps a tail open while `signal` stands, opening it again after a pause when it ends or fails. */
  async #follow(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.#ensure()
        await this.#read(signal)
      } catch {
        // The store is down or the cursor was killed: the standbys fall back on their expiry meanwhile.
      }
      if (!signal.aborted) await waitFor(this.#reopenMs, signal, this.#clock)
    }
  }

  /** One tail, until it ends, fails or `signal` aborts; its `find` bounded on the server, each getMore by the await. */
  async #read(signal: AbortSignal): Promise<void> {
    const openedAt = this.#clock.now().getTime()
    const error = plainStoreError({ component: COMPONENT, operation: 'tail the releases' })
    await this.#events.call({ error }, async (events, bounds) => {
      const cursor = events.find(
        {},
        { tailable: true, awaitData: true, maxAwaitTimeMS: this.#awaitMs, batchSize: 1, ...bounds.read },
      )
      this.#cursor = cursor
      try {
        for await (const event of cursor) {
          if (signal.aborted) return
          if (typeof event.lease !== 'string' || !(event.at instanceof Date)) continue
          if (event.at.getTime() < openedAt - STALE_MS) continue
          this.#tell(event.lease)
        }
      } finally {
        await cursor.close().catch(() => undefined)
      }
    })
  }

  #tell(lease: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(lease)
      } catch {
        // A listener's failure is its own; the others are still told.
      }
    }
  }
}
