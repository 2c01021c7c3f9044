/**
 * A backfill request: the slots of a range an operator asked the net's holder to run (`leasecron backfill`
 * while a worker holds the net, or `POST /nets/<net>/backfill`), kept in the net's control record beside a
 * pause and the run-now request, with its progress. The holder runs the slots oldest first, one at a time
 * between its scheduled passes, each claimed in the run ledger under its own fence, and moves the request's
 * cursor (`done`) past each slot as it ends — so a successor after a takeover goes on from the cursor, and
 * the ledger's claim still decides that no slot runs twice.
 *
 * What it is: the request's shapes and the words status views use for it. What it is not: the run (term/
 * backfill-job.ts) or the range's planning (term/backfill-plan.ts): the slots arrive here already listed.
 */
import { plainLine } from '../plain-text.js'
import { MAX_TEXT_CHARS } from './control-text-limit.js'

/** What became of a slot the holder moved the cursor past: ran ok, failed (or timed out), already recorded, aborted. */
export type BackfillSlotEnd = 'ok' | 'failed' | 'taken' | 'aborted'

export const BACKFILL_SLOT_ENDS: readonly BackfillSlotEnd[] = ['ok', 'failed', 'taken', 'aborted']

/** Slots past the cursor, by how they ended. */
export type BackfillCounts = Record<BackfillSlotEnd, number>

/** Who ended a request before its last slot, when, and why. */
export interface BackfillCancel {
  at: Date
  by?: string
  reason?: string
}

/** A backfill request as read (without its slot list: `NetControlStore.backfillSlots` reads it). */
export interface BackfillStatus {
  /** Unique per request: what the holder's progress writes compare. */
  id: string
  /** When it was asked for. */
  at: Date
  reason?: string
  by?: string
  /** The range as asked, both ends included. */
  from: Date
  to: Date
  /** How many slots it holds. */
  total: number
  /** How many had their turn: the next to run is the slot at this index. */
  done: number
  counts: BackfillCounts
  /** The holder that moved the cursor last, and when. */
  owner?: string
  updatedAt?: Date
  /** Present once cancelled: no further slot starts. */
  cancelled?: BackfillCancel
}

/** What a caller asks for: the range and its slots (oldest first, within the range), who and why. */
export interface BackfillInput {
  from: Date
  to: Date
  slots: readonly Date[]
  reason?: string
  by?: string
}

/** The holder's word that the slot at `index` of request `id` ended as `end`. */
export interface BackfillAdvance {
  id: string
  index: number
  end: BackfillSlotEnd
  /** The holder's owner id. */
  owner: string
}

/** What `requestBackfill` came to: the pending request, and whether this call made it (one pending per net). */
export interface BackfillRequestResult {
  created: boolean
  backfill: BackfillStatus
}

/** Whether slots are still to run: not cancelled, and the cursor short of the end. */
export function backfillPending(backfill: BackfillStatus | undefined): backfill is BackfillStatus {
  return backfill !== undefined && backfill.cancelled === undefined && backfill.done < backfill.total
}

/** `running`, `done` (every slot had its turn) or `cancelled`. */
export function backfillState(backfill: BackfillStatus): 'running' | 'done' | 'cancelled' {
  if (backfill.cancelled) return 'cancelled'
  return backfill.done < backfill.total ? 'running' : 'done'
}

/** The slots not yet run (none once cancelled: they will not run). */
export function backfillLeft(backfill: BackfillStatus): number {
  return backfill.cancelled ? 0 : backfill.total - backfill.done
}

/**
 * How a request reads in `leasecron status`, a log line or the page: `backfill 2026-…Z…2026-…Z by ann:
 * 5 of 12 done (1 failed), 7 left, on <owner>`. Texts as plain lines whatever store handed them over.
 */
export function describeBackfill(backfill: BackfillStatus): string {
  const by = backfill.by ? ` by ${plainLine(backfill.by, MAX_TEXT_CHARS)}` : ''
  const range = `${backfill.from.toISOString()}…${backfill.to.toISOString()}`
  const failed = backfill.counts.failed > 0 ? ` (${backfill.counts.failed} failed)` : ''
  const progress = `${backfill.done} of ${backfill.total} done${failed}`
  const state = backfillState(backfill)
  if (state === 'cancelled') {
    const who = backfill.cancelled?.by ? ` by ${plainLine(backfill.cancelled.by, MAX_TEXT_CHARS)}` : ''
    return `backfill ${range}${by}: cancelled${who}, ${progress}`
  }
  if (state === 'done') return `backfill ${range}${by}: finished, ${progress}`
  const on = backfill.owner ? `, on ${plainLine(backfill.owner, MAX_TEXT_CHARS)}` : ''
  return `backfill ${range}${by}: ${progress}, ${backfill.total - backfill.done} left${on}`
}
