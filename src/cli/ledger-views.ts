/**
 * What `leasecron status` and `leasecron history` print: leases with their holder, fence, expiry and the
 * net's last run; a net's last runs from the ledger. Pure formatting — the commands fetch, these render.
 * Slots are UTC instants; a net whose schedule is read in another zone also shows them as its local time
 * with the offset (`2026-03-29 03:00 +02:00`), so a daylight-saving change reads as it happened.
 */
import type { LeaseRecord } from '../lease/store.js'
import { type RunRecord, UNRUN_OUTCOMES } from '../runs/run-ledger.js'
import type { InstallationStatus } from '../status/status-snapshot.js'
import { shownText } from '../status/shown-text.js'
import { formatLocal } from '../schedule/zoned-time.js'

/**
 * One line per lease: name, holder (or free), fence, expires in, its net's state (net-state.ts; `-` when
 * not known) and the last run of its net(s); a lease whose document is malformed ends its line with
 * `corrupt lease document: …` (its first 500 characters). `timeZones` gives each lease's net's zone (UTC
 * when absent), `states` each lease's net's state (`failing ×N` for N failed slots in a row).
 */
export function statusLines(
  leases: readonly LeaseRecord[],
  lastRuns: ReadonlyMap<string, RunRecord>,
  now: Date,
  timeZones: ReadonlyMap<string, string> = new Map(),
  states: ReadonlyMap<string, string> = new Map(),
): string[] {
  if (leases.length === 0) return ['no leases held']
  const header = [
    'LEASE'.padEnd(28),
    'HOLDER'.padEnd(40),
    'FENCE'.padEnd(12),
    'EXPIRES'.padEnd(22),
    'STATE'.padEnd(8),
    'LAST RUN',
  ]
  const rows = leases.map((r) => {
    const holder = r.owner ?? '(free)'
    const left = r.expiresAt === undefined ? undefined : r.expiresAt.getTime() - now.getTime()
    const expiry =
      left === undefined
        ? 'free (released)'
        : left > 0
          ? `expires in ${seconds(left)}`
          : `expired ${seconds(-left)} ago`
    const last = lastRuns.get(r.name)
    return [
      r.name.padEnd(28),
      holder.padEnd(40),
      `fence ${r.fence}`.padEnd(12),
      expiry.padEnd(22),
      (states.get(r.name) ?? '-').padEnd(8),
      last ? `last run ${runSummary(last, timeZones.get(r.name))}` : 'no run recorded',
      ...(r.corrupt === undefined ? [] : [`corrupt lease document: ${shownText(r.corrupt)}`]),
    ].join(' ')
  })
  return [header.join(' '), ...rows]
}

/**
 * One line per installation the nets act as: `installation 12: 3 nets; leases held: host-a 2, host-b 1,
 * 1 free; runs shown: ok 37, deferred 2`. Nothing when no net names an installation, unless narrowed to
 * one (`filter`), which then says no net acts as it.
 */
export function installationLines(
  installations: readonly InstallationStatus[],
  filter: number | null = null,
): string[] {
  if (installations.length === 0)
    return filter === null ? [] : [`installation ${filter}: no configured net acts as it`]
  return installations.map((i) => {
    const held = [
      ...i.holders.map((h) => `${h.owner} ${h.leases}`),
      ...(i.unheld > 0 ? [`${i.unheld} free`] : []),
    ]
    const runs =
      i.runs === null
        ? 'no ledger'
        : Object.entries(i.runs)
            .map(([outcome, n]) => `${outcome} ${n}`)
            .join(', ') || 'none yet'
    const budget = i.budget ? `; budget left ${i.budget.remaining}/${i.budget.limit}` : ''
    const nets = `${i.nets.length} net${i.nets.length === 1 ? '' : 's'}`
    return `installation ${i.installation}: ${nets}; leases held: ${held.join(', ') || 'none'}; runs shown: ${runs}${budget}`
  })
}

