/**
 * The share keeper: this replica's side of the fair share (fair-share.ts). Every `intervalMs` it announces
 * the replica in the store and reads the live replicas (one upsert and one find), recomputes the share,
 * and steps down from terms above share + slack — the newest terms first, so the ones that have run
 * longest keep their state (stickiness within the share). Its campaigns ask it before each acquire:
 * held terms plus acquires in flight must stay under the share.
 *
 * A count read once moves no term: on a loaded store an announcement lands late and a replica drops out of
 * one read, or a restarted replica's old announcement is still live beside its new one. So it remembers the
 * counts of the last `WINDOW_READS` reads (one more than an announcement's life in reads): it campaigns
 * under the smaller share of the last two reads (a replica missing from one read does not open room), and
 * steps down only above the largest share of the window (the fewest replicas seen) plus the slack. A
 * replica that joined takes the others' excess once it was counted in every read of the window; a flicker
 * moves no term. A replica that died does not wait for its announcement to expire: its leases expire unreleased
 * (a step-down or a clean stop releases), and an orphaned lease may be campaigned for up to the share with
 * one replica fewer — so the survivors take a dead replica's leases within a retry of their expiry.
 *
 * No replica decides for another: each only holds back its own campaigns and ends its own terms, and every
 * lease still changes hands by the store's conditional writes. What it is not: a balance guarantee when
 * replicas run different nets (each divides its own lease count), nor exact while an announcement is
 * missing or stale (a share computed from a wrong count holds until the next read), nor a quick takeover
 * when several replicas die at once (the orphan allowance counts one replica fewer; the rest is taken once
 * their announcements have expired).
 */
import type { Clock } from '../lease/clock.js'
import type { ReplicaStore } from '../lease/replica-store.js'
import { waitFor } from '../lease/wait.js'
import type { ClockGuard } from './clock-guard.js'
import { fairShare, rankedShare, shareDecision } from './fair-share.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'

/** An announcement lives this many intervals: one missed beat does not make a replica dead. */
export const ANNOUNCEMENT_INTERVALS = 3
/** Reads a count must hold through before it moves a term: one more than a stale announcement is read. */
export const WINDOW_READS = ANNOUNCEMENT_INTERVALS + 1
/** Reads fewer replicas must be seen in before the share grows: one late announcement opens no room. */
export const CAMPAIGN_READS = 2
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
  /**
   * The clock guard: while it holds any of this replica's leases back (its clock off from the server's),
   * the replica does not announce — it campaigns for nothing it is held back from, and an announcement
   * stamped by a clock far ahead would be counted by the others long after it stopped.
   */
  clockGuard?: Pick<ClockGuard, 'heldBack'>
}

/** One campaign's hold on the share: ask before an acquire, say when it settled. */
export interface ShareGate {
  /**
   * Reserves a place for one acquire when held terms + acquires in flight are under the share — or, for an
   * `orphaned` lease (its term expired unreleased), under the share with one live replica fewer.
   */
  reserve(orphaned?: boolean): boolean
  /** The reserved acquire settled (elected or not); its place is a term now, or free again. */
  settled(): void
}

/** A term's place in the share: aborted when the term must step down; `ended` gives the place back. */
export interface TermShare {
  readonly stepDown: AbortSignal
  ended(): void
}

export class ShareKeeper {
  readonly #o: ShareKeeperOptions
  /** The live-replica counts of the last reads, oldest first (at most WINDOW_READS). */
  readonly #counts: number[] = []
  /**
   * The live replicas of each of those reads, oldest first: this replica's ranked share at each
   * (fair-share.ts, rankedShare) is computed on the lease count of now, which moves with the installations.
   */
  readonly #lives: string[][] = []
  /** The leases this replica campaigns for now (setLeases). */
  #leases: number
  #pending = 0
  /**
   * The terms being served, oldest first, each with the abort that ends it between passes, and the
   * read count until which it is spared by the rebalance (an orphan's; 0 for the others).
   */
  readonly #terms: Array<{ stepDown: AbortController; leaving: boolean; sparedUntil: number }> = []
  /** Successful reads so far: an orphan's term is spared for WINDOW_READS of them. */
  #reads = 0
  #read = false
  #onFirstRead: () => void = () => {}
  /** Resolves after the first read of the live replicas (pending while the store does not answer). */
  readonly firstRead: Promise<void>

  constructor(options: ShareKeeperOptions) {
    this.#o = options
    this.#leases = options.leases
    this.firstRead = new Promise((resolve) => {
      this.#onFirstRead = resolve
    })
  }

  /** The share it campaigns under: the smaller of its ranked shares at the last two reads (all leases before any). */
  get share(): number {
    return this.#lives.length === 0 ? this.#leases : Math.min(...this.#shares().slice(-CAMPAIGN_READS))
  }

  /** The share it steps down above (plus the slack): the largest of its ranked shares in the window. */
  get keep(): number {
    return this.#lives.length === 0 ? this.#leases : Math.max(...this.#shares())
  }

  /** The leases it divides: the nets it campaigns for now. */
  get leases(): number {
    return this.#leases
  }

