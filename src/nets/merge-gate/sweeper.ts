/**
 * The merge-gate sweeper: one lease term's worth of sweep passes. Each pass offers unsettled gating runs
 * to the reconciler, newest first, in pages of 200, at most 10 pages a pass:
 *
 * - a **shallow** pass offers the runs updated in [now − lookback (60 min), now − grace (3 min)];
 * - a **deep** pass reaches [now − horizon (192 h), now − grace]. The term's first pass is deep (a new
 *   term opens as a fresh start would), then every `deepEvery`th pass after it (1, 31, 61… for 30);
 * - a deep pass that runs out of its page budget **parks** its cursor; the next pass runs its shallow
 *   sweep first (fresh runs matter most) and resumes the parked deep sweep beside it with the pages left.
 *   A deep pass that comes due replaces a parked cursor: its own sweep covers everything that one would.
 *
 * Pages continue from the oldest `updatedAt` of the previous page (with the run id as tie-break, so runs
 * sharing an instant across a page boundary are neither lost nor offered twice); a run is offered at most
 * once a pass even where a resumed deep sweep overlaps the shallow one. The grace keeps the sweep off runs
 * the event path is still handling. The cursor and pass counter are this object's: a new term builds a new
 * Sweeper, so they are lost with the term and rebuilt deep by the next.
 *
 * Not the reconciler (it decides nothing about a run) and not a scheduler (the worker fires `pass`).
 */
import type { Logger } from '../../logger.js'
import type { ForgeOctokit } from '../../forge/client/github-app.js'
import { describeError } from '../../store-call/describe-error.js'
import type { GateRunCursor, GateRunInstallationFilter, GateRunStore } from './gate-run-store.js'
import type { GatingRun } from './gate-run.js'
import { type OfferOutcome, type Reconciler, statusOf } from './reconciler.js'

/** How a term sweeps. */
export interface SweepOptions {
  /** A shallow pass's reach, ms (60 min). */
  lookbackMs: number
  /** A deep pass's reach, ms (192 h). */
  horizonMs: number
  /** Deep on the term's first pass and every `deepEvery`th pass after it (30). */
  deepEvery: number
  /** Runs updated more recently than this (ms) are left to the event path (3 min). */
  graceMs: number
  /** Runs per page (200). */
  pageSize?: number
  /** Pages a pass may read, shallow and resumed deep together (10). */
  maxPages?: number
  /** Offers in flight at once within a page (4). */
  concurrency?: number
}

/** What a Sweeper is built from. */
export interface SweeperDeps {
  store: GateRunStore
  /** Takes one offer of a run: the Reconciler, in production. */
  reconciler: Pick<Reconciler, 'offer'>
  options: SweepOptions
  /**
   * Ids of invalid documents already logged, shared by the process's terms, so each is logged once;
   * every pass still counts them.
   */
  invalidLogged?: Set<string>
}

/** What a pass needs. */
export interface SweepPassContext {
  forge: ForgeOctokit
  /** The pass's instant: windows are measured from it and offers judge staleness at it. */
  now: Date
  signal?: AbortSignal | undefined
  log: Logger
  /** Whose runs the pass sweeps (the installation it acts as); every run when absent. */
  installation?: GateRunInstallationFilter | undefined
}

/** A parked deep sweep: its window and where it stopped. */
export interface ParkedDeepSweep {
  from: Date
  to: Date
  /** Continue after this run; from the top of the window when undefined. */
  after: GateRunCursor | undefined
}

/** What one pass did, logged by the net and returned for tests. */
export interface SweepReport {
  /** 1 for the term's first pass. */
  pass: number
  /** A deep sweep started on this pass. */
  deep: boolean
  /** A parked deep sweep was resumed beside the shallow one. */
  resumed: boolean
  /** A deep sweep is parked after this pass. */
  parked: boolean
  pages: number
  offered: number
  outcomes: Partial<Record<OfferOutcome, number>>
  /** Offers that failed (logged; the next pass offers again). */
  failed: number
  /** The first offer that failed and why: the cause a pass whose offers all failed is recorded with. */
  firstFailure: { runId: string; error: unknown } | undefined
  /** Documents skipped for failing schema validation. */
  invalid: number
  /** The pass stopped early: aborted, or the forge refused for its rate limit. */
  stopped: 'aborted' | 'rate-limited' | undefined
}

const DEFAULTS = { pageSize: 200, maxPages: 10, concurrency: 4 }
const MAX_INVALID_REMEMBERED = 10_000

interface Window {
  from: Date
  to: Date
  after: GateRunCursor | undefined
}

/** True when pass `passNumber` (1-based, within a term) is deep: the first, then every `deepEvery`th after it. */
export function isDeepPass(passNumber: number, deepEvery: number): boolean {
  return (passNumber - 1) % deepEvery === 0
}

/** One term of the sweep. Build a new one per lease term. */
export class Sweeper {
  readonly #store: GateRunStore
  readonly #reconciler: Pick<Reconciler, 'offer'>
  readonly #options: Required<SweepOptions>
  readonly #invalidLogged: Set<string>
  #passes = 0
  #parked: ParkedDeepSweep | undefined

  /** Throws RangeError naming the option when one is not a whole number ≥ 1 (grace ≥ 0), durations in ms. */
  constructor(deps: SweeperDeps) {
    const options = { ...DEFAULTS, ...deps.options }
    for (const [key, value] of Object.entries(options)) {
      const least = key === 'graceMs' ? 0 : 1
      if (!Number.isSafeInteger(value) || value < least) {
        throw new RangeError(
          `merge-gate sweeper: option ${key} must be a whole number ≥ ${least}, got ${String(value)}`,
        )
      }
    }
    if (options.graceMs >= options.lookbackMs) {
      throw new RangeError(
        'merge-gate sweeper: grace must be shorter than lookback, or a shallow window is empty',
      )
    }
    this.#store = deps.store
    this.#reconciler = deps.reconciler
    this.#options = options
    this.#invalidLogged = deps.invalidLogged ?? new Set()
  }

