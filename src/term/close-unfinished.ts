/**
 * closeUnfinished: ends `aborted` the runs an older term claimed and never finished — its holder died, or
 * stalled past its term (a term steps down before its lease can pass on, so its pass ended with it), or its
 * claim landed on the server after the holder had stopped waiting for the answer — so no slot stays
 * "running" in every view and unaccounted. The catch-up calls it at each election over the runs it read;
 * the holder's passes call it over the newest few runs, which also catches a claim that landed late.
 *
 * What it is not: a judge of live passes. The ledger's `close` writes only where the run has no end and an
 * older fence than the caller's term, and a late finish of the old term still overwrites it.
 */
import type { Logger } from '../logger.js'
import type { RunLedger, RunRecord } from '../runs/run-ledger.js'

export interface CloseUnfinishedSpec {
  ledger: RunLedger
  /** The fence of the term that closes: only runs claimed with a lower one are closed. */
  fence: number
  now: () => Date
  signal: () => AbortSignal
  /** Whether to go on (the term still holds); checked before each write. */
  going: () => boolean
  /** Where each close is said (the worker's logger, bound to the net). */
  log: Logger
}

const WHY =
  'its term ended before the pass recorded an end (the holder stopped or stalled, or its claim landed late); closed by a later holder'

/** Closes each of `runs` that an older term left without an end; resolves how many this call closed. */
export async function closeUnfinished(
  spec: CloseUnfinishedSpec,
  runs: readonly RunRecord[],
): Promise<number> {
  let closed = 0
  for (const run of runs) {
    if (run.outcome !== undefined || run.fence >= spec.fence || !spec.going()) continue
    const finish = { finishedAt: spec.now(), outcome: 'aborted' as const, error: WHY, attempts: 1 }
    const options = { signal: spec.signal(), ...(run.manual ? { manual: true } : {}) }
    if (!(await spec.ledger.close(run.net, run.slot, spec.fence, finish, options))) continue
    closed++
    spec.log.info(
      // `runFence`: the line's `fence` is the closing term's (its logger's binding).
      { slot: run.slot.toISOString(), runFence: run.fence, runOwner: run.owner },
      'closed a run an older term left unfinished: recorded aborted',
    )
  }
  return closed
}
