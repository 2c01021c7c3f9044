/**
 * The replica store contract: each replica announces itself until an expiry, and every replica reads
 * which announcements are live — the count the fair share divides the leases by (fair-share.ts).
 *
 * Expiry is by comparing each announcement's `expiresAt` with the caller's `now` on read, never by the
 * server deleting documents: FerretDB has no TTL index, and a deleted announcement is no different from
 * an expired one to a reader. `sweep` removes long-expired ones, so the collection does not grow with every
 * replica that ever ran. Only a replica writes its own announcement, so a read-then-write update (FerretDB)
 * races with nobody.
 *
 * It elects nothing and excludes nothing: a replica that counts one replica too many or too few campaigns
 * for a slightly wrong share until its next read; every lease is still won by conditional writes.
 */
import {
  checkNotAborted,
  type LeaseCallOptions,
  type LeaseErrorContext,
  LeaseStoreError,
  MAX_OWNER_LENGTH,
} from './store.js'

/** A store of replica announcements. Both twins give identical answers to identical calls. */
export interface ReplicaStore {
  /**
   * Announces `owner` live until `now + ttlMs` (truncated to the millisecond), creating its announcement or
   * extending it; never moves an expiry backward (a late announcement cannot shorten a later one).
   * Rejects (LeaseStoreError) when the store does not answer: the announcement may or may not have landed.
   */
  announce(owner: string, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<void>
  /** The owners whose announcement expires after `now`, sorted; `now` itself counts as expired. */
  live(now: Date, options?: LeaseCallOptions): Promise<string[]>
  /** Removes `owner`'s announcement (a clean stop: the others' share grows at once). A no-op when absent. */
  withdraw(owner: string, options?: LeaseCallOptions): Promise<void>
  /** Removes every announcement that expired at or before `before`; resolves how many it removed. */
  sweep(before: Date, options?: LeaseCallOptions): Promise<number>
}

/** The validated arguments of `announce`. */
export interface AnnounceArgs {
  owner: string
  nowMs: number
  expiresAtMs: number
}

/** Trims and checks a replica's owner id (as lease owners are checked); throws naming what was expected. */
export function checkReplica(component: string, operation: 'announce' | 'withdraw', owner: unknown): string {
  const trimmed = typeof owner === 'string' ? owner.trim() : ''
  if (!trimmed || trimmed.length > MAX_OWNER_LENGTH) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation },
      `the replica's owner id must be a non-blank string of at most ${MAX_OWNER_LENGTH} characters, got ${typeof owner === 'string' ? JSON.stringify(owner.slice(0, 40)) : String(owner)}`,
    )
  }
  return trimmed
}

/** Checks `now` (a valid Date) and returns its truncated milliseconds; throws naming what was expected. */
export function checkInstant(context: LeaseErrorContext, name: string, now: unknown): number {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      context,
      `${name} must be a valid Date, got ${String(now)}`,
    )
  }
  return Math.trunc(now.getTime())
}

/** Checks announce's owner, `now` and `ttlMs` (finite, ≥ 1); throws LeaseStoreError before anything is sent. */
export function checkAnnounce(
  component: string,
  owner: unknown,
  now: unknown,
  ttlMs: unknown,
  signal: AbortSignal | undefined,
): AnnounceArgs {
  const who = checkReplica(component, 'announce', owner)
  const context: LeaseErrorContext = { component, operation: 'announce', owner: who }
  const nowMs = checkInstant(context, 'now', now)
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 1) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      context,
      `ttlMs must be a finite number of milliseconds ≥ 1, got ${String(ttlMs)}`,
    )
  }
  checkNotAborted(context, signal)
  return { owner: who, nowMs, expiresAtMs: Math.trunc(nowMs + ttlMs) }
}
