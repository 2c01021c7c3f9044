/**
 * MemoryRunLedger: the run ledger in this process's memory, for a worker without MONGO_URI and for tests.
 *
 * One process's claims are exclusive (JavaScript runs one call at a time, so the check-and-insert below is
 * atomic); replicas in other processes share nothing — use MongoRunLedger to make one pass per slot hold
 * across replicas. Records are kept as copies: changing a returned record changes nothing stored.
 */
import {
  checkAccount,
  checkClaim,
  checkCount,
  checkFinish,
  checkInstant,
  checkNet,
  checkNotAborted,
  checkTerm,
} from './run-ledger-checks.js'
import {
  type RunAccount,
  type RunBatchAnswer,
  type RunClaim,
  type RunFinish,
  type RunFinishEntry,
  type RunHistoryOptions,
  type RunLedger,
  type RunLedgerCallOptions,
  type RunRecord,
  type RunSlotOptions,
  runId,
  UNRUN_OUTCOMES,
  unrunRecord,
} from './run-ledger.js'

const COMPONENT = 'MemoryRunLedger'

/** A RunLedger held in memory; see the RunLedger contract. */
export class MemoryRunLedger implements RunLedger {
  readonly #runs = new Map<string, RunRecord>()

  async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const clean = checkClaim(COMPONENT, claim)
    checkNotAborted(
      { component: COMPONENT, operation: 'claim', net: clean.net, slot: clean.slot },
      options?.signal,
    )
    const id = runId(clean.net, clean.slot, clean.manual)
    if (this.#runs.has(id) && !isUnrun(this.#runs.get(id))) return false
    this.#runs.set(id, { id, ...clean })
    return true
  }

  /**
   * Each claim as `claim` would answer it, one after the other in the order given (so of two claims of
   * one slot the first wins): nothing to save in memory, there for parity with the Mongo twin.
   */
  claimMany(claims: readonly RunClaim[], options?: RunLedgerCallOptions): Promise<RunBatchAnswer[]> {
    return Promise.allSettled(claims.map((claim) => this.claim(claim, options)))
  }

  /** Each entry as `finish` would answer it, in the order given. */
  finishMany(entries: readonly RunFinishEntry[], options?: RunLedgerCallOptions): Promise<RunBatchAnswer[]> {
    return Promise.allSettled(
      entries.map((e) =>
        this.finish(e.net, e.slot, e.owner, e.fence, e.finish, {
          ...options,
          ...(e.manual === undefined ? {} : { manual: e.manual }),
        }),
      ),
    )
  }

  async account(entry: RunAccount, options?: RunLedgerCallOptions): Promise<boolean> {
    const clean = checkAccount(COMPONENT, entry)
    checkNotAborted(
      { component: COMPONENT, operation: 'account', net: clean.net, slot: clean.slot },
      options?.signal,
    )
    const id = runId(clean.net, clean.slot)
    if (this.#runs.has(id)) return false
    this.#runs.set(id, unrunRecord(clean))
    return true
  }

  async finish(
    net: string,
    slot: Date,
    owner: string,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    const name = checkNet(COMPONENT, 'finish', net)
    const context = { component: COMPONENT, operation: 'finish', net: name }
    const at = checkInstant(context, 'slot', slot)
    const term = checkTerm({ ...context, slot: at }, owner, fence)
    const clean = checkFinish({ ...context, slot: at }, finish)
    checkNotAborted({ ...context, slot: at }, options?.signal)
    const record = this.#runs.get(runId(name, at, options?.manual))
    if (!record || record.owner !== term.owner || record.fence !== term.fence) return false
    this.#runs.set(record.id, { ...record, ...clean })
    return true
  }

  async close(
    net: string,
    slot: Date,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    const name = checkNet(COMPONENT, 'close', net)
    const context = { component: COMPONENT, operation: 'close', net: name }
    const at = checkInstant(context, 'slot', slot)
    const closer = checkCount({ ...context, slot: at }, 'fence', fence, 0)
    const clean = checkFinish({ ...context, slot: at }, finish)
    checkNotAborted({ ...context, slot: at }, options?.signal)
    const record = this.#runs.get(runId(name, at, options?.manual))
    if (!record || record.outcome !== undefined || record.fence >= closer) return false
    this.#runs.set(record.id, { ...record, ...clean })
    return true
  }

  async retake(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const clean = checkClaim(COMPONENT, claim, 'retake')
    checkNotAborted(
      { component: COMPONENT, operation: 'retake', net: clean.net, slot: clean.slot },
      options?.signal,
    )
    const record = this.#runs.get(runId(clean.net, clean.slot, clean.manual))
    if (!record || record.outcome !== undefined || record.fence >= clean.fence) return false
    const { owner, fence, startedAt } = clean
    this.#runs.set(record.id, { ...record, owner, fence, startedAt, retakes: (record.retakes ?? 0) + 1 })
    return true
  }

  async get(net: string, slot: Date, options?: RunSlotOptions): Promise<RunRecord | undefined> {
    const name = checkNet(COMPONENT, 'get', net)
    const at = checkInstant({ component: COMPONENT, operation: 'get', net: name }, 'slot', slot)
    checkNotAborted({ component: COMPONENT, operation: 'get', net: name, slot: at }, options?.signal)
    const record = this.#runs.get(runId(name, at, options?.manual))
    return record && copy(record)
  }

  async history(net: string, limit: number, options?: RunHistoryOptions): Promise<RunRecord[]> {
    const name = checkNet(COMPONENT, 'history', net)
    const context = { component: COMPONENT, operation: 'history', net: name }
    const count = checkCount(context, 'limit', limit, 1)
    const until = options?.until === undefined ? undefined : checkInstant(context, 'until', options.until)
    checkNotAborted(context, options?.signal)
    return this.#newestFirst(name)
      .filter((r) => until === undefined || r.slot.getTime() <= until.getTime())
      .slice(0, count)
      .map(copy)
  }

  async prune(net: string, keep: number, options?: RunHistoryOptions): Promise<number> {
    const name = checkNet(COMPONENT, 'prune', net)
    const context = { component: COMPONENT, operation: 'prune', net: name }
    const kept = checkCount(context, 'keep', keep, 0)
    const until = options?.until === undefined ? undefined : checkInstant(context, 'until', options.until)
    checkNotAborted(context, options?.signal)
    const old = this.#newestFirst(name)
      .filter((r) => until === undefined || r.slot.getTime() <= until.getTime())
      .slice(kept)
    for (const record of old) this.#runs.delete(record.id)
    return old.length
  }

  #newestFirst(net: string): RunRecord[] {
    return [...this.#runs.values()]
      .filter((r) => r.net === net)
      .sort((a, b) => b.slot.getTime() - a.slot.getTime())
  }
}

function isUnrun(record: RunRecord | undefined): boolean {
  const unrun: readonly (string | undefined)[] = UNRUN_OUTCOMES
  return unrun.includes(record?.outcome)
}

function copy(record: RunRecord): RunRecord {
  const out: RunRecord = {
    ...record,
    slot: new Date(record.slot),
    startedAt: new Date(record.startedAt),
  }
  if (record.finishedAt) out.finishedAt = new Date(record.finishedAt)
  if (record.requests) out.requests = { ...record.requests }
  return out
}
