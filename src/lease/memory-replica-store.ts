/**
 * MemoryReplicaStore: the in-process twin of MongoReplicaStore. A process alone on the memory store is
 * the only replica it can see, so its fair share is every lease; the twin exists for that and for tests.
 * It answers as MongoReplicaStore does (millisecond stamps, the latest announcement's expiry, the live
 * horizon), on a later microtask.
 */
import {
  type AnnounceArgs,
  checkAnnounce,
  checkInstant,
  checkLive,
  checkLiveRead,
  checkReplica,
  type LiveOptions,
  type ReplicaStore,
} from './replica-store.js'
import { checkNotAborted, type LeaseCallOptions } from './store.js'

const COMPONENT = 'MemoryReplicaStore'

/** An in-memory ReplicaStore; see the ReplicaStore contract. */
export class MemoryReplicaStore implements ReplicaStore {
  /** Expiry (ms) by owner. */
  readonly #expiries = new Map<string, number>()
  readonly #liveRead: number

  /** `liveRead`: the most owners one `live` answers (MAX_LIVE_REPLICAS; smaller in tests). */
  constructor(options: { liveRead?: number } = {}) {
    this.#liveRead = checkLiveRead(COMPONENT, options.liveRead)
  }

  async announce(owner: string, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<void> {
    const call: AnnounceArgs = checkAnnounce(COMPONENT, owner, now, ttlMs, options?.signal)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'announce', owner: call.owner }, options?.signal)
    this.#expiries.set(call.owner, call.expiresAtMs)
  }

  async live(now: Date, options?: LiveOptions): Promise<string[]> {
    const context = { component: COMPONENT, operation: 'live' as const }
    const { nowMs, horizonMs } = checkLive(COMPONENT, now, options?.ttlMs)
    await Promise.resolve()
    checkNotAborted(context, options?.signal)
    return [...this.#expiries]
      .filter(([, expiresAtMs]) => expiresAtMs > nowMs && expiresAtMs <= horizonMs)
      .map(([owner]) => owner)
      .sort()
      .slice(0, this.#liveRead)
  }

  async withdraw(owner: string, options?: LeaseCallOptions): Promise<void> {
    const who = checkReplica(COMPONENT, 'withdraw', owner)
    await Promise.resolve()
    checkNotAborted({ component: COMPONENT, operation: 'withdraw', owner: who }, options?.signal)
    this.#expiries.delete(who)
  }

  async sweep(before: Date, options?: LeaseCallOptions): Promise<number> {
    const context = { component: COMPONENT, operation: 'sweep' as const }
    const beforeMs = checkInstant(context, 'before', before)
    await Promise.resolve()
    checkNotAborted(context, options?.signal)
    let removed = 0
    for (const [owner, expiresAtMs] of this.#expiries) {
      if (expiresAtMs > beforeMs) continue
      this.#expiries.delete(owner)
      removed++
    }
    return removed
  }
}
