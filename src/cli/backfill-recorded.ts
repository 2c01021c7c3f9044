/**
 * What a backfill's dry run reads from the ledger: the slots of the range already recorded, which a run
 * of the range skips (`slot-taken`) — every outcome but the unrun ones (`missed`, `paused`, `deferred`),
 * which a run takes over, and a claim without an outcome yet (running, or left unfinished by a holder
 * that died), shown as `running`. Not the run itself (term/backfill.ts), nor the listing (backfill-report.ts).
 */
import { type RunLedger, UNRUN_OUTCOMES } from '../runs/run-ledger.js'

/** One slot a run of the range would skip, and what the ledger holds for it. */
export interface RecordedSlot {
  slot: string
  outcome: string
}

/**
 * The range's slots the ledger already holds a record for that a run would skip, oldest first. Reads the
 * net's newest `runHistory` runs up to the range's end: the ledger keeps no more than that many, and the
 * plan has no more slots than that (backfill-plan.ts). Rejects when the ledger does not answer.
 */
export async function recordedSlots(
  ledger: Pick<RunLedger, 'history'>,
  net: string,
  slots: readonly Date[],
  runHistory: number,
  signal: AbortSignal,
): Promise<RecordedSlot[]> {
  const last = slots[slots.length - 1]
  if (last === undefined) return []
  const planned = new Set(slots.map((s) => s.getTime()))
  const unrun: readonly (string | undefined)[] = UNRUN_OUTCOMES
  // A view's read: a record the query leaves out for its shape is reported (the caller's bad-document
  // hook), not silently listed as free to run.
  const runs = await ledger.history(net, runHistory, { signal, until: last, reportLeftOut: true })
  return runs
    .filter((r) => !r.manual && planned.has(r.slot.getTime()) && !unrun.includes(r.outcome))
    .map((r) => ({ slot: r.slot.toISOString(), outcome: r.outcome ?? 'running' }))
    .sort((a, b) => a.slot.localeCompare(b.slot))
}
