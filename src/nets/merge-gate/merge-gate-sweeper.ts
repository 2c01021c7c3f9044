/**
 * The merge-gate sweeper net (lease `merge-gate-sweeper`, the first elected net): once a minute, the
 * elected replica offers recent unsettled gating runs to the reconciler, so a review that died without a
 * verdict gets a `failure` on its gate context and a relaunch request, whatever the replica count. Per
 * installation: under GITHUB_INSTALLATION_IDS each installation's sweeper (`merge-gate-sweeper:<id>`)
 * settles the runs naming it, through its own forge.
 *
 * This file is the declaration — options, stores, the term factory. The sweep is in `sweeper.ts`, one
 * offer in `reconciler.ts`. Without a database the net keeps a MemoryGateRunStore (one process elects
 * itself); pass `store` to `createMergeGateSweeper` to share one with an embedder or the demo.
 */
import { MERGE_GATE_SWEEPER_LEASE } from '../../leases.js'
import { describeError } from '../../store-call/describe-error.js'
import { defineNet, type PassContext } from '../net.js'
import { durationOption, integerOption, stringOption } from '../options.js'
import { GateRunError } from './gate-run-error.js'
import type { GateRunInstallationFilter, GateRunStore } from './gate-run-store.js'
import { MemoryGateRunStore } from './memory-gate-run-store.js'
import { MongoGateRunStore } from './mongo-gate-run-store.js'
import { Reconciler } from './reconciler.js'
import { type SweepReport, Sweeper } from './sweeper.js'

/** The net's name: its lane and `LEASECRON_NET_MERGE_GATE_SWEEPER_*`. */
export const MERGE_GATE_SWEEPER = 'merge-gate-sweeper'

/** The gate context a run without one is judged under, unless GATE_CONTEXT says otherwise. */
export const DEFAULT_GATE_CONTEXT = 'review/verdict'

/** The net's options, keyed by environment suffix. */
export const mergeGateSweeperOptions = {
  LOOKBACK: durationOption('60m', { min: 60_000 }),
  HORIZON: durationOption('192h', { min: 60_000 }),
  DEEP_EVERY: integerOption(30, { min: 1, max: 100_000 }),
  GRACE: durationOption('3m', { min: 0 }),
  STALE_AFTER: durationOption('30m', { min: 60_000 }),
  GATE_CONTEXT: stringOption(
    DEFAULT_GATE_CONTEXT,
    'a commit-status context of 1-255 characters',
    /^\S.{0,254}$/,
  ),
}

/** What setup builds once per process. */
export interface MergeGateSweeperResources {
  store: GateRunStore
  reconciler: Reconciler
  /** Invalid `gate_runs` documents already logged (each once per process). */
  invalidLogged: Set<string>
}

/** Overrides for `createMergeGateSweeper`. */
export interface MergeGateSweeperOverrides {
  /** Use this store instead of `gate_runs` in the worker's database (or a fresh memory twin). */
  store?: GateRunStore
}

/**
 * Declares the merge-gate sweeper net. Setup opens the gate-run store (`overrides.store`, else
 * MongoGateRunStore on the worker's database with its `sweep` index created, else a MemoryGateRunStore)
 * and the reconciler; each term builds a fresh Sweeper, whose first pass is deep.
 */
export function createMergeGateSweeper(overrides: MergeGateSweeperOverrides = {}) {
  return defineNet({
    name: MERGE_GATE_SWEEPER,
    lease: MERGE_GATE_SWEEPER_LEASE.name,
    // A 404 settles a run, so a sweep acting as the wrong installation would settle runs it cannot see:
    // each installation's sweeper settles only the runs naming it (and, as the primary installation,
    // those naming none), through its own forge.
    scope: 'installation',
    schedule: '* * * * *',
    description:
      'offers unsettled gating runs to the reconciler: a dead review without a verdict gets a failure status and a relaunch request',
    options: mergeGateSweeperOptions,
    async setup({ options, db, publicUrl, log }): Promise<MergeGateSweeperResources> {
      let store = overrides.store
      if (store === undefined && db !== undefined) {
        const mongo = new MongoGateRunStore(db)
        await mongo.ensureIndexes()
        store = mongo
      }
      if (store === undefined) {
        log.info({}, 'merge-gate sweeper: no database; gating runs live in this process only')
        store = new MemoryGateRunStore()
      }
      const reconciler = new Reconciler({
        store,
        publicUrl,
        staleAfterMs: options.STALE_AFTER,
        defaultGateContext: options.GATE_CONTEXT,
      })
      return { store, reconciler, invalidLogged: new Set() }
    },
    term(resources, { options }) {
      const sweeper = new Sweeper({
        store: resources.store,
        reconciler: resources.reconciler,
        invalidLogged: resources.invalidLogged,
        options: {
          lookbackMs: options.LOOKBACK,
          horizonMs: options.HORIZON,
          deepEvery: options.DEEP_EVERY,
          graceMs: options.GRACE,
        },
      })
      return async (pass) => {
        const report = await sweeper.pass({
          forge: pass.forge,
          now: pass.startedAt,
          signal: pass.signal,
          log: pass.log,
          installation: sweptInstallation(pass),
        })
        // The pass logger already carries the pass number; the first failure is on its own warn line.
        const { pass: _pass, firstFailure: _first, ...fields } = report
        pass.log.info(
          fields,
          `merge-gate sweep: ${report.deep ? 'deep' : 'shallow'}${report.resumed ? ' + resumed deep' : ''} pass ` +
            `offered ${report.offered} run(s) over ${report.pages} page(s)` +
            `${report.parked ? '; deep cursor parked' : ''}${report.stopped ? `; stopped (${report.stopped})` : ''}`,
        )
        const failure = sweepFailure(report)
        if (failure !== undefined) throw failure
      }
    },
  })
}

/**
 * Why a pass is recorded `failed`, or undefined when it is `ok`. A pass fails when it offered runs and not
 * one offer went through (each failed, or the first failure stopped the pass for the rate limit): it did
 * nothing, and status, the slot metrics and the alerts must see that. A pass where some offers failed and
 * others went through is `ok` — it made progress, its failed runs are offered again next pass, and each
 * failure has its own warn line — so one run that keeps failing does not mark every pass failed.
 */
export function sweepFailure(report: SweepReport): GateRunError | undefined {
  const first = report.firstFailure
  if (first === undefined || report.failed < report.offered) return undefined
  return new GateRunError(
    'GATE_RUN_SWEEP_FAILED',
    { component: 'merge-gate sweeper', operation: 'sweep', runId: first.runId },
    `all ${report.failed} offer(s) of the pass failed${report.stopped ? ` (stopped: ${report.stopped})` : ''}, ` +
      `so no run was settled; the next pass offers them again. First failure: ${describeError(first.error)}`,
    { cause: first.error },
  )
}

/**
 * Whose runs a pass sweeps: those naming its installation, and the runs naming none when it acts as the
 * primary installation (GITHUB_INSTALLATION_ID's, the first listed; nobody under `all`) or when the
 * worker names no primary one (a pass run outside a worker). Every run when it acts as no installation.
 */
export function sweptInstallation(
  pass: Pick<PassContext, 'installation' | 'primaryInstallation'>,
): GateRunInstallationFilter | undefined {
  if (pass.installation === undefined) return undefined
  const primary = pass.primaryInstallation
  return { id: pass.installation, unnamed: primary === undefined || primary === pass.installation }
}

/** The merge-gate sweeper with its default stores: what `worker.config.ts` lists. */
export const mergeGateSweeper = createMergeGateSweeper()
