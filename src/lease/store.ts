/**
 * The lease store contract: a named lease that one owner holds until an expiry.
 *
 * A lease here is a load-reduction election for nets that are already idempotent, not mutual exclusion:
 * clocks, a stalled holder and a store round trip all bound how exclusive it is. Work that must never run
 * twice keeps a claim on the item itself.
 *
 * Every instant is a UTC millisecond stamp supplied by the caller (`now`), so two stores with the same
 * calls give the same answers and tests need no real clock.
 */

/** One lease as the store holds it, for `status` and diagnostics. */
export interface LeaseRecord {
  name: string
  owner: string
  /** The instant from which the lease is free for anyone; a lease whose expiry ≤ now is expired. */
  expiresAt: Date
  /** The stamp of the latest acquire or renewal that extended it. */
  renewedAt: Date
}

/** Options every store call accepts. */
export interface LeaseCallOptions {
  /**
   * Bounds the call. A call whose signal is already aborted rejects and changes nothing; one aborted
   * in flight rejects at once, but its write may still land.
   */
  signal?: AbortSignal
}

/**
 * A store of named leases. Both twins (MemoryStore, MongoStore) give identical answers to identical calls.
 *
 * A rejection from any method means the answer did not arrive: the write may have landed, may land later,
 * or may never land. Callers that cannot tell must act as if they might hold the lease (release it).
 * Expected outcomes are return values: losing an election is `false`, never an error.
 */
export interface LeaseStore {
  /**
   * Takes `name` for `owner` until `now + ttlMs` when it is absent, expired at `now`, or already held by
   * `owner`, and resolves `true`. Resolves `false` when another owner holds it unexpired. Never moves an
   * expiry backward. Concurrent acquires of one free lease give exactly one `true`.
   */
  acquire(name: string, owner: string, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean>
  /**
   * Extends the lease to `now + ttlMs` only when `owner` holds it (also when it is past its expiry and
   * nobody took it) and resolves `true`; otherwise `false`. Never creates or takes a lease, so a renewal
   * landing after its holder released changes nothing. Never moves an expiry backward.
   */
  renew(name: string, owner: string, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean>
  /**
   * Gives the lease up when `owner` holds it. An absent lease is a no-op. Rejects with `LeaseLostError`
   * and changes nothing when another owner holds it.
   */
  release(name: string, owner: string, options?: LeaseCallOptions): Promise<void>
  /** Every lease the store holds, expired or not, ordered by name. */
  list(options?: LeaseCallOptions): Promise<LeaseRecord[]>
}

/** Which store call an error concerns. */
export type LeaseOperation = 'acquire' | 'renew' | 'release' | 'list'

/** Fields every lease error carries, so a log line names what failed where. */
export interface LeaseErrorContext {
  component: string
  operation: LeaseOperation
  lease?: string
  owner?: string
}

/** Raised by `release` when another owner holds the lease: the caller's term had already ended. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError'
  readonly code = 'LEASE_LOST'
  readonly component: string
  readonly operation: LeaseOperation
  readonly lease: string
  readonly owner: string
  /** The owner that holds the lease now, when the store could tell. */
  readonly holder: string | undefined

  constructor(context: LeaseErrorContext & { lease: string; owner: string; holder?: string }) {
    super(
      `${context.component}: ${context.operation} of lease "${context.lease}" by owner "${context.owner}" refused: ` +
        `it is held by ${context.holder ? `"${context.holder}"` : 'another owner'}`,
    )
    this.component = context.component
    this.operation = context.operation
    this.lease = context.lease
    this.owner = context.owner
    this.holder = context.holder
  }
}

/** A call that could not be made as asked: bad arguments, an aborted signal, or a store that did not answer. */
export class LeaseStoreError extends Error {
  override readonly name = 'LeaseStoreError'
  readonly code: 'LEASE_INVALID_ARGUMENT' | 'LEASE_CALL_ABORTED' | 'LEASE_STORE_FAILED'
  readonly component: string
  readonly operation: LeaseOperation
  readonly lease: string | undefined
  readonly owner: string | undefined

  constructor(
    code: LeaseStoreError['code'],
    context: LeaseErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    const subject = [
      context.lease === undefined ? undefined : `lease "${context.lease}"`,
      context.owner === undefined ? undefined : `owner "${context.owner}"`,
    ]
      .filter(Boolean)
      .join(', ')
    super(`${context.component}: ${context.operation}${subject ? ` (${subject})` : ''}: ${detail}`, options)
    this.code = code
    this.component = context.component
    this.operation = context.operation
    this.lease = context.lease
    this.owner = context.owner
  }
}

/** Longest lease name and owner accepted; anything longer is a mistake, not an identity. */
export const MAX_LEASE_NAME_LENGTH = 128
export const MAX_OWNER_LENGTH = 256

/** The validated, trimmed arguments of a store call. */
export interface LeaseCallArgs {
  name: string
  owner: string
  nowMs: number
  /** The stored expiry: truncate(now + ttlMs) in UTC milliseconds. */
  expiresAtMs: number
}

function shownValue(value: unknown): string {
  const text =
    typeof value === 'string'
      ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
      : String(value)
  return text
}

/** Trims and checks a lease name; throws LeaseStoreError naming what was expected. */
export function checkName(component: string, operation: LeaseOperation, name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : ''
  if (!trimmed || trimmed.length > MAX_LEASE_NAME_LENGTH) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation, lease: typeof name === 'string' ? name.slice(0, 40) : undefined },
      `lease name must be a non-blank string of at most ${MAX_LEASE_NAME_LENGTH} characters, got ${shownValue(name)}`,
    )
  }
  return trimmed
}

/** Trims and checks an owner; throws LeaseStoreError naming the lease and what was expected. */
export function checkOwner(
  component: string,
  operation: LeaseOperation,
  lease: string,
  owner: unknown,
): string {
  const trimmed = typeof owner === 'string' ? owner.trim() : ''
  if (!trimmed || trimmed.length > MAX_OWNER_LENGTH) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation, lease },
      `owner must be a non-blank string of at most ${MAX_OWNER_LENGTH} characters, got ${shownValue(owner)}`,
    )
  }
  return trimmed
}

/**
 * Checks the arguments of acquire/renew and computes the stored expiry. `ttlMs` must be finite and ≥ 1;
 * `now` a valid Date. Throws LeaseStoreError (code LEASE_INVALID_ARGUMENT) before anything is written.
 */
export function checkTimedCall(
  component: string,
  operation: 'acquire' | 'renew',
  name: unknown,
  owner: unknown,
  now: unknown,
  ttlMs: unknown,
): LeaseCallArgs {
  const lease = checkName(component, operation, name)
  const who = checkOwner(component, operation, lease, owner)
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation, lease, owner: who },
      `now must be a valid Date, got ${shownValue(now)}`,
    )
  }
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 1) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation, lease, owner: who },
      `ttlMs must be a finite number of milliseconds ≥ 1, got ${shownValue(ttlMs)}`,
    )
  }
  const nowMs = Math.trunc(now.getTime())
  return { name: lease, owner: who, nowMs, expiresAtMs: Math.trunc(nowMs + ttlMs) }
}

/** Rejects a call whose signal is already aborted, before it reaches the store. */
export function checkNotAborted(context: LeaseErrorContext, signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new LeaseStoreError('LEASE_CALL_ABORTED', context, 'the call was aborted before it was sent', {
      cause: signal.reason,
    })
  }
}
