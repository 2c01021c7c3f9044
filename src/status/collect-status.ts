/**
 * collectStatus: reads every status source once and builds the StatusSnapshot. A source that fails makes
 * its part `null` (or the store "not answering") and adds a note; the snapshot itself never fails, because
 * an operator opens the page precisely when something is wrong.
 */
import { RUN_CAP_LOOKBACK } from '../runs/run-cap.js'
import { nextFireTime, scheduleOf } from '../schedule/schedule.js'
import { formatLocal } from '../schedule/zoned-time.js'
import type { LeaseRecord } from '../lease/store.js'
import { FUTURE_SLOT_MARGIN_MS, type RunRecord } from '../runs/run-ledger.js'
import type { NetControl, NetPause } from '../control/net-control-store.js'
import {
  type ForgeHourRow,
  HOUR_MS,
  HOURS_KEPT,
  hourStart,
  hoursWindow,
} from '../forge/meter/forge-hour-store.js'
import {
  type ForgeStatus,
  type HolderStatus,
  type LaneStatus,
  type NetStatus,
  type PauseStatus,
  type RunStatus,
  STATUS_SCHEMA,
  type StatusSnapshot,
  type StoreStatus,
} from './status-snapshot.js'
import { type NetState, netState } from './net-state.js'
import { plainLine } from '../plain-text.js'
import { SHOWN_TEXT_CHARS, shownText } from './shown-text.js'
import { summarizeInstallations } from './installation-summary.js'
import { backfillProgress } from './backfill-progress.js'
import type { StatusNetPlan, StatusSources } from './status-sources.js'

/** How many runs per net the snapshot lists. */
export const RUNS_SHOWN = 20

/** Builds the snapshot at `now`; never rejects (failed sources become `null` and a note). */
export async function collectStatus(sources: StatusSources, now: Date): Promise<StatusSnapshot> {
  const notes: string[] = []
  const failed = (what: string) => (error: unknown) => {
    notes.push(shownText(`${what}: ${error instanceof Error ? error.message : String(error)}`))
    return undefined
  }
  // The nets read once: a worker acting as every installation lists the ones discovered by now.
  const plans = sources.nets
  // A run dated past this was not written by a schedule: it never stands in for the newest run.
  const until = new Date(now.getTime() + FUTURE_SLOT_MARGIN_MS)
  // Every source at once: each bounds its own read, so an outage costs one bound, not their sum.
  const [store, leases, skipped, histories, forge, controls] = await Promise.all([
    storeStatus(sources),
    sources.leases().catch(failed('the lease store did not list its leases')),
    sources.skippedTicks?.().catch(failed('skipped ticks unavailable')),
    Promise.all(
      plans.map((plan) =>
        sources
          .history?.(plan.name, runsRead(plan), until)
          .catch(failed(`the run ledger did not answer for ${plan.name}`)),
      ),
    ),
    forgeStatus(sources, now, failed, notes),
    sources.controls?.(now).catch(failed('the net controls did not answer')),
  ])
  if (!sources.history)
    notes.push(
      'no run ledger to read (without MONGO_URI it lives in a worker’s memory): runs, last finished slot and lag are null',
    )
  const nets = plans.map((plan, i) =>
    netStatus(
      sources,
      plan,
      { leases, skipped, history: histories[i], control: controls?.find((c) => c.net === plan.name) },
      now,
    ),
  )
  return {
    schema: STATUS_SCHEMA,
    generatedAt: now.toISOString(),
    replica: sources.replica,
    store,
    nets,
    installations: summarizeInstallations(nets, forge.rateLimits),
    installationFilter: null,
    forge,
    admin: sources.admin ?? null,
    notes,
  }
}

async function storeStatus(sources: StatusSources): Promise<StoreStatus> {
  const answering = await sources.ping().catch(() => false)
  const serverVersion = answering ? await sources.serverVersion().catch(() => null) : null
  return { kind: sources.storeKind, serverVersion, answering }
}

/**
 * How many of a net's newest runs are read: RUNS_SHOWN, and for a net with MAX_RUNS enough to count its
 * runs (runs/run-cap.ts), so a net that ran them all shows `finished`, not `late`.
 */
