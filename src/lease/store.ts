/**
 * The lease store contract: a named lease that one owner holds until an expiry, in fenced terms.
 *
 * Every successful `acquire` starts a new term: a fresh random `token` and a `fence` strictly greater than
 * every fence that lease name had before in this store (whoever held it, also after a release and also when
 * the same owner acquires again). `renew` and `release` act only on the grant's own term, so a resent, late
 * or abandoned call of an earlier term never touches a later one. Work may write the fence beside what it
 * writes, so a later term's write is never overwritten by an earlier term's.
 *
 * A lease is still a load-reduction election, not mutual exclusion: clocks, a stalled holder and a store
 * round trip all bound how exclusive it is. The fence lets a downstream write refuse an older term; work
 * that must never run twice keeps a claim on the item itself (see the run ledger).
 *
 * Every instant is a UTC millisecond stamp supplied by the caller (`now`), so two stores with the same
 * calls give the same answers and tests need no real clock.
 */
import { StoreError } from '../store-call/store-error.js'

/** One term of a lease, as `acquire` granted it. Pass it back to `renew` and `release`. */
export interface LeaseGrant {
  name: string
  owner: string
  /** Random per term: tells this term from every other, also from the same owner's earlier ones. */
  token: string
  /** Strictly greater than every earlier term's fence of this lease name in this store. */
  fence: number
  /** The expiry the store holds right after this acquire (never earlier than an expiry it already had). */
  expiresAt: Date
  /**
   * The owner of the term before this one, when the store knew it (the previous term was held, expired or
   * released); undefined for a lease acquired for the first time.
   */
  previousHolder?: string
}

/** One lease as the store holds it, for `status` and diagnostics. */
export interface LeaseRecord {
  name: string
  /** The latest term's owner; undefined once that term was released (the lease is free). */
  owner: string | undefined
  /** The latest term's fence; kept when the lease is released, so the next term's is greater. */
  fence: number
  /**
   * The instant from which the lease is free for anyone (a lease whose expiry ≤ now is expired);
   * undefined once released.
   */
  expiresAt: Date | undefined
  /** The stamp of the latest acquire or renewal that extended it (the epoch when unreadable). */
  renewedAt: Date
  /**
   * What is wrong with the stored document, present only when it is malformed (a store other programs
   * can write to may hold one). Its unusable fields read as: `fence` 0, `expiresAt` undefined (a term
   * that cannot be proven held is not held), `owner` undefined when not a string.
   */
  corrupt?: string
}

/** Options every store call accepts. */
export interface LeaseCallOptions {
  /**
   * Bounds the call. A call whose signal is already aborted rejects and changes nothing; one aborted
   * in flight rejects at once, but its write may still land.
   */
  signal?: AbortSignal
}

/** Options of `get`. */
export interface LeaseReadOptions extends LeaseCallOptions {
  /**
   * How long the read may wait for other reads before it goes, in ms (a standby's read of a live holder's
   * lease can wait a moment; renewal-batch.ts sends the reads gathered so in one `getMany`). A store
   * itself ignores it. Absent or 0: at once.
   */
  gatherMs?: number
}

/** Options of `acquire`. */
export interface AcquireOptions extends LeaseCallOptions {
  /**
   * The new term's token, when the caller draws it (a fresh random string per attempt, at most 256
   * characters): a caller whose acquire got no answer can then release exactly the term it may have been
   * granted, never a later one. Drawn by the store (a random UUID) by default.
   */
  token?: string
}

/** What renew and release read of a grant: the term's identity. Every LeaseGrant is one. */
export type LeaseTerm = Pick<LeaseGrant, 'name' | 'owner' | 'token'>

/**
 * A store of named leases. Both twins (MemoryStore, MongoStore) give identical answers to identical calls.
 *
 * A rejection from any method means the answer did not arrive: the write may have landed, may land later,
 * or may never land. A caller whose acquire got no answer releases the term it may hold by the token it
 * drew (`AcquireOptions.token`); that release, like any renewal or release of an earlier term, can never
 * touch a later term. Expected outcomes are return values: losing an election is `false`, never an error.
 */
