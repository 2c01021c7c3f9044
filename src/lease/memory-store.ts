/**
 * MemoryStore: the in-process twin of MongoStore, for single-process deployments and tests.
 *
 * It elects among the candidates of one process only: a second replica with its own MemoryStore elects
 * itself too. It answers exactly as MongoStore does (millisecond stamps, `$max` expiries, fenced terms,
 * `false` for a lost election), always on a later microtask, as a store across a network would.
 */
import { randomUUID } from 'node:crypto'
import {
  type AcquireOptions,
  checkGrant,
  checkName,
  checkNotAborted,
  checkRenewal,
  checkTimedCall,
  checkToken,
  checkNames,
  checkVacancyCall,
  type LeaseCallOptions,
  type LeaseExpiry,
  type LeaseGrant,
  LeaseLostError,
  type LeaseRecord,
  type LeaseStore,
  type LeaseTerm,
} from './store.js'
import { NoticeBoard } from './notice-board.js'

const COMPONENT = 'MemoryStore'

interface Entry {
  /** The latest term's owner, kept after release (it names the previous holder to the next term). */
  owner: string
  /** The latest term's token; undefined once released. */
  token: string | undefined
  fence: number
  /** 0 once released: free for anyone. */
  expiresAtMs: number
  renewedAtMs: number
  /** Notices left for the holder (`notify`). */
  notice: number
}

/** An in-memory LeaseStore; see the LeaseStore contract. */
export class MemoryStore implements LeaseStore {
  readonly #leases = new Map<string, Entry>()
  readonly #notices = new NoticeBoard()

  async acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: AcquireOptions,
  ): Promise<LeaseGrant | false> {
    const call = checkTimedCall(COMPONENT, 'acquire', name, owner, now, ttlMs)
    const token =
      options?.token === undefined
        ? randomUUID()
        : checkToken(COMPONENT, 'acquire', call.name, call.owner, options.token)
    await Promise.resolve()
    checkNotAborted(
      { component: COMPONENT, operation: 'acquire', lease: call.name, owner: call.owner },
      options?.signal,
    )
    const entry = this.#leases.get(call.name)
    // Unexpired: only its owner may start a new term, and only with a stamp no older than the lease's latest
    // (a resent or late acquire must not end the owner's newer term).
    if (
      entry &&
      entry.expiresAtMs > call.nowMs &&
      (entry.owner !== call.owner || entry.renewedAtMs > call.nowMs)
    ) {
      return false
    }
    const next: Entry = {
      owner: call.owner,
      token,
      fence: (entry?.fence ?? 0) + 1,
      expiresAtMs: Math.max(entry?.expiresAtMs ?? 0, call.expiresAtMs),
      renewedAtMs: Math.max(entry?.renewedAtMs ?? 0, call.nowMs),
      notice: entry?.notice ?? 0,
    }
    this.#leases.set(call.name, next)
    this.#notices.heard(call.name, next.notice)
    return {
      name: call.name,
      owner: call.owner,
      token,
      fence: next.fence,
      expiresAt: new Date(next.expiresAtMs),
      ...(entry ? { previousHolder: entry.owner } : {}),
    }
  }

  async renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean> {
    const call = checkRenewal(COMPONENT, grant, now, ttlMs)
    await Promise.resolve()
    checkNotAborted(
      { component: COMPONENT, operation: 'renew', lease: call.name, owner: call.owner },
      options?.signal,
    )
    const entry = this.#leases.get(call.name)
    if (!entry || entry.owner !== call.owner || entry.token !== call.token) return false
    entry.expiresAtMs = Math.max(entry.expiresAtMs, call.expiresAtMs)
    entry.renewedAtMs = Math.max(entry.renewedAtMs, call.nowMs)
    this.#notices.heard(call.name, entry.notice)
    return true
  }

  async renewMany(
    grants: readonly LeaseTerm[],
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean[]> {
    // Every grant checked before any renews: a bad one rejects the call with nothing changed.
    for (const grant of grants) checkRenewal(COMPONENT, grant, now, ttlMs)
    const answers: boolean[] = []
    for (const grant of grants) answers.push(await this.renew(grant, now, ttlMs, options))
    return answers
  }

  async notify(name: string, options?: LeaseCallOptions): Promise<void> {
    const lease = checkName(COMPONENT, 'notify', name)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'notify', lease }, options?.signal)
    const entry = this.#leases.get(lease)
    if (entry) entry.notice += 1
  }

  onNotice(listener: (name: string) => void): () => void {
    return this.#notices.subscribe(listener)
  }

  async release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void> {
    const { name, owner, token } = checkGrant(COMPONENT, 'release', grant)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'release', lease: name, owner }, options?.signal)
    const entry = this.#leases.get(name)
    if (!entry || entry.token === undefined) return
    if (entry.token === token && entry.owner === owner) {
      entry.token = undefined
      entry.expiresAtMs = 0
      return
    }
    if (entry.owner !== owner) {
      throw new LeaseLostError({
        component: COMPONENT,
        operation: 'release',
        lease: name,
        owner,
        holder: entry.owner,
      })
    }
  }

  async list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'list' }, options?.signal)
    return [...this.#leases.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, e]) => record(name, e))
  }

  async get(name: string, options?: LeaseCallOptions): Promise<LeaseRecord | undefined> {
    const lease = checkName(COMPONENT, 'get', name)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'get', lease }, options?.signal)
    const entry = this.#leases.get(lease)
    return entry && record(lease, entry)
  }

  async getMany(
    names: readonly string[],
    options?: LeaseCallOptions,
  ): Promise<Array<LeaseRecord | undefined>> {
    checkNames(COMPONENT, 'get', names)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'get' }, options?.signal)
    return names.map((name) => {
      const lease = name.trim()
      const entry = this.#leases.get(lease)
      return entry && record(lease, entry)
    })
  }
  async vacant(names: readonly string[], now: Date, options?: LeaseCallOptions): Promise<string[]> {
    const call = checkVacancyCall(COMPONENT, names, now)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'vacant' }, options?.signal)
    return call.names.filter((name) => (this.#leases.get(name)?.expiresAtMs ?? 0) <= call.nowMs)
  }

  async expiries(names: readonly string[], options?: LeaseCallOptions): Promise<LeaseExpiry[]> {
    const checked = checkNames(COMPONENT, 'expiries', names)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'expiries' }, options?.signal)
    return checked.map((name) => {
      const entry = this.#leases.get(name)
      const standing = entry !== undefined && entry.token !== undefined
      return { name, expiresAt: standing ? new Date(entry.expiresAtMs) : undefined }
    })
  }
}

function record(name: string, e: Entry): LeaseRecord {
  const free = e.token === undefined
  return {
    name,
    owner: free ? undefined : e.owner,
    fence: e.fence,
    expiresAt: free ? undefined : new Date(e.expiresAtMs),
    renewedAt: new Date(e.renewedAtMs),
  }
}
