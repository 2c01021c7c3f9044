/**
 * The share keeper: this replica's side of the fair share (fair-share.ts). Every `intervalMs` it announces
 * the replica in the store and reads the live replicas (one upsert and one find), recomputes the share,
 * and steps down from terms above share + slack — the newest terms first, so the ones that have run
 * longest keep their state (stickiness within the share). Its campaigns ask it before each acquire:
 * held terms plus acquires in flight must stay under the share.
 *
 * No replica decides for another: each only holds back its own campaigns and ends its own terms, and every
 * lease still changes hands by the store's conditional writes. What it is not: a balance guarantee when
 * replicas run different nets (each divides its own lease count), nor exact while an announcement is
 * missing or stale (a share computed from a wrong count holds until the next read).
 */
import type { Clock } from '../lease/clock.js'
import type { ReplicaStore } from '../lease/replica-store.js'
import { waitFor } from '../lease/wait.js'
import { fairShare, shareDecision } from './fair-share.js'
import type { Logger } from './logger.js'
import type { WorkerMetrics } from './metrics.js'

/** An announcement lives this many intervals: one missed beat does not make a replica dead. */
export const ANNOUNCEMENT_INTERVALS = 3
/** Announcements expired longer ago than this are swept (FerretDB has no TTL index). */
const SWEEP_AFTER_MS = 60 * 60_000
/** One sweep per this many intervals: cheap, and the collection only grows with restarts. */
const SWEEP_EVERY = 60

export interface ShareKeeperOptions {
  store: ReplicaStore
  owner: string
  /** The leases this replica campaigns for (its elected nets). */
  leases: number
  slack: number
  intervalMs: number
  clock: Clock
  log: Logger
  metrics: WorkerMetrics
}

/** One campaign's hold on the share: ask before an acquire, say when it settled. */
export interface ShareGate {
  /** Reserves a place for one acquire when held terms + acquires in flight are under the share. */
  reserve(): boolean
  /** The reserved acquire settled (elected or not); its place is a term now, or free again. */
  settled(): void
}

export class ShareKeeper {
  readonly #o: ShareKeeperOptions
  #share: number
  #replicas = 1
  #pending = 0
  /** The terms being served, oldest first, each with the function that ends it between passes. */
  readonly #terms: Array<{ stepDown: () => void; leaving: boolean }> = []
  #read = false
  #onFirstRead: () => void = () => {}
  /** Resolves after the first read of the live replicas (pending while the store does not answer). */
  readonly firstRead: Promise<void>

  constructor(options: ShareKeeperOptions) {
    this.#o = options
    // Until the first read this replica counts itself alone: what every replica did before the share.
    this.#share = options.leases
    this.firstRead = new Promise((resolve) => {
      this.#onFirstRead = resolve
    })
  }

  /** The current share (⌈leases ÷ live replicas⌉). */
  get share(): number {
    return this.#share
  }

  /** Whether the live replicas were read at least once. */
  get read(): boolean {
    return this.#read
  }

  readonly gate: ShareGate = {
    reserve: () => {
      if (!shareDecision(this.#claims(), this.#share, this.#o.slack).campaign) return false
      this.#pending++
      return true
    },
    settled: () => {
      this.#pending = Math.max(0, this.#pending - 1)
    },
  }

  /** A term began; `stepDown` ends it between passes. Returns the function to call when it ended. */
  onTerm(stepDown: () => void): () => void {
    const entry = { stepDown, leaving: false }
    this.#terms.push(entry)
    this.#rebalance()
    return () => {
      const i = this.#terms.indexOf(entry)
      if (i >= 0) this.#terms.splice(i, 1)
    }
  }

  /** Announces and reads every interval until `signal` aborts, then withdraws. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    for (let beat = 0; !signal.aborted; beat++) {
      await this.#beat(signal, beat % SWEEP_EVERY === SWEEP_EVERY - 1)
      if (!(await waitFor(this.#o.intervalMs, signal, this.#o.clock))) break
    }
    // A clean stop: the others' share grows at their next read instead of after the expiry.
    await this.#o.store.withdraw(this.#o.owner, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined)
  }

  /** The terms held plus the acquires in flight. */
  #claims(): number {
    return this.#terms.filter((t) => !t.leaving).length + this.#pending
  }

  async #beat(signal: AbortSignal, sweep: boolean): Promise<void> {
    const { store, owner, clock, intervalMs, leases, log, metrics } = this.#o
    try {
      await store.announce(owner, clock.now(), ANNOUNCEMENT_INTERVALS * intervalMs, { signal })
      const live = await store.live(clock.now(), { signal })
      const replicas = Math.max(1, live.length + (live.includes(owner) ? 0 : 1))
      if (replicas !== this.#replicas || !this.#read)
        log.info(
          { liveReplicas: replicas, share: fairShare(leases, replicas) },
          'fair share: live replicas changed',
        )
      this.#replicas = replicas
      this.#share = fairShare(leases, replicas)
      this.#read = true
      this.#onFirstRead()
      metrics.liveReplicas.set(replicas)
      metrics.fairShare.set(this.#share)
      this.#rebalance()
      if (sweep) await store.sweep(new Date(clock.now().getTime() - SWEEP_AFTER_MS), { signal })
    } catch (error) {
      // The store does not answer: the last share stands (nobody is elected meanwhile anyway).
      if (!signal.aborted) log.debug({ err: error }, 'fair share: announcing or reading the replicas failed')
    }
  }

  /** Steps down from the newest terms above share + slack (a term steps down once). */
  #rebalance(): void {
    const serving = this.#terms.filter((t) => !t.leaving)
    const { stepDown } = shareDecision(serving.length, this.#share, this.#o.slack)
    if (stepDown === 0) return
    this.#o.log.info(
      { held: serving.length, share: this.#share, slack: this.#o.slack, steppingDown: stepDown },
      'fair share: holding more than the share, stepping down from the newest terms after their passes',
    )
    for (const term of serving.slice(-stepDown)) {
      term.leaving = true
      term.stepDown()
    }
  }
}