export interface LeaseStore {
  /**
   * Starts a new term of `name` for `owner` until `now + ttlMs` when the lease is absent, released, expired
   * at `now`, or already held by `owner` with no acquire or renewal stamped after `now`, and resolves its
   * grant. Resolves `false` when another owner holds it unexpired, and when `owner` holds it through a term
   * stamped later (a resent or late acquire must not end that newer term). Never moves an expiry backward.
   * Concurrent acquires of one absent lease give exactly one grant.
   *
   * A stored lease whose expiry is unusable (missing, not a date) is free: the new term writes a valid
   * expiry. One whose fence is unusable (not a number ≥ 0) resolves `false` for everyone, since no fence
   * can be proven greater than every earlier term's; `get` shows it `corrupt` until it is fixed.
   */
  acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: AcquireOptions,
  ): Promise<LeaseGrant | false>
  /**
   * Extends the lease to `now + ttlMs` only while the grant's term is the lease's latest and unreleased
   * (also when it is past its expiry and nobody took it) and resolves `true`; otherwise `false` and
   * nothing changes. Never creates or takes a lease. Never moves an expiry backward.
   */
  renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean>
  /**
   * Ends the grant's term: the lease becomes free at once and keeps its fence counter. A no-op when the
   * lease is absent, already released, or held by the same owner's newer term. Rejects with
   * `LeaseLostError` (naming the holder) and changes nothing when another owner holds the lease.
   */
  release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void>
  /**
   * `renew` for each of `grants` at one `now` and `ttlMs`, in one round trip where the store can: one
   * answer per grant, in the order given (a grant named twice gets its answer twice), each meaning what
   * `renew`'s does. A rejection means no answer arrived for any of them: each renewal may have landed or
   * not. Optional: a worker on a store without it renews each lease in a call of its own (renewal-batch.ts).
   */
  renewMany?(
    grants: readonly LeaseTerm[],
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean[]>
  /**
   * Every lease the store holds, expired, released or held, ordered by name; a store may stop at a bound
   * far above any deployment's leases (MongoStore: the first 10,000), so a flooded collection stays cheap.
   */
  list(options?: LeaseCallOptions): Promise<LeaseRecord[]>
  /**
   * One lease as `list` shows it (one cheap read by name), or undefined when the store never had it.
   * `gatherMs` lets a batching wrapper hold the read that long for others (renewal-batch.ts); a store
   * answers at once.
   */
  get(name: string, options?: LeaseReadOptions): Promise<LeaseRecord | undefined>
  /**
   * `get` for each of `names` in one read: one answer per name, in the order given (a name given twice is
   * answered twice). A rejection means no answer arrived for any of them. Optional: a worker on a store
   * without it reads each lease in a call of its own (renewal-batch.ts).
   */
  getMany?(names: readonly string[], options?: LeaseCallOptions): Promise<Array<LeaseRecord | undefined>>
  /**
   * Which of `names` an acquire at `now` could find free — absent, released, expired at `now`, or without
   * a usable expiry — in one read, in the order given (duplicates once). Optional: a worker on a store
   * without it tries every lease it does not hold each retry, as before. A lease it names may be taken by
   * the time the acquire lands (the acquire decides); one it leaves out may expire a moment later (the next
   * call finds it).
   */
  vacant?(names: readonly string[], now: Date, options?: LeaseCallOptions): Promise<string[]>
  /**
   * Each of `names` with the expiry of its current term, in one read, in the order given (duplicates once):
   * `undefined` when no term stands — absent, released, or without a usable expiry. An expiry at or
   * before the reader's now is a term that ended without a release: its holder stopped renewing (died,
   * or lost the store), unlike a step-down, which releases. Optional; the vacancy watch uses it to tell
   * an orphaned lease from a freed one and to know when a held one falls vacant if not renewed.
   */
  expiries?(names: readonly string[], options?: LeaseCallOptions): Promise<LeaseExpiry[]>
  /**
   * Leaves a notice on the lease for its holder — one write that changes nothing of the term (owner,
   * token, fence, expiry) — which the holder hears at its next renewal (`onNotice`): the operator's
   * controls call it after writing a net's controls, so a holder reads them when told, not every few
   * seconds. A no-op when the store never had the lease (no holder to tell; a new term reads the controls
   * when it starts). Optional, with `onNotice`: without them a worker polls its nets' controls.
   */
  notify?(name: string, options?: LeaseCallOptions): Promise<void>
  /**
   * Subscribes `listener` to notices: called with the lease's name when a grant or a renewal through this
   * store instance (`acquire`, `renew`, `renewMany`) finds its notice count other than the last one seen
   * through it, the first one seen included. In the same round trip as the grant or renewal where the
   * store can (the count rides on its answer). Returns the unsubscribe function. A throwing listener is
   * ignored.
   */
  onNotice?(listener: (name: string) => void): () => void
}

