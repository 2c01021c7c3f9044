/**
 * The status snapshot: what `GET /status` answers, what `leasecron status --json` prints and what the
 * status page (`GET /`) renders — one object, one shape, documented field by field in docs/operations.md ("Status JSON").
 *
 * Field names are stable; a field this build cannot fill is `null` (and `notes` says why), never a guess.
 * Nothing secret belongs here: no tokens, keys or connection strings, only owner ids, lease and net names,
 * counts and instants. Times are ISO 8601 UTC strings; durations are milliseconds.
 */
import type { NetState } from './net-state.js'

/** Bumped only when a field changes meaning or disappears; new fields do not bump it. */
export const STATUS_SCHEMA = 1

export interface StatusSnapshot {
  schema: typeof STATUS_SCHEMA
  generatedAt: string
  /** The replica that answered; `null` when the CLI read the store without being a replica. */
  replica: ReplicaStatus | null
  store: StoreStatus
  nets: NetStatus[]
  /**
   * The nets by the installation they act as, in the order the nets list them: holders per replica, runs
   * by outcome, budget left (installation-summary.ts). Empty when no net names an installation (the
   * sandbox forge, or `GITHUB_INSTALLATION_IDS=all` before discovery).
   */
  installations: InstallationStatus[]
  /** The installation `?installation=` (or `status --installation`) narrowed this snapshot to; `null`: all. */
  installationFilter: number | null
  forge: ForgeStatus
  /** The answering replica's admin API (its buttons on the page); `null` from the CLI. */
  admin: AdminStatus | null
  /** Plain sentences about figures this snapshot could not give (and why). */
  notes: string[]
}

export interface AdminStatus {
  /** Whether `POST /nets/<net>/pause|resume|run` answers on this replica (LEASECRON_ADMIN_TOKEN is set). */
  enabled: boolean
}

export interface ReplicaStatus {
  /** This process's owner id (host + random suffix). */
  owner: string
  /** leasecron's package version. */
  version: string
  startedAt: string
}

export interface StoreStatus {
  kind: 'memory' | 'mongo'
  /** The Mongo server's version (`buildInfo`), `null` for memory or when it did not answer. */
  serverVersion: string | null
  /**
   * Whether it answered a ping. `null` from `status --json` without MONGO_URI: there is no shared store to
   * ask (each worker's leases live in its own memory), so neither yes nor no is true.
   */
  answering: boolean | null
}

export interface NetStatus {
  name: string
  leaseName: string
  /**
   * The GitHub App installation the net's passes act as: its own for a per-installation net
   * (`<net>:<installation>`), the first listed for a global one; `null` when none is known (the sandbox
   * forge, or `all` before discovery).
   */
  installation: number | null
  enabled: boolean
  /** The cron expression (node-cron syntax, seconds optional). */
  schedule: string
  /** The IANA time zone the schedule is read in (its slots stay UTC instants). */
  timeZone: string
  nextFireAt: string | null
  /** nextFireAt as the zone's clocks show it, with the offset: `2026-03-29 03:00 +02:00`. */
  nextFireLocal: string | null
  /** The lease's current holder; `null` when nobody holds it unexpired. */
  holder: HolderStatus | null
  /**
   * What is wrong with the stored lease document when it is malformed (a term that cannot be proven held
   * is not held: such a lease shows no holder), `null` when it is well-formed or absent.
   */
  leaseCorrupt: string | null
  /** The newest runs from the ledger (newest slot first, at most 20); `null` when there is no ledger. */
  runs: RunStatus[] | null
  /** The slot of the newest finished run. */
  lastFinishedSlot: string | null
  /** now − lastFinishedSlot. */
  runLagMs: number | null
  /** Ticks this replica's scheduler skipped, by reason (`overlap`, `deadline`); `null` from the CLI. */
  skippedTicks: Record<string, number> | null
  /**
   * The net's verdict from its runs and schedule (net-state.ts): `ok`, `late`, `failing`, `missed`, or
   * `paused` while paused; `null` for a disabled net or when the ledger did not answer.
   */
  state: NetState | null
  /** The pause in force (who, why, since and until when, ISO); `null` when not paused or not known. */
  paused: PauseStatus | null
  /** When a pending run-now request was made (ISO); `null` when none is pending or not known. */
  runRequestedAt: string | null
  /** The newest backfill request and its progress (running, done or cancelled); `null` when none or not known. */
  backfill: BackfillProgress | null
}

