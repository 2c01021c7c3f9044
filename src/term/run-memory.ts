/**
 * RunMemory: the run ledger as one term knows it — the runs it read (the election's catch-up, a pass's
 * look for older terms' claims, a pause's read) and every claim, end and account it wrote since — so each
 * pass is told its history (PassContext: the previous slot, the last success) without a read of its own.
 *
 * It is the term's ledger: every call goes through to the ledger it wraps, unchanged, and what the ledger
 * answered is noted on the way back. A term reads its net's runs at its election; after that the term is
 * the only scheduled writer of its net's slots, so its own writes keep the memory current. What it does not
 * see until its next read: a slot another process ran meanwhile (`once`, a backfill, an older term's claim
 * that landed late).
 *
 * What it is not: a cache that answers reads (every call still reaches the ledger), nor a judge of which
 * record is right (the ledger's answers are taken as given).
 */
import type { PassRun } from '../nets/net.js'
import {
  type RunAccount,
  type RunClaim,
  type RunFinish,
  type RunHistoryOptions,
  type RunLedger,
  type RunLedgerCallOptions,
  type RunRecord,
  type RunSlotOptions,
  runId,
  unrunRecord,
} from '../runs/run-ledger.js'
import { countsAsRun } from '../runs/run-cap.js'

/**
 * The most runs kept: more than a pass is told of, so a long term's memory stays small — a replica holding
 * 1,000 nets keeps 20,000 records, not the 100,000 a hundred each made. The newest success is kept beyond
 * it, so a net failing for longer still knows its last success.
 */
const KEPT_RUNS = 20

/** What a pass is told of the runs before its slot. */
export interface RunsBefore {
  previous?: PassRun
  lastSuccess?: PassRun
}

/** One term's memory of its net's runs, and the ledger it reaches them through; see the module's doc. */
export class RunMemory implements RunLedger {
  readonly #ledger: RunLedger
  readonly #runs = new Map<string, RunRecord>()
  /** With MAX_RUNS: the ids of the runs that count against it (run-cap.ts), kept past KEPT_RUNS. */
  readonly #counted: Set<string> | undefined
  #read = false

  /** `countRuns`: keep the runs that count against the net's MAX_RUNS (at most the cap's, as it stops there). */
  constructor(ledger: RunLedger, options: { countRuns?: boolean } = {}) {
    this.#ledger = ledger
    this.#counted = options.countRuns ? new Set() : undefined
  }

  /** How many of `net`'s runs known count against MAX_RUNS (0 unless made with `countRuns`). */
  runsCounted(net: string): number {
    let count = 0
    for (const id of this.#counted ?? []) if (id.startsWith(`${net}@`)) count++
    return count
  }

  /** Whether a read of the net's runs (`history`) was answered: until then only this term's writes are known. */
  hasRead(): boolean {
    return this.#read
  }

  /** The newest run of `net` before `slot` (this slot's own record left out), and the newest success. */
  before(net: string, slot: Date, manual = false): RunsBefore {
    const own = runId(net, slot, manual)
    let previous: RunRecord | undefined
    let lastSuccess: RunRecord | undefined
    for (const run of this.#runs.values()) {
      if (run.net !== net || run.id === own || run.slot.getTime() >= slot.getTime()) continue
      if (!previous || newer(run, previous)) previous = run
      if (run.outcome === 'ok' && (!lastSuccess || newer(run, lastSuccess))) lastSuccess = run
    }
    return {
      ...(previous ? { previous: passRun(previous) } : {}),
      ...(lastSuccess ? { lastSuccess: passRun(lastSuccess) } : {}),
    }
  }

  async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const won = await this.#ledger.claim(claim, options)
    if (won) this.#note({ id: runId(claim.net, claim.slot, claim.manual), ...claim })
    return won
  }

  async retake(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const taken = await this.#ledger.retake(claim, options)
    if (taken) {
      const id = runId(claim.net, claim.slot, claim.manual)
      const known = this.#runs.get(id)
      this.#note({ ...known, id, ...claim, retakes: (known?.retakes ?? 0) + 1 })
    }
    return taken
  }

  async account(entry: RunAccount, options?: RunLedgerCallOptions): Promise<boolean> {
    const inserted = await this.#ledger.account(entry, options)
    if (inserted) this.#note(unrunRecord(entry))
    return inserted
  }

  async finish(
    net: string,
    slot: Date,
    owner: string,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    const recorded = await this.#ledger.finish(net, slot, owner, fence, finish, options)
    if (recorded) this.#ended(runId(net, slot, options?.manual), finish)
    return recorded
  }

  async close(
    net: string,
    slot: Date,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    const closed = await this.#ledger.close(net, slot, fence, finish, options)
    if (closed) this.#ended(runId(net, slot, options?.manual), finish)
    return closed
  }

  async get(net: string, slot: Date, options?: RunSlotOptions): Promise<RunRecord | undefined> {
    const record = await this.#ledger.get(net, slot, options)
    if (record) this.#note(record)
    return record
  }

  async history(net: string, limit: number, options?: RunHistoryOptions): Promise<RunRecord[]> {
    const runs = await this.#ledger.history(net, limit, options)
    for (const run of runs) this.#note(run)
    this.#read = true
    return runs
  }

  prune(net: string, keep: number, options?: RunHistoryOptions): Promise<number> {
    return this.#ledger.prune(net, keep, options)
  }

  /** A finish or close the ledger wrote: the known claim gets its end (an unknown one is left unknown). */
  #ended(id: string, finish: RunFinish): void {
    const known = this.#runs.get(id)
    if (known) this.#note({ ...known, ...finish })
  }

  #note(record: RunRecord): void {
    this.#runs.set(record.id, record)
    if (countsAsRun(record)) this.#counted?.add(record.id)
    else this.#counted?.delete(record.id)
    if (this.#runs.size > KEPT_RUNS + 1) this.#trim()
  }

  /** Keeps the newest KEPT_RUNS runs, and the newest success whatever its age. */
  #trim(): void {
    const newestFirst = [...this.#runs.values()].sort((a, b) => b.slot.getTime() - a.slot.getTime())
    const success = newestFirst.find((run) => run.outcome === 'ok')
    for (const run of newestFirst.slice(KEPT_RUNS)) if (run !== success) this.#runs.delete(run.id)
  }
}

/** Of two runs, whether `a` is the newer (by slot; of one instant, a manual run after the scheduled slot). */
function newer(a: RunRecord, b: RunRecord): boolean {
  if (a.slot.getTime() !== b.slot.getTime()) return a.slot.getTime() > b.slot.getTime()
  return Boolean(a.manual) && !b.manual
}

/** A record as a pass is shown it: its instants and outcome, not its owner or fence. */
function passRun(record: RunRecord): PassRun {
  return {
    // Copies: a pass that changes what it is shown changes nothing the term knows.
    slot: new Date(record.slot),
    startedAt: new Date(record.startedAt),
    ...(record.outcome === undefined ? {} : { outcome: record.outcome }),
    ...(record.finishedAt === undefined ? {} : { finishedAt: new Date(record.finishedAt) }),
    ...(record.attempts === undefined ? {} : { attempts: record.attempts }),
    ...(record.error === undefined ? {} : { error: record.error }),
    ...(record.manual ? { manual: true } : {}),
  }
}