export function runsRead(plan: { maxRuns?: number | undefined }): number {
  return Math.max(RUNS_SHOWN, plan.maxRuns === undefined ? 0 : RUN_CAP_LOOKBACK * plan.maxRuns)
}

/** What was read for the nets; `undefined` where a source failed or is absent. */
interface NetReads {
  leases: LeaseRecord[] | undefined
  skipped: ReadonlyMap<string, Record<string, number>> | undefined
  history: RunRecord[] | undefined
  control: NetControl | undefined
}

function netStatus(
  sources: StatusSources,
  plan: StatusNetPlan,
  { leases, skipped, history, control }: NetReads,
  now: Date,
): NetStatus {
  const record = leases?.find((l) => l.name === plan.leaseName)
  // A net with MAX_RUNS had more read, to count them; the newest RUNS_SHOWN are shown.
  const runs = history?.slice(0, RUNS_SHOWN).map((record) => runStatus(record, plan.timeZone)) ?? null
  const lastFinished = history?.find((r) => r.finishedAt !== undefined)
  const next = plan.enabled ? nextFire(plan, now) : null
  return {
    name: plan.name,
    leaseName: plan.leaseName,
    installation: plan.installation ?? null,
    enabled: plan.enabled,
    schedule: plan.schedule,
    timeZone: plan.timeZone,
    nextFireAt: next?.toISOString() ?? null,
    nextFireLocal: next ? formatLocal(next, plan.timeZone) : null,
    holder: record ? holderStatus(record, sources.replica?.owner, now) : null,
    leaseCorrupt: record?.corrupt === undefined ? null : shownText(record.corrupt),
    runs,
    lastFinishedSlot: lastFinished ? lastFinished.slot.toISOString() : null,
    runLagMs: lastFinished ? now.getTime() - lastFinished.slot.getTime() : null,
    skippedTicks: sources.skippedTicks ? (skipped?.get(plan.name) ?? {}) : null,
    state: plan.enabled && history ? stateOf(history, plan, now, control?.paused !== undefined) : null,
    paused: control?.paused ? pauseStatus(control.paused) : null,
    runRequestedAt: control?.run ? control.run.at.toISOString() : null,
    backfill: control?.backfill ? backfillProgress(control.backfill) : null,
  }
}

/** A pause as the snapshot shows it (texts as plain lines: one line, bounded, no control characters). */
function pauseStatus(pause: NetPause): PauseStatus {
  return {
    at: pause.at.toISOString(),
    until: pause.until ? pause.until.toISOString() : null,
    reason: pause.reason === undefined ? null : plainLine(pause.reason, SHOWN_TEXT_CHARS),
    by: pause.by === undefined ? null : plainLine(pause.by, SHOWN_TEXT_CHARS),
  }
}

/** The holder of an unexpired lease; `null` when the lease is free (expired or released). */
export function holderStatus(
  record: LeaseRecord,
  thisOwner: string | undefined,
  now: Date,
): HolderStatus | null {
  if (record.owner === undefined || record.expiresAt === undefined) return null
  const expiresInMs = record.expiresAt.getTime() - now.getTime()
  if (expiresInMs <= 0) return null
  return {
    owner: record.owner,
    thisReplica: record.owner === thisOwner,
    fence: record.fence,
    expiresAt: record.expiresAt.toISOString(),
    expiresInMs,
  }
}

/** One ledger record as the snapshot shows it; `slotLocal` in the net's zone. */
export function runStatus(record: RunRecord, timeZone = 'UTC'): RunStatus {
  const requests = record.requests ? Object.values(record.requests).reduce((sum, n) => sum + n, 0) : null
  const end = record.finishedAt?.getTime()
  return {
    slot: record.slot.toISOString(),
    slotLocal: formatLocal(record.slot, timeZone),
    owner: record.owner,
    fence: record.fence,
    startedAt: record.startedAt.toISOString(),
    finishedAt: record.finishedAt ? record.finishedAt.toISOString() : null,
    durationMs: end === undefined ? null : Math.max(0, end - record.startedAt.getTime()),
    // A finished record always has its outcome; one without is still running.
    outcome: record.outcome ?? 'running',
    attempts: record.outcome === undefined ? null : (record.attempts ?? 1),
    error: record.error === undefined || record.error === null ? null : shownText(record.error),
    requests,
    manual: record.manual === true,
    installation: record.installation ?? null,
  }
}

