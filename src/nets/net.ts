/**
 * The net contract: an idempotent periodic job, declared once and built afresh for every lease term.
 *
 * A net is not a lease and not a scheduler: the worker elects one replica per net through the net's
 * lease and fires its passes on its schedule inside the term. The net only says what one pass does and
 * what state a term keeps (a cursor, a pass counter), which the `term` factory closes over: a new term
 * rebuilds it, so every term opens as a fresh start would.
 */
import type { Db } from 'mongodb'
import type { ForgeOctokit } from '../forge/client/github-app.js'
import type { NetOption } from './options.js'
import type { Logger } from '../logger.js'
import type { RunOutcome } from '../runs/run-ledger.js'

/** What one pass receives. */
export interface PassContext {
  /** Aborted when the term ends or the worker stops: stop sending requests, return soon. */
  signal: AbortSignal
  log: Logger
  /** The installation client; every request made during the pass is charged to the net's lane. */
  forge: ForgeOctokit
  /** The installation the pass acts as (its forge's); absent where no installation is known (tests). */
  installation?: number
  /**
   * The installation the worker's global nets act as — GITHUB_INSTALLATION_ID's, the first of
   * GITHUB_INSTALLATION_IDS — `null` under `GITHUB_INSTALLATION_IDS=all` (no installation is first);
   * absent where the worker does not say (tests, the sandbox forge). A per-installation net uses it to
   * decide who owns the work that names no installation.
   */
  primaryInstallation?: number | null
  /** 1 for the term's first pass. */
  pass: number
  /**
   * The fence of the term running the pass: strictly greater than every earlier term's of this lease. A net
   * may store it on what a pass writes and refuse to overwrite a later fence's write with an earlier one's.
   */
  fence: number
  /**
   * The schedule instant this pass serves (its scheduled instant: a JITTER offset moves the start, never
   * the slot); the run ledger let exactly one pass claim it. A manual run's: when it was asked for.
   */
  slot: Date
  /** The pass's start instant (the wall clock the worker was given). */
  startedAt: Date
  /** The worker's wall clock; nets read time only through it. */
  now(): Date
  /**
   * Why the slot runs: `tick` (its schedule fired: the worker's tick, `once`, a serverless trigger),
   * `catch-up` (an election, or a holder whose ledger answered again, runs a slot that fell due unrun),
   * `backfill`, `manual` (run now: `once --now`, a run request), `retry` (an earlier holder's pass of this
   * slot was cut off with its term and is run again: RETAKES). A retry within the pass (RETRIES) keeps the
   * reason and counts up `attempt`.
   */
  reason: PassReason
  /** 1 for the pass's first attempt, 2 for its first retry (RETRIES), and so on. */
  attempt: number
  /**
   * The run ledger's record of the newest slot before this one (a manual run's included), whatever became
   * of it (`outcome` absent: its pass had not ended when the ledger was read); absent when the ledger holds
   * none among the runs this term read (docs/nets.md, "What a pass knows").
   */
  previous?: PassRun
  /** The newest run before this slot that ended `ok`; absent when none is among the runs this term read. */
  lastSuccess?: PassRun
  /** The schedule's next few slots after this one (UTC instants, oldest first), none past the net's END_AT. */
  upcoming: Date[]
}

/**
 * Why a pass runs (PassContext.reason). Not exported from `leasecron` (its name count is capped):
 * `PassContext['reason']` names it.
 */
export type PassReason = 'tick' | 'catch-up' | 'backfill' | 'manual' | 'retry'

/**
 * A slot's run as the ledger recorded it, as a pass sees it (PassContext.previous, .lastSuccess); named
 * `NonNullable<PassContext['previous']>` outside (not exported from `leasecron`: its name count is capped).
 */
export interface PassRun {
  slot: Date
  /** How it ended; absent while its pass had not ended when the ledger was read. */
  outcome?: RunOutcome
  startedAt: Date
  finishedAt?: Date
  /** Attempts made (0 for a slot that never ran: skipped, missed, paused, deferred). */
  attempts?: number
  /** The last attempt's error (first line, scrubbed), or why a slot did not run. */
  error?: string
  /** A manual run (run now): `slot` is when it was asked for. */
  manual?: boolean
}

