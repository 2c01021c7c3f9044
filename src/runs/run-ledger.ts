/**
 * The run ledger contract: one pass per schedule slot, whoever holds the lease.
 *
 * What it is: before a pass starts it claims its slot — one atomic insert keyed by net and slot
 * (`_id: "<net>@<slot ISO>"`). The insert's uniqueness decides, so two overlapping terms (a stalled holder
 * and its successor, two `once` processes for one trigger) run one slot once. The pass's end records its
 * outcome on the same record, and the holder prunes old records so the ledger stays bounded.
 *
 * A slot that is due but will not run — outside the catch-up window (`missed`), or while its net is paused
 * (`paused`) — is accounted with `account`, so every scheduled slot has one record. Such a record is not a
 * run: a later claim of the slot (a backfill, `once --slot`, a resume with catch-up) takes it over, and the
 * insert still decides between concurrent claimers.
 *
 * What it is not: a transaction around the pass. A pass's side effects are not atomic with its claim: a
 * pass that claimed its slot and crashed half-way leaves the slot claimed and its work half done; the next
 * slot's pass (nets are idempotent) repairs it.
 *
 * Both twins (MemoryRunLedger, MongoRunLedger) give identical answers to identical calls; one conformance
 * suite runs them both. A rejection means the answer did not arrive: callers fail closed (no pass).
 */

/**
 * How a slot's pass ended, after its last attempt. `timed-out`: the last attempt ran past the net's
 * TIMEOUT (its signal aborted); `aborted`: the term ended or the process stopped while it ran.
 */
export type PassOutcome = 'ok' | 'failed' | 'timed-out' | 'aborted'

/**
 * How a slot ended: as its pass did, or `skipped` — its tick found the previous pass still running and the
 * net's OVERLAP policy let it go (claimed and finished at once, 0 attempts), so the slot is accounted.
 */
export type RunOutcome = PassOutcome | 'skipped' | UnrunOutcome

/**
 * How a slot that never ran is accounted: `missed` — it fell due while no replica ran the net and lies
 * outside the net's catch-up window; `paused` — it fell due while the net was paused; `deferred` — its
 * installation's rate-limit budget was down to the reserve (LEASECRON_FORGE_RESERVE). Never a claim.
 */
export type UnrunOutcome = 'missed' | 'paused' | 'deferred'

/** The outcomes a later claim of the slot may take over (they record that nothing ran). */
export const UNRUN_OUTCOMES = ['missed', 'paused', 'deferred'] as const satisfies readonly UnrunOutcome[]

/** Every outcome, in one list for the checks and the parser. */
export const RUN_OUTCOMES = [
  'ok',
  'failed',
  'timed-out',
  'aborted',
  'skipped',
  ...UNRUN_OUTCOMES,
] as const satisfies readonly RunOutcome[]

/** What a pass claims before it starts. */
export interface RunClaim {
  net: string
  /** The schedule instant the pass serves (whole milliseconds, UTC); a manual run's: when it was asked for. */
  slot: Date
  owner: string
  /** The fence of the term that runs the pass. */
  fence: number
  startedAt: Date
  /**
   * A manual run (run now: `once --now`, a run request): keyed `<net>@manual@<slot ISO>`, so it never
   * collides with a scheduled slot of the same instant. Absent: a scheduled slot.
   */
  manual?: boolean
  /** The GitHub App installation the pass acts as; absent for a net that runs once globally. */
  installation?: number
}

/** What a pass's end records on its claim. */
export interface RunFinish {
  finishedAt: Date
  outcome: RunOutcome
  /** The last attempt's error message for a failed pass (never a stack, never a secret). */
  error?: string
  /** Forge requests the pass spent, by lane. */
  requests?: Record<string, number>
  /** Attempts the pass made for its one claim (1 + retries; 0 when it never started); 1 when absent. */
  attempts?: number
}