/** The net's verdict; `null` (never a guess) when its schedule cannot be read. */
function stateOf(
  history: readonly RunRecord[],
  plan: StatusNetPlan,
  now: Date,
  paused: boolean,
): NetState | null {
  try {
    return netState(history, plan, now, paused)
  } catch {
    return null
  }
}

/** The schedule's first slot after `now`, in the zone it is read in (the scheduler's own rule). */
function nextFire(plan: StatusNetPlan, now: Date): Date | null {
  try {
    return nextFireTime(scheduleOf(plan), now, plan.timeZone)
  } catch {
    return null
  }
}

async function forgeStatus(
  sources: StatusSources,
  now: Date,
  failed: (what: string) => (error: unknown) => undefined,
  notes: string[],
): Promise<ForgeStatus> {
  const current = hourStart(now.getTime())
  const [rows, rateLimits] = await Promise.all([
    sources.forgeHours(hoursWindow(now.getTime())).catch(failed('forge hours unavailable')),
    sources.rateLimits?.().catch(failed('rate limits unavailable')),
  ])
  const lanes = laneStatuses(rows ?? [], current)
  if (lanes.length > LANES_SHOWN)
    notes.push(
      `forge: ${lanes.length} lanes in the last ${HOURS_KEPT} hours; the ${LANES_SHOWN} with the most requests are shown`,
    )
  return {
    scope: sources.forgeScope,
    hourStart: new Date(current).toISOString(),
    lanes: busiest(lanes, LANES_SHOWN),
    rateLimits: rateLimits ?? null,
  }
}

/**
 * The most lanes the snapshot lists: a net per installation is a lane each, so hundreds are real; a
 * store holding thousands (written by another program) would otherwise make every /status megabytes.
 */
export const LANES_SHOWN = 500

/** The `count` lanes with the most requests over the day (ties by name), in name order. */
function busiest(lanes: LaneStatus[], count: number): LaneStatus[] {
  if (lanes.length <= count) return lanes
  const total = (l: LaneStatus) => l.hours.reduce((sum, h) => sum + h.requests, 0)
  const kept = new Set(
    lanes
      .map((l) => ({ lane: l, requests: total(l) }))
      .sort((a, b) => b.requests - a.requests || a.lane.lane.localeCompare(b.lane.lane))
      .slice(0, count)
      .map((l) => l.lane),
  )
  return lanes.filter((l) => kept.has(l))
}

/**
 * One entry per lane seen in the last 24 hours (up to the current one: a row dated ahead adds no lane),
 * each with 24 hours (missing hours are zero). One pass over the rows: a lookup per lane and hour
 * scanned every row, seconds for a few thousand.
 */
export function laneStatuses(rows: readonly ForgeHourRow[], current: number): LaneStatus[] {
  const first = current - (HOURS_KEPT - 1) * HOUR_MS
  const byLaneHour = new Map<string, ForgeHourRow>()
  for (const row of rows)
    if (row.hour >= first && row.hour <= current) byLaneHour.set(`${row.lane} ${row.hour}`, row)
  const lanes = [...new Set([...byLaneHour.values()].map((r) => r.lane))].sort()
  return lanes.map((lane) => {
    const hours = Array.from({ length: HOURS_KEPT }, (_, i) => {
      const hour = first + i * HOUR_MS
      const row = byLaneHour.get(`${lane} ${hour}`)
      return {
        hour: new Date(hour).toISOString(),
        requests: row?.requests ?? 0,
        notModified: row?.notModified ?? 0,
        points: row?.points ?? 0,
      }
    })
    const { hour: _hour, ...thisHour } = hours[hours.length - 1]!
    return { lane, thisHour, hours }
  })
}
