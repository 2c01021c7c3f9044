/**
 * MemoryStore: the in-process twin of MongoStore, for single-process deployments and tests.
 *
 * It elects among the candidates of one process only: a second replica with its own MemoryStore elects
 * itself too. It answers exactly as MongoStore does (millisecond stamps, `$max` expiries, `false` for a
 * lost election), always on a later microtask, as a store across a network would.
 */
import {
  checkName,
  checkNotAborted,
  checkOwner,
  checkTimedCall,
  type LeaseCallOptions,
  LeaseLostError,
  type LeaseRecord,
  type LeaseStore,
} from './store.js'

const COMPONENT = 'MemoryStore'

interface Entry {
  owner: string
  expiresAtMs: number
  renewedAtMs: number
}

/** An in-memory LeaseStore; see the LeaseStore contract. */
export class MemoryStore implements LeaseStore {
  readonly #leases = new Map<string, Entry>()

  async acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean> {
    const call = checkTimedCall(COMPONENT, 'acquire', name, owner, now, ttlMs)
    await Promise.resolve()
    checkNotAborted(
      { component: COMPONENT, operation: 'acquire', lease: call.name, owner: call.owner },
      options?.signal,
    )
    const entry = this.#leases.get(call.name)
    if (entry && entry.owner !== call.owner && entry.expiresAtMs > call.nowMs) return false
    this.#leases.set(call.name, {
      owner: call.owner,
      expiresAtMs: Math.max(entry?.expiresAtMs ?? 0, call.expiresAtMs),
      renewedAtMs: Math.max(entry?.owner === call.owner ? entry.renewedAtMs : 0, call.nowMs),
    })
    return true
  }

  async renew(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: LeaseCallOptions,
  ): Promise<boolean> {
    const call = checkTimedCall(COMPONENT, 'renew', name, owner, now, ttlMs)
    await Promise.resolve()
    checkNotAborted(
      { component: COMPONENT, operation: 'renew', lease: call.name, owner: call.owner },
      options?.signal,
    )
    const entry = this.#leases.get(call.name)
    if (!entry || entry.owner !== call.owner) return false
    entry.expiresAtMs = Math.max(entry.expiresAtMs, call.expiresAtMs)
    entry.renewedAtMs = Math.max(entry.renewedAtMs, call.nowMs)
    return true
  }

  async release(name: string, owner: string, options?: LeaseCallOptions): Promise<void> {
    const lease = checkName(COMPONENT, 'release', name)
    const who = checkOwner(COMPONENT, 'release', lease, owner)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'release', lease, owner: who }, options?.signal)
    const entry = this.#leases.get(lease)
    if (!entry) return
    if (entry.owner !== who) {
      throw new LeaseLostError({
        component: COMPONENT,
        operation: 'release',
        lease,
        owner: who,
        holder: entry.owner,
      })
    }
    this.#leases.delete(lease)
  }

  async list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'list' }, options?.signal)
    return [...this.#leases.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, e]) => ({
        name,
        owner: e.owner,
        expiresAt: new Date(e.expiresAtMs),
        renewedAt: new Date(e.renewedAtMs),
      }))
  }
}