  /** Passes run so far in this term. */
  get passes(): number {
    return this.#passes
  }

  /** The parked deep sweep, if any (a copy). */
  get parked(): ParkedDeepSweep | undefined {
    return this.#parked === undefined ? undefined : { ...this.#parked }
  }

  /**
   * Runs the next pass of the term (see the module doc) and resolves its report. Offer failures are
   * counted and logged, never thrown; a rate-limit refusal or an aborted signal stops the pass early. A
   * store that cannot answer a page rejects (the worker logs the pass as failed; the term goes on), and
   * the pass still counts.
   */
  async pass(context: SweepPassContext): Promise<SweepReport> {
    const passNumber = ++this.#passes
    const { now } = context
    const { deepEvery, horizonMs, lookbackMs, graceMs, maxPages } = this.#options
    const to = new Date(now.getTime() - graceMs)
    const deep = isDeepPass(passNumber, deepEvery)
    const report: SweepReport = {
      pass: passNumber,
      deep,
      resumed: false,
      parked: false,
      pages: 0,
      offered: 0,
      outcomes: {},
      failed: 0,
      firstFailure: undefined,
      invalid: 0,
      stopped: undefined,
    }
    const offered = new Set<string>()
    if (deep) {
      const window = { from: new Date(now.getTime() - horizonMs), to, after: undefined }
      const left = await this.#sweep(window, maxPages, offered, report, context)
      this.#parked = left
    } else {
      const shallow = { from: new Date(now.getTime() - lookbackMs), to, after: undefined }
      await this.#sweep(shallow, maxPages, offered, report, context)
      const parked = this.#parked
      if (parked !== undefined && report.pages < maxPages && report.stopped === undefined) {
        report.resumed = true
        this.#parked = await this.#sweep(parked, maxPages - report.pages, offered, report, context)
      }
    }
    report.parked = this.#parked !== undefined
    return report
  }

  /**
   * Sweeps `window` for at most `budget` pages; resolves where it stopped when pages may remain (the
   * budget ran out, or the pass stopped), or undefined when the window is exhausted.
   */
  async #sweep(
    window: Window,
    budget: number,
    offered: Set<string>,
    report: SweepReport,
    context: SweepPassContext,
  ): Promise<Window | undefined> {
    let after = window.after
    for (let pages = 0; pages < budget; pages++) {
      if (context.signal?.aborted) report.stopped = 'aborted'
      if (report.stopped !== undefined) return { ...window, after }
      const page = await this.#store.page(
        {
          from: window.from,
          to: window.to,
          after,
          limit: this.#options.pageSize,
          installation: context.installation,
        },
        { signal: context.signal },
      )
      report.pages++
      report.invalid += page.invalid.length
      for (const bad of page.invalid) this.#logInvalid(bad.id, bad.problems, context.log)
      const fresh = page.runs.filter((run) => !offered.has(run.id))
      for (const run of fresh) offered.add(run.id)
      await this.#offerAll(fresh, report, context)
      // A stopped page is swept again next time: the cursor stays where the page began.
      if (report.stopped !== undefined) return { ...window, after }
      if (page.next === undefined) return undefined
      after = page.next
    }
    return { ...window, after }
  }

  async #offerAll(runs: GatingRun[], report: SweepReport, context: SweepPassContext): Promise<void> {
    let index = 0
    const worker = async () => {
      while (index < runs.length && report.stopped === undefined) {
        if (context.signal?.aborted) {
          report.stopped = 'aborted'
          return
        }
        const run = runs[index++]!
        report.offered++
        try {
          const outcome = await this.#reconciler.offer(run, {
            forge: context.forge,
            now: context.now,
            signal: context.signal,
          })
          report.outcomes[outcome] = (report.outcomes[outcome] ?? 0) + 1
          if (outcome === 'posted-failure') {
            context.log.info(
              { runId: run.id, repo: run.repo, pull: run.pull, headSha: run.headSha },
              'merge-gate sweep: posted the synthetic failure for a dead review and asked for a relaunch',
            )
          }
        } catch (error) {
          // Cut short by a stop or a lost term: not a failure, and the next pass offers the run again.
          if (context.signal?.aborted) {
            report.stopped = 'aborted'
            return
          }
          report.failed++
          report.firstFailure ??= { runId: run.id, error }
          const status = statusOf((error as { cause?: unknown }).cause)
          if (status === 429 || status === 403) report.stopped = 'rate-limited'
          context.log.warn(
            {
              runId: run.id,
              repo: run.repo,
              pull: run.pull,
              error: describeError(error),
              stopped: report.stopped,
            },
            'merge-gate sweep: an offer failed; the next pass offers the run again',
          )
        }
      }
    }
    const lanes = Math.min(this.#options.concurrency, runs.length)
    await Promise.all(Array.from({ length: lanes }, worker))
  }

  #logInvalid(id: string, problems: string, log: Logger): void {
    if (this.#invalidLogged.has(id)) return
    if (this.#invalidLogged.size >= MAX_INVALID_REMEMBERED) this.#invalidLogged.clear()
    this.#invalidLogged.add(id)
    log.warn(
      { runId: id, problems },
      'merge-gate sweep: skipping a gate_runs document that fails the gating-run schema (logged once)',
    )
  }
}
