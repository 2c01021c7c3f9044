/**
 * StatusSources: the narrow view of the worker (or of the store, for the CLI) that the status collector
 * reads. Each optional source is absent when the process cannot know it — the CLI has no meter and no
 * scheduler, a build without the run ledger has no history — and the snapshot then says `null` and why.
 */
import type { LeaseRecord } from '../lease/store.js'
import type { RunRecord } from '../runs/run-ledger.js'
import type { ForgeHourRow, ForgeHourWindow } from '../forge/meter/forge-hour-store.js'
import type { NetControl } from '../control/net-control-store.js'
import type { AdminStatus, RateLimitStatus, ReplicaStatus } from './status-snapshot.js'

/** One net as configured: what the page lists even before anything ran. */
export interface StatusNetPlan {
  name: string
  leaseName: string
  /** The installation its passes act as (installation-nets.ts); absent when none is known. */
  installation?: number
  enabled: boolean
  schedule: string
  /** DAY_MATCH, where the schedule restricts both day fields. */
  dayMatch?: 'any' | 'all' | undefined
  /** The IANA zone node-cron fires the schedule in. */
  timeZone: string
  /** MIN_DURATION and MAX_DURATION (ms), when set: a pass outside them shows the net too-fast or slow. */
  minDurationMs?: number | undefined
  maxDurationMs?: number | undefined
  /** MAX_RUNS, when set: a net that ran that many slots is finished (runs/run-cap.ts). */
  maxRuns?: number | undefined
  /** START_AT and END_AT, when set: past END_AT the net is finished. */
  startAt?: Date | undefined
  endAt?: Date | undefined
}

export interface StatusSources {
  replica: ReplicaStatus | null
  /** The replica's admin API; absent outside a worker (the CLI). */
  admin?: AdminStatus
  nets: readonly StatusNetPlan[]
  storeKind: 'memory' | 'mongo'
  /** `installation` when forge hours come from a store every replica writes to. */
  forgeScope: 'installation' | 'replica'
  /** Resolves whether the store answers (bounded by the caller's timeout). */
  ping(): Promise<boolean>
  /** The store server's version; `null` for memory. */
  serverVersion(): Promise<string | null>
  /** Every lease the store holds (expired included). */
  leases(): Promise<LeaseRecord[]>
  /**
   * The newest `limit` runs of `net` whose slot is at or before `until`, newest first; absent without a
   * run ledger.
   */
  history?: (net: string, limit: number, until: Date) => Promise<RunRecord[]>
  /** Every net's controls at `now` (paused, pending requests); absent where none are read. */
  controls?: (now: Date) => Promise<NetControl[]>
  /** Forge figures per hour and lane for the hours of `window` (both ends included). */
  forgeHours(window: ForgeHourWindow): Promise<ForgeHourRow[]>
  /** The last rate-limit figures seen; absent where no request is sent (CLI). */
  rateLimits?: () => Promise<RateLimitStatus[]>
  /** Ticks the scheduler skipped per net and reason; absent outside a worker. */
  skippedTicks?: () => Promise<ReadonlyMap<string, Record<string, number>>>
}