  /**
   * The installations acted as changed (GITHUB_INSTALLATION_IDS=all): the share divides `leases` from now
   * on — more room for a new installation's campaigns, and a gone one's leases no longer counted. Steps
   * down at once from terms above the new kept share + slack.
   */
  setLeases(leases: number): void {
    if (!Number.isInteger(leases) || leases < 0)
      throw new RangeError(`ShareKeeper.setLeases: leases must be a whole number ≥ 0, got ${String(leases)}`)
    if (leases === this.#leases) return
    this.#o.log.info({ leases, was: this.#leases }, 'fair share: the leases campaigned for changed')
    this.#leases = leases
    this.#o.metrics.fairShare.set(this.share)
    this.#rebalance()
  }

  /** This replica's ranked share at each read of the window, on the lease count of now. */
  #shares(): number[] {
    return this.#lives.map((live) => rankedShare(this.#leases, live, this.#o.owner))
  }

  /** ⌈leases ÷ replicas⌉; before the first read (no count) this replica counts itself alone. */
  #shareWith(replicas: number): number {
    return fairShare(this.#leases, Number.isFinite(replicas) ? Math.max(1, replicas) : 1)
  }

  /** Whether the live replicas were read at least once. */
  get read(): boolean {
    return this.#read
  }

  readonly gate: ShareGate = {
    reserve: (orphaned = false) => {
      const share = orphaned
        ? Math.max(this.share, this.#shareWith(Math.max(...this.#counts.slice(-CAMPAIGN_READS)) - 1))
        : this.share
      if (!shareDecision(this.#claims(), share, this.#o.slack).campaign) return false
      this.#pending++
      return true
    },
    settled: () => {
      this.#pending = Math.max(0, this.#pending - 1)
    },
  }

  /**
   * A term began: the share keeper aborts the returned `stepDown` to end it between passes (the term's
   * serving listens; nothing is called back). Call `ended` once the term is over.
   *
   * An `orphaned` term (taken under the orphan allowance) is spared by the rebalance for WINDOW_READS reads:
   * the dead holder's announcement is still counted until it expires (ANNOUNCEMENT_INTERVALS), and until
   * then the kept share is the one with the dead replica. Without the spare, the survivor that took the
   * orphan stepped down from it at once and the lease waited another retry or two for a taker.
   */
  onTerm(orphaned = false): TermShare {
    const stepDown = new AbortController()
    const entry = { stepDown, leaving: false, sparedUntil: orphaned ? this.#reads + WINDOW_READS : 0 }
    this.#terms.push(entry)
    this.#rebalance()
    return {
      stepDown: stepDown.signal,
      ended: () => {
        const i = this.#terms.indexOf(entry)
        if (i >= 0) this.#terms.splice(i, 1)
      },
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
    const { store, owner, clock, intervalMs, log, metrics } = this.#o
    const leases = this.#leases
    try {
      if (!this.#o.clockGuard?.heldBack().length)
        await store.announce(owner, clock.now(), ANNOUNCEMENT_INTERVALS * intervalMs, { signal })
      // An announcement expiring far beyond its ttl was stamped by a clock ahead: not counted (replica-store.ts).
      const live = await store.live(clock.now(), { signal, ttlMs: ANNOUNCEMENT_INTERVALS * intervalMs })
      const replicas = Math.max(1, live.length + (live.includes(owner) ? 0 : 1))
      if (replicas !== this.#counts.at(-1))
        log.info(
          { liveReplicas: replicas, share: rankedShare(leases, live, owner), window: [...this.#counts] },
          'fair share: live replicas changed',
        )
      this.#counts.push(replicas)
      this.#lives.push(live)
      if (this.#counts.length > WINDOW_READS) this.#counts.shift()
      if (this.#lives.length > WINDOW_READS) this.#lives.shift()
      this.#read = true
      this.#reads++
      this.#onFirstRead()
      metrics.liveReplicas.set(replicas)
      metrics.fairShare.set(this.share)
      this.#rebalance()
      if (sweep) await store.sweep(new Date(clock.now().getTime() - SWEEP_AFTER_MS), { signal })
    } catch (error) {
      // The store does not answer: the last share stands (nobody is elected meanwhile anyway).
      if (!signal.aborted) log.debug({ err: error }, 'fair share: announcing or reading the replicas failed')
    }
  }

  /**
   * Steps down from the newest terms above the kept share + slack, to it (a term steps down once). Spared
   * orphans' terms count neither towards the holding nor as candidates until their spare ends.
   */
  #rebalance(): void {
    const serving = this.#terms.filter((t) => !t.leaving && t.sparedUntil <= this.#reads)
    const keep = this.keep
    const { stepDown } = shareDecision(serving.length, keep, this.#o.slack)
    if (stepDown === 0) return
    this.#o.log.info(
      { held: serving.length, share: keep, slack: this.#o.slack, steppingDown: stepDown },
      'fair share: holding more than the share, stepping down from the newest terms after their passes',
    )
    for (const term of serving.slice(-stepDown)) {
      term.leaving = true
      term.stepDown.abort()
    }
  }
}