/** One run as the ledger holds it (`manual` is `true` for a manual run, absent for a scheduled slot). */
export interface RunRecord extends RunClaim {
  /** `<net>@<slot ISO>`, or `<net>@manual@<slot ISO>` for a manual run. */
  id: string
  finishedAt?: Date
  outcome?: RunOutcome
  error?: string
  requests?: Record<string, number>
  /** Set with the outcome: attempts made for the one claim (a record written before attempts read as 1). */
  attempts?: number
  /**
   * How many times a later term took the run over (`retake`) after its holder's term ended with the pass
   * unfinished; absent: never.
   */
  retakes?: number
}

/** A slot accounted as not run (`account`): who decided so, when, and why. */
export interface RunAccount {
  net: string
  slot: Date
  /** The worker (or CLI) that decided the slot will not run. */
  owner: string
  /** The fence of the term that decided it (0 outside a term, e.g. the CLI). */
  fence: number
  /** When it was decided; stored as the record's start and finish. */
  at: Date
  outcome: UnrunOutcome
  /** Why, for the operator (e.g. "outside the catch-up window of 6h"); stored as the record's error. */
  reason?: string
  /** The installation the slot was for; absent for a global net. */
  installation?: number
}

export interface RunLedgerCallOptions {
  signal?: AbortSignal
}

/** Options of `history`. */
export interface RunHistoryOptions extends RunLedgerCallOptions {
  /**
   * Only runs whose slot is at or before this instant: a view passes now plus FUTURE_SLOT_MARGIN_MS, so
   * a record dated years ahead (written by another program or by hand) cannot stand in for the newest run.
   */
  until?: Date
  /**
   * A view's read (the page, `status`, `history`): also reports, through the twin's bad-document hook, a
   * few of the net's documents the query leaves out for their shape, so a corrupt record still shows in
   * the bad-document metric and the CLI's warning. One more small read; a pass leaves it off.
   */
  reportLeftOut?: boolean
}

/**
 * How far past now a view still reads a slot: replicas' clocks differ by seconds, and a manual run's slot
 * is the instant it was asked for. A slot further ahead was not written by a worker's schedule.
 */
export const FUTURE_SLOT_MARGIN_MS = 5 * 60_000

/** The `until` of a `history` read at `now`: the newest slot a worker's clock could have written. */
export function historyUntil(now: Date): Date {
  return new Date(now.getTime() + FUTURE_SLOT_MARGIN_MS)
}

/** Options of the calls that name one run (`finish`, `get`): which of the slot's two keys it is. */
export interface RunSlotOptions extends RunLedgerCallOptions {
  /** The manual run of that instant (`<net>@manual@<slot ISO>`), not the scheduled slot. */
  manual?: boolean
}

/** One finish of a batch (`finishMany`): `finish`'s arguments as one value. */
export interface RunFinishEntry {
  net: string
  slot: Date
  /** The owner and fence of the claim it ends: another's claim is left as it is (`false`). */
  owner: string
  fence: number
  finish: RunFinish
  /** The manual run of that instant (`<net>@manual@<slot ISO>`), not the scheduled slot. */
  manual?: boolean
}

/**
 * One item's answer in a batch call (`claimMany`, `finishMany`): what the single call of that item would
 * have resolved, or the error it would have rejected with, as `Promise.allSettled` gives them. A list of
 * booleans could not say that one item failed while the others got their answers.
 */
export type RunBatchAnswer = PromiseSettledResult<boolean>

