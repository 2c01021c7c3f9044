/**
 * The reconciler: one offer of one gating run. It re-reads the forge before it writes, so an offer
 * repeated (the next pass, another replica, a pass replayed after a crash) never does harm:
 *
 *   1. `GET /repos/{o}/{r}/pulls/{n}` — closed, merged, gone, or head moved away from the run's
 *      `headSha` → settle the run and stand down quietly.
 *   2. `GET /repos/{o}/{r}/commits/{sha}/status`, and find the run's gate context:
 *      - a real verdict (any status that is not this run's own pending claim) → settle; a verdict is
 *        never overwritten. When it is this run's synthetic failure, posted by an earlier offer that did
 *        not get to mark the run, the relaunch request is marked first.
 *      - absent, or still this run's own pending claim, while the run is dead (`failed`/`died`, or
 *        `running` with no update for `staleAfter`) → `POST /repos/{o}/{r}/statuses/{sha}` a `failure`
 *        (`review died (<reason>) — push again to re-run`, target `<PUBLIC_URL>/runs/<id>` when
 *        configured), then mark `relaunchRequestedAt` and settle the run: the forge accepted the failure,
 *        which is now the gate context's verdict, so no later offer needs to read it back (that read
 *        paid a rate-limit point per posted failure). A mark lost to a crash after the post is repaired
 *        by the next offer, which reads the failure and marks and settles the run without posting again.
 *      - otherwise the run is healthy → nothing.
 *
 * Not a claim and not exclusive: two reconcilers racing on one run may both post, and leave the same end
 * state (one failure verdict, the run marked). Not a scheduler: the sweeper decides what to offer.
 */
import type { ForgeOctokit } from '../../forge/client/github-app.js'
import type { GatingRun } from './gate-run.js'
import { describeError } from '../../store-call/describe-error.js'
import { GateRunError } from './gate-run-error.js'
import type { GateRunStore } from './gate-run-store.js'

const COMPONENT = 'reconciler'

/** What one offer did. */
export type OfferOutcome =
  /** The run was already settled; no request sent. */
  | 'already-settled'
  /** The pull request is closed, merged or gone, or its head moved: settled, nothing posted. */
  | 'settled-pull-closed'
  | 'settled-pull-merged'
  | 'settled-pull-gone'
  | 'settled-head-moved'
  /** A real verdict sits on the gate context: settled, never overwritten. */
  | 'settled-verdict'
  /** The run is dead and its claim unanswered: the synthetic failure was posted and a relaunch asked. */
  | 'posted-failure'
  /** The run is alive (or finished and its verdict is the review system's to post): nothing done. */
  | 'healthy'

/** The reconciler's configuration. */
export interface ReconcilerOptions {
  store: GateRunStore
  /** `PUBLIC_URL`; the synthetic failure links `<publicUrl>/runs/<id>` when set. */
  publicUrl?: string | undefined
  /** A `running` run silent this long (ms) is dead. */
  staleAfterMs: number
  /** The gate context of a run that names none. */
  defaultGateContext: string
}

/** What an offer needs from its pass. */
export interface OfferContext {
  forge: ForgeOctokit
  /** The offer's instant: staleness is judged and marks are stamped with it. */
  now: Date
  signal?: AbortSignal | undefined
}

/** The longest reason quoted in a synthetic failure's description. */
export const MAX_REASON_LENGTH = 60

interface CombinedStatus {
  statuses: Array<{ state: string; context: string; description: string | null; target_url: string | null }>
}

/** Offers gating runs to the forge; one instance serves a net for the life of the process. */
export class Reconciler {
  readonly #store: GateRunStore
  readonly #publicUrl: string | undefined
  readonly #staleAfterMs: number
  readonly #defaultGateContext: string

  /** Throws GateRunError `GATE_RUN_INVALID` for a non-positive staleAfterMs or a blank default context. */
  constructor(options: ReconcilerOptions) {
    const bad = (detail: string) =>
      new GateRunError('GATE_RUN_INVALID', { component: COMPONENT, operation: 'configure' }, detail)
    if (!Number.isFinite(options.staleAfterMs) || options.staleAfterMs < 1) {
      throw bad(`staleAfterMs must be a positive number of milliseconds, got ${String(options.staleAfterMs)}`)
    }
    if (typeof options.defaultGateContext !== 'string' || options.defaultGateContext.trim() === '') {
      throw bad('defaultGateContext must be a non-blank commit-status context')
    }
    this.#store = options.store
    this.#publicUrl = options.publicUrl?.trim().replace(/\/+$/, '') || undefined
    this.#staleAfterMs = options.staleAfterMs
    this.#defaultGateContext = options.defaultGateContext.trim()
  }

  /** The target URL of run `id`'s claim and synthetic failure; undefined without PUBLIC_URL. */
  runUrl(id: string): string | undefined {
    return this.#publicUrl === undefined ? undefined : `${this.#publicUrl}/runs/${encodeURIComponent(id)}`
  }

