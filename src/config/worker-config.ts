/**
 * The validated configuration a worker and every command run on: what loadConfig (load-config.ts)
 * returns once each section parser has accepted its variables. Types only.
 */
import type { ForgeAppConfig, ForgeConfig } from '../forge/forge-config.js'
import type { ForgeReserve } from '../forge/installations/forge-reserve.js'
import type { InstallationSet } from '../forge/installations/installation-set.js'
import type { LeasePacing } from '../leases.js'
import type { CatchUpPolicy, NetDefinition, OverlapPolicy } from '../nets/net.js'
import type { DayMatch } from '../schedule/schedule.js'
import type { ConfigIssue } from './config-error.js'
import type { LogLevel } from './log-level.js'

/** One net as this worker runs it. */
export interface NetConfig {
  /**
   * The net as this worker runs it; for one installation of a per-installation net under
   * GITHUB_INSTALLATION_IDS, its `name` and `lease` are `<net>:<installation>` (worker/installation-nets.ts).
   */
  definition: NetDefinition
  /** The installation this net's passes act as; absent before the worker assigns one (config). */
  installation?: number
  /** The installation the worker's global nets act as; `null` under `all` (PassContext.primaryInstallation). */
  primaryInstallation?: number | null
  enabled: boolean
  schedule: string
  /** DAY_MATCH as given: how the schedule's two day fields combine where it restricts both (else no effect). */
  dayMatch?: DayMatch | undefined
  /** The IANA zone the schedule is read in (canonical name, `UTC` by default). */
  timeZone: string
  intervalMs: number
  pacing: LeasePacing
  /**
   * What a term's election does with the slots that fell due unrecorded (term/catch-up.ts): `latest` runs
   * the newest, `all` those within `catchUpWindowMs` (at most `catchUpMax`, oldest first), `none` none; every
   * other one is recorded `missed`.
   */
  catchUp: CatchUpPolicy
  /** How old a slot may be and still run under `all` (CATCH_UP_WINDOW, 24h by default). */
  catchUpWindowMs: number
  /** The most slots one election runs under `all` (CATCH_UP_MAX, 10 by default). */
  catchUpMax: number
  /** A tick that finds the previous pass running: the net's OVERLAP (nets/net.ts OverlapPolicy). */
  overlap: OverlapPolicy
  /**
   * JITTER (ms; 0 when unset): each pass starts a stable share of it after its slot (term/slot-spread.ts),
   * below the schedule's shortest gap. Replaces a per-installation net's automatic spread when set.
   */
  jitterMs: number
  /** How a slot's pass is attempted: TIMEOUT, RETRIES, RETRY_BACKOFF, RETAKES. */
  attempts: AttemptPolicy
  /**
   * MIN_DURATION and MAX_DURATION (ms; undefined when unset): how long a healthy pass takes. A newest pass
   * outside them shows the net `too-fast` or `slow` (status/net-state.ts), and a running pass past the
   * maximum shows it `slow` at once.
   */
  minDurationMs?: number | undefined
  maxDurationMs?: number | undefined
  /** MAX_RUNS: the most scheduled slots the net runs (term/run-cap.ts), then it is finished; unset, no cap. */
  maxRuns?: number | undefined
  /** START_AT and END_AT: the instants the schedule is served between (config/net-window.ts); unset, no bound. */
  startAt?: Date | undefined
  endAt?: Date | undefined
  /** PING_URL: where each pass reports its start and end (observe/ping.ts); a secret. Undefined: no pings. */
  pingUrl?: string | undefined
  options: Record<string, unknown>
}

/**
 * How one slot's pass is attempted under its one claim: each attempt's signal aborts after `timeoutMs`
 * (the attempt ends `timed-out`); a failed or timed-out attempt is retried up to `retries` times, the n-th
 * retry after `retryBackoffMs` × 2^(n−1) (capped), while the term holds and before the next slot.
 */
export interface AttemptPolicy {
  timeoutMs: number
  retries: number
  retryBackoffMs: number
  /**
   * RETAKES: how many times a later term runs again a pass cut off by its holder's end (the holder died
   * or stalled mid-pass: term/retake.ts); 0 never does, and the run is recorded `aborted`. The net's
   * RETRIES unless RETAKES is set (a net that accepts its pass running again after a failure accepts it
   * after a crash).
   */
  retakes: number
}

/**
 * Which forge the worker talks to. `unchecked` only when the caller said it needs no forge (`status`,
 * `config`): the App variables' problems are kept there instead of rejecting the configuration.
 */
export type ForgeChoice =
  | {
      kind: 'github'
      app: ForgeAppConfig
      installations: InstallationSet
      /** The App as the first listed installation; absent under `all` (none known before discovery). */
      config?: ForgeConfig
    }
  | { kind: 'sandbox'; reason: string }
  | { kind: 'unchecked'; issues: ConfigIssue[] }

export interface LoadConfigOptions {
  /** False for commands that use no forge: missing or bad App variables are then not errors. */
  needsForge?: boolean
}

/** The replica section (replica-section.ts): the clock guard and the fair share. */
export interface ReplicaSettings {
  /** LEASECRON_CLOCK_GUARD: whether a clock offset beyond ttl/6 holds campaigns back (always measured). */
  clockGuard: boolean
  /** LEASECRON_FAIR_SHARE: whether replicas announce themselves, keep to a fair share and read vacancies. */
  fairShare: boolean
  /**
   * LEASECRON_FAIR_SHARE_SLACK: leases a replica may hold above its fair share before it steps down (0:
   * balance first; more: fewer hand-overs when the replica count changes, at the cost of balance).
   */
  shareSlack: number
}

export interface WorkerConfig {
  mongo: { uri: string; db: string } | undefined
  /** Replaces the host-name part of the owner id; the random suffix stays. */
  workerId: string | undefined
  port: number
  /** LEASECRON_BIND_ADDRESS: the address the HTTP server listens on (`0.0.0.0` by default). */
  bindAddress: string
  logLevel: LogLevel
  shutdownTimeoutMs: number
  forge: ForgeChoice
  publicUrl: string | undefined
  /** Whether `GET /` serves the status page (LEASECRON_STATUS_PAGE); `/status` answers either way. */
  statusPage: boolean
  /** LEASECRON_ADMIN_TOKEN: the HTTP admin API's bearer token; undefined leaves the API off. A secret. */
  adminToken: string | undefined
  /** Runs kept per net in the run ledger; the holder prunes older ones. */
  runHistory: number
  /** LEASECRON_FORGE_CACHE_MB: bytes the forge cache may hold (memory, and the shared Mongo twin); 0 = off. */
  forgeCacheMb: number
  /** The clock guard and the fair share (replica-section.ts). */
  replicas: ReplicaSettings
  /** LEASECRON_FORGE_RESERVE: the budget a pass leaves to the installation's other users (else `deferred`). */
  forgeReserve: ForgeReserve
  /** LEASECRON_INSTALLATIONS_REFRESH: how often `GITHUB_INSTALLATION_IDS=all` lists the installations again. */
  installationsRefreshMs: number
  nets: NetConfig[]
}