/** What a net's process-wide setup receives, once per worker, before any campaign. */
export interface NetSetupContext<O> {
  options: O
  /** The worker's database when MONGO_URI is set; the net keeps memory twins of its stores otherwise. */
  db: Db | undefined
  log: Logger
  /** `PUBLIC_URL` when configured: where a person can read about a run. */
  publicUrl: string | undefined
  now(): Date
}

/** What a term factory receives at the start of each term. */
export interface NetTermContext<O> {
  options: O
  log: Logger
  /** Aborted when this term ends (lost, stepped down, stopped): the same signal every pass of it receives. */
  signal?: AbortSignal
  /**
   * The monotonic instant (performance.now() scale) at which the term steps down unless a renewal lands;
   * it moves with every proven renewal. Absent outside a lease term (`once`).
   */
  stepDownAt?: () => number
}

/** Whether a net runs once per installation or once for the whole worker (NetDefinition.scope). */
export type NetScope = 'installation' | 'global' | 'one-installation'

/** One pass of a term. Throwing is logged with the net and pass number and never ends the term. */
export type Pass = (context: PassContext) => Promise<void>

export type NetOptions = Record<string, NetOption>
export type OptionValues<S extends NetOptions> = {
  [K in keyof S]: S[K] extends NetOption<infer T> ? T : never
}

/**
 * A net's overlap policy, for a tick that finds the previous pass (or a catch-up) still running, in the
 * term that runs it:
 * - `buffer-one` (the default): its slot is kept (the newest only; a slot it replaces is recorded `skipped`)
 *   and runs as soon as the pass ends.
 * - `buffer-all`: every such slot is kept, in order, and each runs after the one before; at most the net's
 *   CATCH_UP_MAX wait (the oldest beyond it is recorded `skipped`).
 * - `skip`: its slot is recorded `skipped` in the ledger and never runs.
 * - `replace`: the running pass is aborted (recorded `aborted`, saying which slot replaced it) and the new
 *   slot runs as soon as it has ended. Neither an operator's run-now nor a catch-up round is replaced: the
 *   new slot waits for it, as under `buffer-one`.
 * - `allow`: the new slot's pass starts at once beside the running one; each slot is still claimed once.
 * A term that ends drops what waits for the successor's catch-up, which runs the slots it inherits oldest
 * first and applies the policy to the ticks that come while it runs.
 */
export type OverlapPolicy = 'buffer-one' | 'buffer-all' | 'skip' | 'replace' | 'allow'

/** Every overlap policy, for the configuration's parser. */
export const OVERLAP_POLICIES = [
  'buffer-one',
  'buffer-all',
  'skip',
  'replace',
  'allow',
] as const satisfies readonly OverlapPolicy[]

/**
 * What a term's election does with the net's slots that fell due while no replica ran it (docs/semantics.md,
 * "Catch-up and missed slots"): `latest` runs a takeover's whole gap oldest first (every such slot fell due within TTL +
 * 2 × RETRY), else the newest due slot, and records the older ones `missed`; `all` runs those within
 * the catch-up window (the newest CATCH_UP_MAX of them, oldest first) and records the rest `missed`; `none`
 * records them all `missed` and waits for the next tick.
 */
export type CatchUpPolicy = 'latest' | 'all' | 'none'

/** Every catch-up policy, for the configuration's parser. */
export const CATCH_UP_POLICIES = ['latest', 'all', 'none'] as const satisfies readonly CatchUpPolicy[]

