/**
 * failuresInRow: how many of a net's newest slots with a verdict failed (or timed out) one after another —
 * what the page shows as `failing ×N` and `leasecron_net_failures_in_row` exports. Counted as netState
 * reads verdicts: aborted, skipped, paused, deferred and running slots, and manual runs, are passed over,
 * and the first slot with another verdict (ok, missed) ends the count.
 *
 * Not a reader: it counts the runs it is handed (the newest few the status snapshot holds), so a count is
 * at most their number.
 */

const FAILED = new Set(['failed', 'timed-out'])
const VERDICTS = new Set(['ok', 'failed', 'timed-out', 'missed'])

/** The failed verdicts in a row at the head of `runs` (newest first). */
export function failuresInRow(
  runs: readonly { outcome?: string | undefined; manual?: boolean | undefined }[],
): number {
  let count = 0
  for (const run of runs) {
    if (run.manual || run.outcome === undefined || !VERDICTS.has(run.outcome)) continue
    if (!FAILED.has(run.outcome)) break
    count++
  }
  return count
}

/** `failing ×N` for a failing net with N > 1 failures in a row; otherwise the state itself. */
export function stateLabel(state: string, failures: number): string {
  return state === 'failing' && failures > 1 ? `failing ×${failures}` : state
}