/** One lease's term expiry as `expiries` reads it. */
export interface LeaseExpiry {
  name: string
  /** When the current term expires unless renewed; undefined when no term stands (free). */
  expiresAt: Date | undefined
}

/** Which store call an error concerns. */
export type LeaseOperation =
  | 'acquire'
  | 'renew'
  | 'release'
  | 'list'
  | 'get'
  | 'vacant'
  | 'expiries'
  | 'notify'
  | 'announce'
  | 'live'
  | 'withdraw'
  | 'sweep'

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
export class LeaseStoreError extends StoreError {
  override readonly name = 'LeaseStoreError'
  declare readonly code: 'LEASE_INVALID_ARGUMENT' | 'LEASE_CALL_ABORTED' | 'LEASE_STORE_FAILED'
  declare readonly operation: LeaseOperation
  readonly lease: string | undefined
  readonly owner: string | undefined

  constructor(
    code: LeaseStoreError['code'],
    context: LeaseErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(code, { ...context, subject: leaseSubject(context) }, detail, options)
    this.lease = context.lease
    this.owner = context.owner
  }
}

/** `lease "a", owner "b"`: what a lease error concerns, as its message names it. */
function leaseSubject(context: LeaseErrorContext): string | undefined {
  const parts = [
    context.lease === undefined ? undefined : `lease "${context.lease}"`,
    context.owner === undefined ? undefined : `owner "${context.owner}"`,
  ].filter(Boolean)
  return parts.length > 0 ? parts.join(', ') : undefined
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

/** The validated, trimmed fields of a grant passed to renew or release. */
export interface GrantArgs {
  name: string
  owner: string
  token: string
}

/** Checks a grant's name, owner and token; throws LeaseStoreError naming what was expected. */
export function checkGrant(component: string, operation: 'renew' | 'release', grant: unknown): GrantArgs {
  const g: Partial<Record<keyof LeaseTerm, unknown>> =
    typeof grant === 'object' && grant !== null ? grant : {}
  const name = checkName(component, operation, g.name)
  const owner = checkOwner(component, operation, name, g.owner)
  return { name, owner, token: checkToken(component, operation, name, owner, g.token) }
}

/** Checks a term token: a non-empty string of at most 256 characters. */
export function checkToken(
  component: string,
  operation: LeaseOperation,
  lease: string,
  owner: string,
  token: unknown,
): string {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_OWNER_LENGTH) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation, lease, owner },
      `the term token must be a non-empty string of at most ${MAX_OWNER_LENGTH} characters, got ${shownValue(token)}`,
    )
  }
  return token
}

/**
 * Checks the arguments of renew and computes the stored expiry; throws LeaseStoreError (code
 * LEASE_INVALID_ARGUMENT) before anything is written.
 */
export function checkRenewal(
  component: string,
  grant: unknown,
  now: unknown,
  ttlMs: unknown,
): LeaseCallArgs & { token: string } {
  const g = checkGrant(component, 'renew', grant)
  return { ...checkTimedCall(component, 'renew', g.name, g.owner, now, ttlMs), token: g.token }
}

/** Checks vacant's names (each as `checkName`) and `now`; returns the trimmed names, duplicates once. */
export function checkVacancyCall(
  component: string,
  names: unknown,
  now: unknown,
): { names: string[]; nowMs: number } {
  const checked = checkNames(component, 'vacant', names)
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation: 'vacant' },
      `now must be a valid Date, got ${shownValue(now)}`,
    )
  }
  return { names: checked, nowMs: Math.trunc(now.getTime()) }
}

/** Checks a list of lease names (each as `checkName`); returns them trimmed, duplicates once. */
export function checkNames(
  component: string,
  operation: 'vacant' | 'expiries' | 'get',
  names: unknown,
): string[] {
  if (!Array.isArray(names)) {
    throw new LeaseStoreError(
      'LEASE_INVALID_ARGUMENT',
      { component, operation },
      `names must be an array of lease names, got ${shownValue(names)}`,
    )
  }
  return [...new Set(names.map((name: unknown) => checkName(component, operation, name)))]
}