  /** The synthetic failure's description for `run` at `now` (≤ 140 characters, as GitHub allows). */
  failureDescription(run: GatingRun, now: Date): string {
    const reason = clip(run.reason ?? defaultReason(run, now, this.#staleAfterMs), MAX_REASON_LENGTH)
    return `review died (${reason}) — push again to re-run`
  }

  /** True when `run` is dead at `now`: failed, died, or running without an update for staleAfter. */
  isDead(run: GatingRun, now: Date): boolean {
    if (run.state === 'failed' || run.state === 'died') return true
    return run.state === 'running' && now.getTime() - run.updatedAt.getTime() >= this.#staleAfterMs
  }

  /**
   * Takes one offer of `run` (see the module doc for the steps) and resolves what it did. Sends two reads
   * and at most one write. Rejects with GateRunError `GATE_RUN_OFFER_FAILED` (operation `read-pull`,
   * `read-status` or `post-status`, the forge error as cause) when the forge does not answer as expected,
   * and with the store's error when a mark fails; nothing is retried here — the next pass offers again.
   */
  async offer(run: GatingRun, context: OfferContext): Promise<OfferOutcome> {
    if (run.settledAt !== undefined) return 'already-settled'
    const { forge, now, signal } = context
    const [owner, repo] = run.repo.split('/') as [string, string]
    const request = { signal }

    let pull: { state: string; merged?: boolean; merged_at?: string | null; head: { sha: string } }
    try {
      const answer = await forge.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner,
        repo,
        pull_number: run.pull,
        request,
      })
      pull = answer.data as typeof pull
    } catch (error) {
      // A pull request that is gone (deleted repository, lost access) has nothing left to gate.
      if (statusOf(error) === 404 || statusOf(error) === 410)
        return this.#settle(run, now, 'settled-pull-gone', request)
      throw this.#offerFailed(run, 'read-pull', error)
    }
    if (pull.merged === true || (pull.merged_at ?? null) !== null)
      return this.#settle(run, now, 'settled-pull-merged', request)
    if (pull.state !== 'open') return this.#settle(run, now, 'settled-pull-closed', request)
    if (pull.head.sha !== run.headSha) return this.#settle(run, now, 'settled-head-moved', request)

    const gateContext = run.gateContext ?? this.#defaultGateContext
    let combined: CombinedStatus
    try {
      const answer = await forge.request('GET /repos/{owner}/{repo}/commits/{ref}/status', {
        owner,
        repo,
        ref: run.headSha,
        per_page: 100,
        request,
      })
      combined = answer.data as CombinedStatus
    } catch (error) {
      throw this.#offerFailed(run, 'read-status', error)
    }
    const status = combined.statuses.find((s) => s.context === gateContext)
    if (status !== undefined && !this.#isOwnClaim(run, status)) {
      if (this.#isOwnFailure(run, status)) await this.#store.markRelaunchRequested(run.id, now, request)
      return this.#settle(run, now, 'settled-verdict', request)
    }
    if (!this.isDead(run, now)) return 'healthy'

    const targetUrl = this.runUrl(run.id)
    try {
      await forge.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
        owner,
        repo,
        sha: run.headSha,
        state: 'failure',
        context: gateContext,
        description: this.failureDescription(run, now),
        ...(targetUrl === undefined ? {} : { target_url: targetUrl }),
        request,
      })
    } catch (error) {
      throw this.#offerFailed(run, 'post-status', error)
    }
    await this.#store.markRelaunchRequested(run.id, now, request)
    await this.#store.markSettled(run.id, now, request)
    return 'posted-failure'
  }

  /**
   * This run's own pending claim: pending, with this run's target URL. Without PUBLIC_URL the URL is
   * unknown, so a pending status with no target or one ending in `/runs/<id>` counts as the claim.
   */
  #isOwnClaim(run: GatingRun, status: CombinedStatus['statuses'][number]): boolean {
    if (status.state !== 'pending') return false
    return this.#pointsAtRun(run, status.target_url)
  }

  /** This run's synthetic failure, posted by an earlier offer (this replica's or another's). */
  #isOwnFailure(run: GatingRun, status: CombinedStatus['statuses'][number]): boolean {
    return (
      status.state === 'failure' &&
      (status.description ?? '').startsWith('review died (') &&
      this.#pointsAtRun(run, status.target_url)
    )
  }

  #pointsAtRun(run: GatingRun, targetUrl: string | null): boolean {
    const own = this.runUrl(run.id)
    if (own !== undefined) return targetUrl === own
    return targetUrl === null || targetUrl === '' || targetUrl.endsWith(`/runs/${encodeURIComponent(run.id)}`)
  }

  async #settle(
    run: GatingRun,
    now: Date,
    outcome: OfferOutcome,
    call: { signal?: AbortSignal | undefined },
  ): Promise<OfferOutcome> {
    await this.#store.markSettled(run.id, now, call)
    return outcome
  }

  #offerFailed(run: GatingRun, operation: string, error: unknown): GateRunError {
    return new GateRunError(
      'GATE_RUN_OFFER_FAILED',
      { component: COMPONENT, operation, runId: run.id },
      `${run.repo}#${run.pull} at ${run.headSha.slice(0, 12)}: ${describeError(error)}`,
      { cause: error },
    )
  }
}

/** The HTTP status of an Octokit RequestError, or undefined. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : undefined
}

function defaultReason(run: GatingRun, now: Date, staleAfterMs: number): string {
  if (run.state !== 'running') return run.state
  const minutes = Math.floor((now.getTime() - run.updatedAt.getTime()) / 60_000)
  return `no word from the review for ${Math.max(minutes, Math.floor(staleAfterMs / 60_000))} min`
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const chars = [...flat]
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`
}
