/**
 * What the installations bench reads back, from the store itself and from the passes' own lines: the
 * leases held per replica (the `leases` collection: unexpired, with a token) and their balance, and the
 * slot accounting of one cell — the ledger (`net_runs`) beside the lines each pass appended — with its
 * duplicates and misses per installation.
 *
 * Pure reading and counting: it starts nothing and asserts nothing (bench/scenarios/installations.ts
 * runs the cells). Its reads go straight to the server, never through the op counter, so they are not
 * counted as the workers' load.
 */
import { readFile } from 'node:fs/promises'
import type { Db } from 'mongodb'
import { sig } from './support.js'

/** Leases held unexpired right now, by owner id. */
export async function holdings(db: Db): Promise<Map<string, string[]>> {
  const docs = await db
    .collection<{ _id: string; owner?: string; token?: string | null; expiresAt?: Date }>('leases')
    .find({ expiresAt: { $gt: new Date() }, token: { $ne: null } }, { maxTimeMS: 5_000 })
    .toArray()
  const byOwner = new Map<string, string[]>()
  for (const doc of docs) {
    const owner = String(doc.owner)
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), doc._id])
  }
  return byOwner
}

/** One look at the holdings of the live replicas: counts in `owners`' order, balance, leases held. */
export interface Balance {
  /** Leases held by each live replica (0 for one holding none). */
  perReplica: number[]
  /** max ÷ min over the live replicas; null when one holds none (unbounded). */
  maxOverMin: number | null
  /** The best an integer split allows: ⌈N/R⌉ ÷ ⌊N/R⌋ (null when R > N). */
  bestPossible: number | null
  held: number
  /** Leases held by an owner that is not live (a killed replica's, not yet expired). */
  heldByGone: number
}

export function balanceOf(
  byOwner: Map<string, string[]>,
  owners: readonly string[],
  leases: number,
): Balance {
  const perReplica = owners.map((o) => byOwner.get(o)?.length ?? 0)
  const max = Math.max(...perReplica)
  const min = Math.min(...perReplica)
  const floor = Math.floor(leases / owners.length)
  const held = [...byOwner.values()].reduce((n, l) => n + l.length, 0)
  const live = perReplica.reduce((a, b) => a + b, 0)
  return {
    perReplica,
    maxOverMin: min > 0 ? sig(max / min, 3) : null,
    bestPossible: floor > 0 ? sig(Math.ceil(leases / owners.length) / floor, 3) : null,
    held,
    heldByGone: held - live,
  }
}

/** Whether every lease is held by a live replica and the split is as even as integers allow. */
export function balanced(b: Balance, leases: number): boolean {
  return (
    b.held === leases && b.heldByGone === 0 && b.maxOverMin !== null && b.maxOverMin <= (b.bestPossible ?? 1)
  )
}

interface PassLine {
  installation: number
  slot: string
}

/** The passes' own lines in `file` (one JSON object a line; a torn last line is ignored). */
export async function passLines(file: string): Promise<PassLine[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter((l) => l.startsWith('{') && l.endsWith('}'))
    .map((l) => JSON.parse(l) as PassLine)
}

/** The slot instants of a schedule firing every `periodMs` (aligned to the epoch) in [from, to]. */
function slotsBetween(from: number, to: number, periodMs: number): number[] {
  const slots: number[] = []
  for (let t = Math.ceil(from / periodMs) * periodMs; t <= to; t += periodMs) slots.push(t)
  return slots
}

/**
 * The accounting of every slot in [from, to] of every installation: run once (a pass line and an `ok`
 * record), run twice (more than one line: a duplicate), recorded but not run (`missed`, `deferred`…), or
 * neither (unaccounted). `lines` and the ledger's documents are both checked.
 */
export async function slotAccounting(
  db: Db,
  file: string,
  installations: readonly number[],
  window: { from: number; to: number; periodMs: number },
) {
  const slots = slotsBetween(window.from, window.to, window.periodMs)
  const key = (installation: number, slot: number) => `${installation}@${slot}`
  const lineCounts = new Map<string, number>()
  for (const line of await passLines(file)) {
    const k = key(line.installation, Date.parse(line.slot))
    lineCounts.set(k, (lineCounts.get(k) ?? 0) + 1)
  }
  const records = await db
    .collection<{ installation?: number; slot: Date; outcome?: string | null }>('net_runs')
    .find(
      { slot: { $gte: new Date(slots[0] ?? window.from), $lte: new Date(window.to) } },
      { maxTimeMS: 30_000 },
    )
    .toArray()
  const outcomes = new Map<string, string[]>()
  for (const r of records) {
    const k = key(Number(r.installation), r.slot.getTime())
    outcomes.set(k, [...(outcomes.get(k) ?? []), String(r.outcome ?? 'claimed')])
  }
  return tally(installations, slots, lineCounts, outcomes, key, window)
}

function tally(
  installations: readonly number[],
  slots: readonly number[],
  lineCounts: Map<string, number>,
  outcomes: Map<string, string[]>,
  key: (installation: number, slot: number) => string,
  window: { from: number; to: number; periodMs: number },
) {
  const counts = { expected: 0, ranOnce: 0, duplicateLines: 0, recordedNotRun: 0, unaccounted: 0 }
  const byOutcome: Record<string, number> = {}
  let ledgerWithoutLine = 0
  let lineWithoutLedger = 0
  const missesByInstallation: Record<string, number> = {}
  for (const installation of installations)
    for (const slot of slots) {
      counts.expected++
      const lines = lineCounts.get(key(installation, slot)) ?? 0
      const recorded = outcomes.get(key(installation, slot)) ?? []
      for (const o of recorded) byOutcome[o] = (byOutcome[o] ?? 0) + 1
      if (lines > 1) counts.duplicateLines += lines - 1
      if (lines > 0 && recorded.length === 0) lineWithoutLedger++
      if (lines === 0 && recorded.includes('ok')) ledgerWithoutLine++
      if (lines > 0) counts.ranOnce++
      else {
        missesByInstallation[installation] = (missesByInstallation[installation] ?? 0) + 1
        if (recorded.length > 0) counts.recordedNotRun++
        else counts.unaccounted++
      }
    }
  return {
    window: { from: new Date(window.from).toISOString(), to: new Date(window.to).toISOString() },
    slotsPerInstallation: slots.length,
    ...counts,
    notRun: counts.expected - counts.ranOnce,
    ledgerByOutcome: byOutcome,
    ledgerOkWithoutLine: ledgerWithoutLine,
    lineWithoutLedgerRecord: lineWithoutLedger,
    installationsWithAMiss: Object.keys(missesByInstallation).length,
  }
}