export interface RunLedger {
  /**
   * Claims `claim.slot` of `claim.net`: resolves `true` when this call inserted the record, `false` when
   * the slot was already claimed (by anyone, this owner included). Exactly one of any number of
   * concurrent claims of one slot resolves `true`. A slot accounted as not run (an UNRUN_OUTCOMES record)
   * is claimable: the claim replaces that record.
   */
  claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean>
  /**
   * Claims many slots in one call (optional: a ledger without it is sent one `claim` per slot). Each
   * claim's answer, in the order given, is the one `claim` of it would give, the unrun takeover and the
   * manual run's own key included; of claims of one slot in one call (or racing calls), exactly one is
   * `true`. An item that fails (bad arguments, a write the store refused) is rejected alone; a call the
   * store did not answer rejects every item. Never rejects as a whole: one answer per claim.
   */
  claimMany?(claims: readonly RunClaim[], options?: RunLedgerCallOptions): Promise<RunBatchAnswer[]>
  /**
   * Records that `entry.slot` will not run (`missed` or `paused`, 0 attempts): resolves `true` when this
   * call inserted the record, `false` when the slot already has one (a run, or an earlier account) — which
   * is left as it is.
   */
  account(entry: RunAccount, options?: RunLedgerCallOptions): Promise<boolean>
  /**
   * Records the end of a run an older term claimed and never finished (its holder died or stalled past
   * its term): writes `finish` only where the record has no outcome and was claimed with a fence below
   * `fence` (the closing term's), resolving whether this call wrote it. A newer term's claim, or a run
   * that has its end, is left as it is; a late finish of the old term still overwrites this end.
   */
  close(net: string, slot: Date, fence: number, finish: RunFinish, options?: RunSlotOptions): Promise<boolean>
  /**
   * Takes over a run an older term claimed and never finished, to run its slot again (term/retake.ts):
   * where the record has no outcome and was claimed with a fence below `claim.fence`, its owner, fence and
   * start become `claim`'s and its `retakes` count goes up by one; resolves whether this call took it. A
   * finished run, an empty slot, or a claim of the retaking term or a newer one is left as it is (`false`).
   * Once taken, the old term's late `finish` is refused (the record names another owner and fence), so the
   * run's end is the retaking term's. Of concurrent retakes with one fence, exactly one resolves `true`.
   */
  retake(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean>
  /**
   * Records the end of the run claimed by `owner` with `fence`; a record claimed by another owner or
   * fence is left as it is (resolves `false`), so a late finish never overwrites another term's record.
   */
  finish(
    net: string,
    slot: Date,
    owner: string,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean>
  /**
   * Records the ends of many runs in one call (optional: a ledger without it is sent one `finish` per
   * run). Each entry's answer, in the order given, is the one `finish` of it would give: `true` only where
   * the record was claimed by the entry's owner with its fence. Failures as in `claimMany`.
   */
  finishMany?(entries: readonly RunFinishEntry[], options?: RunLedgerCallOptions): Promise<RunBatchAnswer[]>
  /**
   * The record of one slot (with `manual`, of the manual run of that instant), if claimed. A stored record the ledger cannot read (malformed, written by
   * another program) is reported by the twin and answered as undefined, never thrown.
   */
  get(net: string, slot: Date, options?: RunSlotOptions): Promise<RunRecord | undefined>
  /**
   * The newest `limit` runs of `net` (newest slot first, manual runs among them by their instant), with
   * `until` only those whose slot is at or before it; malformed records are left out, not thrown, and
   * never take the place of a readable one (the Mongo twin leaves them out in its query).
   */
  history(net: string, limit: number, options?: RunHistoryOptions): Promise<RunRecord[]>
  /**
   * Deletes all but the newest `keep` runs of `net`; resolves how many were deleted. With `until`, only
   * runs whose slot is at or before it count and go: a record dated years ahead neither stands in for one
   * of the newest `keep` (so the real records, whose slots the ledger must remember so as not to run them
   * twice, were pruned after one pass) nor is deleted by a prune that cannot tell it from a claim to come.
   */
  prune(net: string, keep: number, options?: RunHistoryOptions): Promise<number>
}

/** The ledger's key for one slot of one net (`manual`: the manual run of that instant). */
export function runId(net: string, slot: Date, manual = false): string {
  return manual ? `${net}@manual@${slot.toISOString()}` : `${net}@${slot.toISOString()}`
}

/** The record `account` stores for a slot that will not run: decided and finished at `at`, 0 attempts. */
export function unrunRecord(entry: RunAccount): RunRecord {
  const record: RunRecord = {
    id: runId(entry.net, entry.slot),
    net: entry.net,
    slot: entry.slot,
    owner: entry.owner,
    fence: entry.fence,
    startedAt: entry.at,
    finishedAt: entry.at,
    outcome: entry.outcome,
    attempts: 0,
  }
  if (entry.reason !== undefined) record.error = entry.reason
  if (entry.installation !== undefined) record.installation = entry.installation
  return record
}
