/**
 * A run ledger whose claims, and whose finishes, wait a moment for others, then go to the ledger together
 * in one `claimMany` (one `finishMany`) call: a replica holding 1,000 every-minute nets claims its slots in
 * a few round trips a minute, not 1,000 (issue #39; renewal-batch.ts does the same for lease renewals).
 * MongoRunLedger has `claimMany` only (its doc says why), so on Mongo the finishes pass straight through.
 *
 * What it is not: a change to what a claim or a finish means. Each caller gets its own answer — the one
 * its direct call would have had — and a bad call (checked before it joins, as the ledger checks it) fails
 * alone, never the batch it would have joined. A call waits at most LEDGER_BATCH_WINDOW_MS for others
 * (batch-window.ts); a caller whose signal aborts while it waits leaves the batch and rejects at once with
 * the ledger's RUN_LEDGER_ABORTED, as a direct call would. A batch of one goes as the plain call. The
 * batch's own call carries no signal: the ledger's server-side bound (callTimeoutMs) ends it, and a caller
 * that stops waiting is answered by its own signal. Every other call passes straight through, and a
 * ledger without the batch methods is used as it is (`batchLedgerCalls`).
 */
import type { Clock } from '../lease/clock.js'
import { type AbortedError, BatchWindow } from './batch-window.js'
import type {
  RunAccount,
  RunBatchAnswer,
  RunClaim,
  RunFinish,
  RunFinishEntry,
  RunHistoryOptions,
  RunLedger,
  RunLedgerCallOptions,
  RunRecord,
  RunSlotOptions,
} from './run-ledger.js'
import { checkClaim, checkFinishEntry } from './run-ledger-checks.js'
import { RunLedgerError } from './run-ledger-error.js'

const COMPONENT = 'ledger-batch'

/**
 * How long a claim or a finish waits for others (ms): the passes of slots due at one instant start
 * within a few ms of each other, and a pass waits this much longer to start, far below any net's
 * precision (a minute).
 */
export const LEDGER_BATCH_WINDOW_MS = 25
/** The most claims (or finishes) one call carries: a full batch goes at once. */
export const LEDGER_BATCH_MAX = 500

/** `ledger` with its claims and finishes batched, or `ledger` itself when it can batch neither. */
export function batchLedgerCalls(ledger: RunLedger, clock: Clock): RunLedger {
  return ledger.claimMany || ledger.finishMany ? new LedgerBatch(ledger, clock) : ledger
}

/** The RUN_LEDGER_ABORTED of a call of `operation` on `item`'s slot. */
function abortedError(operation: string, item: { net: string; slot: Date }): AbortedError {
  return (detail, reason) =>
    new RunLedgerError(
      'RUN_LEDGER_ABORTED',
      { component: COMPONENT, operation, net: item.net, slot: item.slot },
      detail,
      { cause: reason },
    )
}

/** The answers of `items`: a batch of one as the plain call, more through the batch method. */
function sendWith<T>(
  one: (item: T) => Promise<boolean>,
  many: (items: T[]) => Promise<RunBatchAnswer[]>,
): (items: T[]) => Promise<RunBatchAnswer[]> {
  return (items) => (items.length === 1 ? Promise.allSettled([one(items[0]!)]) : many(items))
}

/** See the module's doc. */
export class LedgerBatch implements RunLedger {
  readonly #ledger: RunLedger
  readonly #claims: BatchWindow<RunClaim> | undefined
  readonly #finishes: BatchWindow<RunFinishEntry> | undefined
  /** The ledger's own, when it has them (optional in the contract, so present here only then). */
  readonly claimMany?: (
    claims: readonly RunClaim[],
    options?: RunLedgerCallOptions,
  ) => Promise<RunBatchAnswer[]>
  readonly finishMany?: (
    entries: readonly RunFinishEntry[],
    options?: RunLedgerCallOptions,
  ) => Promise<RunBatchAnswer[]>

  constructor(ledger: RunLedger, clock: Clock) {
    this.#ledger = ledger
    const window = { clock, windowMs: LEDGER_BATCH_WINDOW_MS, max: LEDGER_BATCH_MAX }
    if (ledger.claimMany) {
      const many = ledger.claimMany.bind(ledger)
      this.claimMany = many
      this.#claims = new BatchWindow({ ...window, send: sendWith((c) => ledger.claim(c), many) })
    }
    if (ledger.finishMany) {
      const many = ledger.finishMany.bind(ledger)
      this.finishMany = many
      const one = (e: RunFinishEntry) =>
        ledger.finish(e.net, e.slot, e.owner, e.fence, e.finish, e.manual ? { manual: true } : {})
      this.#finishes = new BatchWindow({ ...window, send: sendWith(one, many) })
    }
  }

  claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    if (!this.#claims) return this.#ledger.claim(claim, options)
    let clean: RunClaim
    try {
      // A bad claim fails alone, before it joins a batch.
      clean = checkClaim(COMPONENT, claim)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#claims.join(claim, options?.signal, abortedError('claim', clean))
  }

  finish(
    net: string,
    slot: Date,
    owner: string,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    if (!this.#finishes) return this.#ledger.finish(net, slot, owner, fence, finish, options)
    const entry: RunFinishEntry = { net, slot, owner, fence, finish }
    if (options?.manual !== undefined) entry.manual = options.manual
    let clean: RunFinishEntry
    try {
      // A bad finish fails alone, before it joins a batch.
      clean = checkFinishEntry(COMPONENT, entry)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#finishes.join(entry, options?.signal, abortedError('finish', clean))
  }

  account(entry: RunAccount, options?: RunLedgerCallOptions): Promise<boolean> {
    return this.#ledger.account(entry, options)
  }

  close(
    net: string,
    slot: Date,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    return this.#ledger.close(net, slot, fence, finish, options)
  }

  retake(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    return this.#ledger.retake(claim, options)
  }

  get(net: string, slot: Date, options?: RunSlotOptions): Promise<RunRecord | undefined> {
    return this.#ledger.get(net, slot, options)
  }

  history(net: string, limit: number, options?: RunHistoryOptions): Promise<RunRecord[]> {
    return this.#ledger.history(net, limit, options)
  }

  prune(net: string, keep: number, options?: RunHistoryOptions): Promise<number> {
    return this.#ledger.prune(net, keep, options)
  }
}