/** A declared net. */
export interface NetDefinition<S extends NetOptions = NetOptions, R = unknown> {
  /** Kebab-case; the lane its requests are charged to, and `LEASECRON_NET_<NAME>_…` in upper snake case. */
  name: string
  /** A lease name from src/leases.ts (or the worker's own registry). */
  lease: string
  /** The default cron expression (5 or 6 fields, node-cron syntax). */
  schedule: string
  /**
   * The IANA time zone the schedule is read in (`Europe/Berlin`); `UTC` when absent. Overridden by
   * `LEASECRON_NET_<NAME>_TIME_ZONE`. Slots stay UTC instants; daylight-saving changes follow the rule in
   * docs/schedules.md ("Time zones and daylight saving").
   */
  timeZone?: string
  /**
   * What a tick that finds the previous pass still running does (`OverlapPolicy`); `buffer-one` when
   * absent. Overridden by `LEASECRON_NET_<NAME>_OVERLAP`.
   */
  overlap?: OverlapPolicy
  /**
   * What an election does with the slots that fell due while no replica ran the net (`CatchUpPolicy`);
   * `latest` when absent: after a takeover (every such slot within TTL + 2 × RETRY) all of them, oldest
   * first; after a longer outage the newest. Overridden by `LEASECRON_NET_<NAME>_CATCH_UP`.
   */
  catchUp?: CatchUpPolicy
  /**
   * How old a slot may be and still run under `catchUp: 'all'`, as a duration with its unit (`6h`); `24h`
   * when absent. Overridden by `LEASECRON_NET_<NAME>_CATCH_UP_WINDOW`.
   */
  catchUpWindow?: string
  /**
   * The most slots one election runs under `catchUp: 'all'`, and of a takeover's gap under `latest`; 10 when
   * absent. Overridden by `…_CATCH_UP_MAX`.
   */
  catchUpMax?: number
  /**
   * How the schedule's day of month and day of week combine when it restricts both: `any` fires on a day
   * matching either (Vixie cron), `all` on a day matching both (`0 9 13 * 5` with `all`: Friday the 13th).
   * Required for such a schedule (there is no default: the worker refuses it, exit 78); no effect on one
   * that restricts a single day field. Overridden by `LEASECRON_NET_<NAME>_DAY_MATCH`.
   */
  dayMatch?: 'any' | 'all'
  /**
   * The first and last instants the schedule is served (ISO 8601 with a zone, `2026-12-01T00:00:00Z`):
   * slots before `startAt` or after `endAt` are not run by any path, and a net past its `endAt` shows
   * `finished`. Overridden by `LEASECRON_NET_<NAME>_START_AT` and `…_END_AT`.
   */
  startAt?: string
  endAt?: string
  /**
   * The most scheduled slots the net runs (a slot whose pass started counts, whatever its outcome; skipped,
   * missed, paused and deferred slots and manual runs do not): then no path runs another and the net shows
   * `finished`. 1 to 1000; none when absent. Overridden by `LEASECRON_NET_<NAME>_MAX_RUNS`.
   */
  maxRuns?: number
  /**
   * A fixed start offset for every pass, so nets (and installations) that share a schedule do not all start
   * at its instant: each pass starts a stable share of this duration (`30s`) after its slot, hashed from
   * the net's name (per installation for a per-installation net). The slot, its ledger key and its
   * scheduled instant stay the schedule's. Must be below the schedule's shortest gap between slots; none
   * when absent. Overridden by `LEASECRON_NET_<NAME>_JITTER`.
   */
  jitter?: string
  /**
   * A Healthchecks.io-style URL each pass reports to: `/start` when it starts, the URL on success, `/fail`
   * on failure (docs/operations.md, "Pings"). A secret (never shown whole). Overridden by `LEASECRON_NET_<NAME>_PING_URL`.
   */
  pingUrl?: string
  /**
   * `installation`: the net runs once per GitHub App installation the worker acts as — with
   * GITHUB_INSTALLATION_IDS, each installation has its own lease and ledger slots named
   * `<net>:<installation>`, its own forge (token, budget) and its `deferred` slots. `global` (when absent): the
   * net runs once, as the first installation; right for a net that calls no forge. `one-installation`: runs
   * once, and the worker refuses to start it while it acts as several installations (or `all`) — for a net
   * whose work names repositories of any installation and must not act on them as the wrong one.
   */
  scope?: NetScope
  /** One line, for `help` and `config`. */
  description: string
  /** The net's own options, keyed by their environment suffix (`LOOKBACK` → `LEASECRON_NET_<NAME>_LOOKBACK`). */
  options: S
  /** Once per process: open stores, create indexes. A run worker retries it when it throws (capped backoff). */
  setup(context: NetSetupContext<OptionValues<S>>): R | Promise<R>
  /** At the start of every term: returns the pass function (not a Promise of it), closing over the term's state. */
  term(resources: R, context: NetTermContext<OptionValues<S>>): Pass
}

/** Declares a net (identity function that keeps the option types). */
export function defineNet<S extends NetOptions, R>(definition: NetDefinition<S, R>): NetDefinition<S, R> {
  return definition
}
