/**
 * A backfill request (control/backfill-request.ts) as the status snapshot shows it: its state and its
 * progress as done / left / failed, with who asked, the range, and the holder that ran its latest slot.
 * Texts as plain lines (a hand-written document bypasses the store's checks). Not the page's wording.
 */
import { backfillLeft, backfillState, type BackfillStatus } from '../control/backfill-request.js'
import { plainLine } from '../plain-text.js'
import { SHOWN_TEXT_CHARS } from './shown-text.js'
import type { BackfillProgress } from './status-snapshot.js'

/** `backfill` as the snapshot shows it. */
export function backfillProgress(backfill: BackfillStatus): BackfillProgress {
  const text = (value: string | undefined) =>
    value === undefined ? null : plainLine(value, SHOWN_TEXT_CHARS)
  return {
    id: backfill.id,
    state: backfillState(backfill),
    requestedAt: backfill.at.toISOString(),
    by: text(backfill.by),
    reason: text(backfill.reason),
    from: backfill.from.toISOString(),
    to: backfill.to.toISOString(),
    total: backfill.total,
    done: backfill.done,
    left: backfillLeft(backfill),
    failed: backfill.counts.failed,
    counts: { ...backfill.counts },
    owner: text(backfill.owner),
    updatedAt: backfill.updatedAt?.toISOString() ?? null,
    cancelledAt: backfill.cancelled?.at.toISOString() ?? null,
    cancelledBy: text(backfill.cancelled?.by),
  }
}

/** One line for the page and `status`: `running: 5 of 12 done, 7 left, 1 failed (by ann, from … to …)`. */
export function backfillProgressText(progress: BackfillProgress): string {
  const by = progress.by ? ` by ${progress.by}` : ''
  const state =
    progress.state === 'cancelled'
      ? `cancelled${progress.cancelledBy ? ` by ${progress.cancelledBy}` : ''}`
      : progress.state
  const on = progress.state === 'running' && progress.owner ? `, on ${progress.owner}` : ''
  return `${state}: ${progress.done} of ${progress.total} done, ${progress.left} left, ${progress.failed} failed${on} (requested${by} for ${progress.from} to ${progress.to})`
}