/** A backfill request as the snapshot shows it (control/backfill-request.ts): done / left / failed. */
export interface BackfillProgress {
  id: string
  /** `running` (slots left), `done` (every slot had its turn) or `cancelled`. */
  state: 'running' | 'done' | 'cancelled'
  requestedAt: string
  by: string | null
  reason: string | null
  /** The range as asked (ISO), both ends included. */
  from: string
  to: string
  total: number
  /** Slots that had their turn (ok, failed, already recorded or aborted). */
  done: number
  /** Slots still to run (0 once cancelled). */
  left: number
  /** Of `done`, those that failed or timed out. */
  failed: number
  counts: { ok: number; failed: number; taken: number; aborted: number }
  /** The holder that ran its latest slot, and when that slot ended. */
  owner: string | null
  updatedAt: string | null
  cancelledAt: string | null
  cancelledBy: string | null
}

/** A pause as the snapshot shows it. */
export interface PauseStatus {
  at: string
  until: string | null
  reason: string | null
  by: string | null
}

export interface HolderStatus {
  owner: string
  /** Whether the answering replica is the holder. */
  thisReplica: boolean
  /** The term's fence: grows with every new term of the lease. */
  fence: number
  expiresAt: string
  expiresInMs: number
}

export interface RunStatus {
  slot: string
  /** The slot as the net's zone's clocks showed it, with the offset: `2026-03-29 03:00 +02:00`. */
  slotLocal: string
  owner: string
  fence: number
  startedAt: string
  finishedAt: string | null
  durationMs: number | null
  /**
   * `ok`, `failed`, `timed-out`, `aborted`, `skipped` (its tick overlapped a pass), `missed` (never ran:
   * outside the catch-up window), `paused` (never ran: the net was paused), `deferred` (never ran: its
   * installation's budget was down to LEASECRON_FORGE_RESERVE), or `running` while unfinished.
   */
  outcome:
    | 'ok'
    | 'failed'
    | 'timed-out'
    | 'aborted'
    | 'skipped'
    | 'missed'
    | 'paused'
    | 'deferred'
    | 'running'
  /** Attempts made for the slot's one claim (1 + retries); `null` while running. */
  attempts: number | null
  /** The error, its first 500 characters and `…(N more)` when longer (shown-text.ts). */
  error: string | null
  /** Forge requests the run spent, all lanes together; `null` when not recorded. */
  requests: number | null
  /** A manual run (run now): its slot is when it was asked for, not a schedule slot. */
  manual: boolean
  /** The GitHub App installation the run acted as; `null` for a run that names none (older, or global). */
  installation: number | null
}

export interface ForgeStatus {
  /** `installation`: every replica's spend (Mongo); `replica`: this process only (memory). */
  scope: 'installation' | 'replica'
  /** The start of the UTC hour being counted. */
  hourStart: string
  lanes: LaneStatus[]
  /** The last rate-limit headers seen, per host and resource; `null` from the CLI (it sends nothing). */
  rateLimits: RateLimitStatus[] | null
}

export interface LaneStatus {
  lane: string
  thisHour: LaneHourFigures
  /** 24 entries, oldest first, the last being the current hour. */
  hours: LaneHour[]
}

export interface LaneHourFigures {
  /** Attempts sent (each retry and redirect hop counts). */
  requests: number
  /** Conditional GETs answered 304 (free: revalidated from the cache). */
  notModified: number
  /** Points of the installation's rate limit the lane spent. */
  points: number
}

export interface LaneHour extends LaneHourFigures {
  /** The start of the UTC hour. */
  hour: string
}

export interface RateLimitStatus {
  host: string
  resource: string
  /** The installation whose budget it is; `null` for the App's own requests (token mints). */
  installation: number | null
  limit: number
  remaining: number
  resetAt: string | null
}

/** One installation's part of the snapshot: who holds its nets' leases, how their runs went, its budget. */
export interface InstallationStatus {
  installation: number
  /** The nets acting as it, as `nets[].name` names them. */
  nets: string[]
  /** Its nets' leases held per replica (owner), most first, then by owner. */
  holders: InstallationHolder[]
  /** Its nets' leases nobody holds unexpired. */
  unheld: number
  /**
   * Its nets' shown runs (each net's newest, at most 20) by outcome; outcomes with none are absent.
   * `null` when there is no ledger to read.
   */
  runs: Partial<Record<RunStatus['outcome'], number>> | null
  /** Budget left: its last seen REST (`core`) rate-limit figures; `null` when not seen here (the CLI). */
  budget: InstallationBudget | null
}

export interface InstallationHolder {
  owner: string
  /** How many of the installation's leases it holds. */
  leases: number
  /** Whether it is the answering replica. */
  thisReplica: boolean
}

export interface InstallationBudget {
  remaining: number
  limit: number
  resetAt: string | null
}
