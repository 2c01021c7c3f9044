/**
 * sharedSnapshot: one status snapshot shared by every reader for up to a second. `GET /` and `GET
 * /status` are unauthenticated, and the page refreshes itself every few seconds in every open tab: each
 * request collecting its own snapshot let any client turn requests into store reads at its own pace.
 * With this, a burst of any size costs one collection per second: requests that arrive while one is in
 * flight wait for it, and requests in the second after it get the same object.
 *
 * lru-cache does the coalescing and the expiry (`fetch` with a `fetchMethod` and a `ttl`), on the
 * worker's clock. What it is not: a cache of anything else, or a bound on one collection's time (each
 * status source bounds its own read; collect-status.ts turns a failed one into a note).
 */
import { LRUCache } from 'lru-cache'
import type { Clock } from '../lease/clock.js'
import type { StatusSnapshot } from './status-snapshot.js'

/** How long one snapshot is served after it was collected. */
export const SNAPSHOT_MAX_AGE_MS = 1_000

/** A reader of the shared snapshot, and a way to say the store changed under it. */
export interface SharedSnapshot {
  (): Promise<StatusSnapshot>
  /**
   * The next read collects again instead of serving the kept snapshot (an admin action just changed a
   * net's controls: the page reloading after its button must show it). A collection already in flight
   * is still shared.
   */
  invalidate(): void
}

/**
 * Returns a reader of the shared snapshot: a fresh one (at most `maxAgeMs` since its collection ended) or
 * the collection in flight. `collect` must not reject (collectStatus never does); if it does, the readers
 * waiting on it get the rejection and the next read collects again.
 */
export function sharedSnapshot(
  collect: () => Promise<StatusSnapshot>,
  clock: Clock,
  maxAgeMs = SNAPSHOT_MAX_AGE_MS,
): SharedSnapshot {
  const cache = new LRUCache<'snapshot', StatusSnapshot>({
    max: 1,
    ttl: maxAgeMs,
    // Monotonic: a wall-clock step (NTP) neither keeps a snapshot for ever nor expires it early. Plus one:
    // lru-cache reads a start of 0 as "no expiry", and a test clock may well start at 0.
    perf: { now: () => clock.monotonic() + 1 },
    // Read the clock on every check (lru-cache otherwise reuses one reading for a millisecond of real time).
    ttlResolution: 0,
    fetchMethod: () => collect(),
  })
  let invalidated = false
  const read = async () => {
    const forceRefresh = invalidated
    invalidated = false
    const snapshot = await cache.fetch('snapshot', { forceRefresh })
    if (!snapshot) throw new Error('status: the snapshot collection returned nothing')
    return snapshot
  }
  return Object.assign(read, {
    invalidate: () => {
      invalidated = true
    },
  })
}
