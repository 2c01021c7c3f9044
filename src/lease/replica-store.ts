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
 * An announcement is trusted only as far as the reader's clock: each announcement sets its expiry to the
 * announcer's now + ttl (the latest wins, so a clock set right replaces what it wrote while ahead), and a
 * reader that passes the announce ttl counts no announcement expiring later than its horizon — now +
 * LIVE_HORIZON_TTLS × ttl, and at least LIVE_HORIZON_MIN_MS — one stamped by a clock that far ahead of the
 * reader's would otherwise be counted (and its replica's share kept from the others) until its far expiry,
 * long after the replica died. The floor keeps a replica announcing with a longer interval than the
 * reader's (another net's retry) counted.
 *
 * It elects nothing and excludes nothing: a replica that counts one replica too many or too few campaigns
 * for a slightly wrong share until its next read; every lease is still won by conditional writes.
 */
import { checkReadCap } from '../store-call/read-cap.js'
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
   * setting its expiry — earlier or later: the latest announcement wins, so an expiry written while the
   * announcer's clock was ahead is replaced at its next announcement. Rejects (LeaseStoreError) when the
   * store does not answer: the announcement may or may not have landed.
   */
  announce(owner: string, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<void>
  /**
   * The owners whose announcement expires after `now`, sorted; `now` itself counts as expired. With
   * `ttlMs` (the announce ttl), an announcement expiring after the horizon (`now + max(LIVE_HORIZON_TTLS ×
   * ttlMs, LIVE_HORIZON_MIN_MS)`) is not counted either: its announcer's clock is that far ahead. At most
   * MAX_LIVE_REPLICAS owners (the first in that order): a read is bounded by count.
   */
  live(now: Date, options?: LiveOptions): Promise<string[]>
  /** Removes `owner`'s announcement (a clean stop: the others' share grows at once). A no-op when absent. */
  withdraw(owner: string, options?: LeaseCallOptions): Promise<void>
  /** Removes every announcement that expired at or before `before`; resolves how many it removed. */
  sweep(before: Date, options?: LeaseCallOptions): Promise<number>
}

/**
 * The most owners one `live` read answers, well above any real replica count: a collection flooded with
 * announcements (another program's, or by hand) costs one bounded read. At the cap the fair share is
 * computed from at most this many replicas plus the reader (share-keeper.ts): the same first owners for
 * every reader, whose shares still add up to every lease (rankedShare), so every lease has a replica that
 * wants it; the replicas past the cap rank last and want at most the ceiling a counted one gets.
 */
export const MAX_LIVE_REPLICAS = 1_000

/** A twin's `liveRead` option: the cap on one `live` read (MAX_LIVE_REPLICAS; smaller in tests), checked. */
export function checkLiveRead(component: string, liveRead: unknown): number {
  return checkReadCap(component, 'liveRead', liveRead, MAX_LIVE_REPLICAS)
}

/** `live`'s options: the call's signal, and the announce ttl that bounds how far ahead an expiry is believed. */
export interface LiveOptions extends LeaseCallOptions {
  /** The ttl the replicas announce with (ms, ≥ 1); no bound on how far ahead an expiry may be when absent. */
  ttlMs?: number
}

/**
 * How many announce ttls after the reader's now an expiry may lie and still be counted: one ttl is an
 * honest announcement, the second a margin for the announcer's clock being ahead (the clock guard holds
 * back a replica long before that, at the lease ttl/6).
 */
export const LIVE_HORIZON_TTLS = 2

/**
 * The nearest the horizon ever is (ms after now): replicas whose nets retry more slowly announce with a
 * longer ttl than the reader, and must still be counted; a clock a minute ahead is one the clock guard
 * has long held back (its announcement then lapses, see share-keeper.ts).
 */
export const LIVE_HORIZON_MIN_MS = 60_000

/**
 * Checks `live`'s `now` and `ttlMs`; returns now and the latest expiry counted as live (ms; Infinity
 * without a ttl). Throws LeaseStoreError naming what was expected.
 */
export function checkLive(
  component: string,
  now: unknown,
  ttlMs: unknown,
): { nowMs: number; horizonMs: number } {
  const context: LeaseErrorContext = { component, operation: 'live' }
  const nowMs = checkInstant(context, 'now', now)
  if (ttlMs === undefined) return { nowMs, horizonMs: Number.POSITIVE_INFINITY }
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 1)
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      context,
      `ttlMs must be a finite number of milliseconds ≥ 1 (the announce ttl), got ${String(ttlMs)}`,
    )
  return { nowMs, horizonMs: Math.trunc(nowMs + Math.max(LIVE_HORIZON_TTLS * ttlMs, LIVE_HORIZON_MIN_MS)) }
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