/** `slot by owner: outcome in duration`. */
function runSummary(run: RunRecord, timeZone: string | undefined): string {
  // A slot accounted as not run (paused, missed, deferred) took no time to say.
  const unrun = (UNRUN_OUTCOMES as readonly string[]).includes(run.outcome ?? '')
  const took = run.finishedAt && !unrun ? ` in ${duration(run)}` : ''
  return `${slotText(run.slot, timeZone)} by ${run.owner}: ${run.outcome ?? 'running'}${outcomeNote(run)}${took}`
}

/** `2026-03-29T01:00:00.000Z (2026-03-29 03:00 +02:00 Europe/Berlin)`; the UTC instant alone in UTC. */
function slotText(slot: Date, timeZone: string | undefined): string {
  if (timeZone === undefined || timeZone === 'UTC') return slot.toISOString()
  return `${slot.toISOString()} (${formatLocal(slot, timeZone)} ${timeZone})`
}

/**
 * A table of runs, newest first: slot, owner, fence, started, duration, outcome (`ok (manual)` for a
 * manual run: its slot is when it was asked for; `ok (retake 1)` for a run a later term took over after
 * its pass was cut off with its holder), attempts, requests; for a net read
 * in a zone other than UTC, a second column with the slot in local time (the header names the zone).
 */
export function historyLines(runs: readonly RunRecord[], timeZone = 'UTC'): string[] {
  const zoned = timeZone !== 'UTC'
  const local = `local (${timeZone})`
  const outcomes = runs.map((r) => `${r.outcome ?? 'running'}${outcomeNote(r)}`)
  // As wide as the widest shown (`timed-out (manual)`), so the attempts and requests stay in their columns.
  const outcomeWidth = Math.max(9, ...outcomes.map((o) => o.length))
  const header = [
    'slot'.padEnd(24),
    ...(zoned ? [local.padEnd(Math.max(local.length, 23))] : []),
    'owner'.padEnd(40),
    'fence'.padEnd(6),
    'started'.padEnd(24),
    'duration'.padEnd(10),
    'outcome'.padEnd(outcomeWidth),
    'attempts',
    'requests',
  ]
  const rows = runs.map((r, i) =>
    [
      r.slot.toISOString().padEnd(24),
      ...(zoned ? [formatLocal(r.slot, timeZone).padEnd(Math.max(local.length, 23))] : []),
      r.owner.padEnd(40),
      String(r.fence).padEnd(6),
      r.startedAt.toISOString().padEnd(24),
      (r.finishedAt ? duration(r) : '-').padEnd(10),
      outcomes[i]!.padEnd(outcomeWidth),
      String(r.outcome === undefined ? '-' : (r.attempts ?? 1)).padEnd(8),
      requestCount(r),
    ].join(' '),
  )
  return [header.join(' '), ...rows]
}

/** What the outcome column adds: a manual run, or a run taken over after its pass was cut off (retake.ts). */
function outcomeNote(run: RunRecord): string {
  if (run.manual) return ' (manual)'
  return run.retakes ? ` (retake ${run.retakes})` : ''
}

/**
 * The JSON shape of one run for `history --json`: instants as ISO strings, duration in ms; the net's zone
 * and the slot in it (`slotLocal`, `2026-03-29 03:00 +02:00`).
 */
export function historyJson(run: RunRecord, timeZone = 'UTC'): Record<string, unknown> {
  return {
    net: run.net,
    slot: run.slot.toISOString(),
    timeZone,
    slotLocal: formatLocal(run.slot, timeZone),
    owner: run.owner,
    fence: run.fence,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    durationMs: run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null,
    outcome: run.outcome ?? null,
    attempts: run.outcome === undefined ? null : (run.attempts ?? 1),
    error: run.error ?? null,
    requests: run.requests ?? null,
    manual: run.manual === true,
    retakes: run.retakes ?? 0,
  }
}

function requestCount(run: RunRecord): string {
  if (!run.requests) return '-'
  return Object.entries(run.requests)
    .map(([lane, n]) => `${lane}=${n}`)
    .join(', ')
}

function duration(run: RunRecord): string {
  return seconds((run.finishedAt?.getTime() ?? run.startedAt.getTime()) - run.startedAt.getTime())
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}
