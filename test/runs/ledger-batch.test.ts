/**
 * LedgerBatch over a real MemoryRunLedger (counted, not replaced), on a driven clock: claims (finishes)
 * asked within the window go to the ledger in one claimMany (finishMany), each caller gets its own answer,
 * and a call that cannot wait (aborted) or cannot go (bad arguments) fails alone.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import {
  batchLedgerCalls,
  LEDGER_BATCH_MAX,
  LEDGER_BATCH_WINDOW_MS,
  LedgerBatch,
} from '../../src/runs/ledger-batch.js'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import type {
  RunBatchAnswer,
  RunClaim,
  RunFinish,
  RunFinishEntry,
  RunLedger,
  RunLedgerCallOptions,
  RunSlotOptions,
} from '../../src/runs/run-ledger.js'
import { DrivenClock } from '../support/driven-clock.js'

/** A MemoryRunLedger that records the calls it was sent (its batch methods' inner single calls are not). */
class CountedLedger extends MemoryRunLedger {
  readonly sent: Array<{ kind: string; slots: number[] }> = []
  failNext = false
  /** When set, the batch calls wait for it before they answer (a store slow to reply). */
  hold: Promise<void> | undefined
  #inMany = false

  override claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    if (!this.#inMany) this.sent.push({ kind: 'claim', slots: [minuteOf(claim.slot)] })
    return super.claim(claim, options)
  }

  override finish(
    net: string,
    slot: Date,
    owner: string,
    fence: number,
    finish: RunFinish,
    options?: RunSlotOptions,
  ): Promise<boolean> {
    if (!this.#inMany) this.sent.push({ kind: 'finish', slots: [minuteOf(slot)] })
    return super.finish(net, slot, owner, fence, finish, options)
  }

  override claimMany(claims: readonly RunClaim[]): Promise<RunBatchAnswer[]> {
    return this.#many('claimMany', claims, () => super.claimMany(claims))
  }

  override finishMany(entries: readonly RunFinishEntry[]): Promise<RunBatchAnswer[]> {
    return this.#many('finishMany', entries, () => super.finishMany(entries))
  }

  async #many(kind: string, items: readonly { slot: Date }[], call: () => Promise<RunBatchAnswer[]>) {
    this.sent.push({ kind, slots: items.map((i) => minuteOf(i.slot)) })
    if (this.failNext) throw new Error('the store did not answer')
    await this.hold
    this.#inMany = true
    try {
      return await call()
    } finally {
      this.#inMany = false
    }
  }
}

const t0 = new Date('2026-09-30T15:00:00.000Z')
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000)
const minuteOf = (slot: Date) => (slot.getTime() - t0.getTime()) / 60_000

function claimOf(slotMinutes: number, extra: Partial<RunClaim> = {}): RunClaim {
  return {
    net: 'n',
    slot: at(slotMinutes),
    owner: 'host-a-1',
    fence: 3,
    startedAt: at(slotMinutes),
    ...extra,
  }
}
const ok: RunFinish = { finishedAt: at(1), outcome: 'ok' }

let ledger: CountedLedger
let clock: DrivenClock
let batch: RunLedger

/** Lets the window's timer fire, then the batch's answers settle. */
async function closeWindow(ms = LEDGER_BATCH_WINDOW_MS): Promise<void> {
  clock.jump(ms)
  clock.fireDue()
  await new Promise((resolve) => setImmediate(resolve))
}

beforeEach(() => {
  ledger = new CountedLedger()
  clock = new DrivenClock(t0.toISOString())
  batch = batchLedgerCalls(ledger, clock)
})

describe('LedgerBatch', () => {
  it('is used only over a ledger that can claim or finish many in one call', () => {
    expect(batch, 'a MemoryRunLedger’s calls were not batched').toBeInstanceOf(LedgerBatch)
    const plain = new MemoryRunLedger()
    Object.defineProperty(plain, 'claimMany', { value: undefined })
    Object.defineProperty(plain, 'finishMany', { value: undefined })
    expect(batchLedgerCalls(plain, clock), 'a ledger without batch methods was wrapped').toBe(plain)
  })

  it('sends the claims asked within the window in one claimMany, answering each caller, a duplicate false', async () => {
    const answers = [batch.claim(claimOf(0))]
    clock.jump(LEDGER_BATCH_WINDOW_MS - 1)
    clock.fireDue()
    answers.push(batch.claim(claimOf(1)), batch.claim(claimOf(0, { owner: 'host-b-2', fence: 4 })))
    expect(ledger.sent, 'a claim went before its window closed').toEqual([])
    await closeWindow(1)
    expect(await Promise.all(answers)).toEqual([true, true, false])
    expect(ledger.sent).toEqual([{ kind: 'claimMany', slots: [0, 1, 0] }])
    expect((await ledger.get('n', at(0)))?.owner).toBe('host-a-1')
  })

  it('sends the finishes asked within the window in one finishMany, a wrong fence false, a manual run by its key', async () => {
    for (const claim of [claimOf(0), claimOf(1), claimOf(2, { manual: true })]) await ledger.claim(claim)
    ledger.sent.length = 0
    const answers = [
      batch.finish('n', at(0), 'host-a-1', 3, ok),
      batch.finish('n', at(1), 'host-a-1', 2, ok),
      batch.finish('n', at(2), 'host-a-1', 3, ok, { manual: true }),
    ]
    await closeWindow()
    expect(await Promise.all(answers)).toEqual([true, false, true])
    expect(ledger.sent).toEqual([{ kind: 'finishMany', slots: [0, 1, 2] }])
    expect((await ledger.get('n', at(1)))?.outcome, 'a finish with a wrong fence was written').toBeUndefined()
    expect((await ledger.get('n', at(2), { manual: true }))?.outcome).toBe('ok')
  })

  it('sends a lone call as the plain call, and a call after the window in the next batch', async () => {
    const first = batch.claim(claimOf(0))
    await closeWindow()
    expect(await first).toBe(true)
    const second = batch.claim(claimOf(1))
    await closeWindow()
    expect(await second).toBe(true)
    expect(ledger.sent).toEqual([
      { kind: 'claim', slots: [0] },
      { kind: 'claim', slots: [1] },
    ])
  })

  it('sends a full batch at once, without waiting for the window', async () => {
    const answers = Array.from({ length: LEDGER_BATCH_MAX }, (_, i) => batch.claim(claimOf(i)))
    await new Promise((resolve) => setImmediate(resolve))
    expect((await Promise.all(answers)).every((a) => a)).toBe(true)
    expect(ledger.sent.map((s) => [s.kind, s.slots.length])).toEqual([['claimMany', LEDGER_BATCH_MAX]])
  })

  it('lets a caller whose signal aborts while it waits leave the batch, rejecting with RUN_LEDGER_ABORTED', async () => {
    const stop = new AbortController()
    const leaving = batch.claim(claimOf(0), { signal: stop.signal }).catch((e: unknown) => e)
    const staying = [batch.claim(claimOf(1)), batch.claim(claimOf(2))]
    stop.abort(new Error('term ended'))
    expect(await leaving).toMatchObject({
      name: 'RunLedgerError',
      code: 'RUN_LEDGER_ABORTED',
      operation: 'claim',
      net: 'n',
      slot: at(0),
      message: expect.stringMatching(/aborted before it was sent/),
    })
    await closeWindow()
    expect(await Promise.all(staying)).toEqual([true, true])
    expect(ledger.sent, 'the aborted claim was sent').toEqual([{ kind: 'claimMany', slots: [1, 2] }])
    expect(await ledger.get('n', at(0))).toBeUndefined()
    const already = batch.finish('n', at(1), 'host-a-1', 3, ok, { signal: AbortSignal.abort() })
    await expect(already).rejects.toMatchObject({ code: 'RUN_LEDGER_ABORTED', operation: 'finish' })
  })

  it('rejects a caller whose signal aborts after its batch went at once, the others still answered', async () => {
    let reply = () => {}
    ledger.hold = new Promise((resolve) => {
      reply = resolve
    })
    const stop = new AbortController()
    const leaving = batch.claim(claimOf(0), { signal: stop.signal }).catch((e: unknown) => e)
    const staying = batch.claim(claimOf(1))
    await closeWindow()
    expect(ledger.sent).toEqual([{ kind: 'claimMany', slots: [0, 1] }])
    stop.abort(new Error('claim bound'))
    expect(await leaving).toMatchObject({
      code: 'RUN_LEDGER_ABORTED',
      slot: at(0),
      message: expect.stringMatching(/aborted before its answer arrived/),
    })
    reply()
    expect(await staying).toBe(true)
    expect(
      (await ledger.get('n', at(0)))?.owner,
      'the sent claim did not land (fail-closed: no pass ran it)',
    ).toBe('host-a-1')
  })

  it('refuses a bad call at once and alone, never failing the batch it would have joined', async () => {
    const good = batch.claim(claimOf(0))
    await expect(batch.claim(claimOf(1, { owner: '' }))).rejects.toMatchObject({
      name: 'RunLedgerError',
      code: 'RUN_LEDGER_INVALID',
      operation: 'claim',
    })
    const bad = { finishedAt: at(1), outcome: 'done' as never }
    await expect(batch.finish('n', at(0), 'host-a-1', 3, bad)).rejects.toMatchObject({
      code: 'RUN_LEDGER_INVALID',
      operation: 'finish',
    })
    await closeWindow()
    expect(await good).toBe(true)
    expect(ledger.sent).toEqual([{ kind: 'claim', slots: [0] }])
  })

  it('rejects every caller of a batch the ledger did not answer, and passes other calls straight through', async () => {
    ledger.failNext = true
    const answers = [batch.claim(claimOf(0)), batch.claim(claimOf(1))].map((p) => p.catch((e: unknown) => e))
    await closeWindow()
    for (const answer of await Promise.all(answers))
      expect(answer).toMatchObject({ message: 'the store did not answer' })
    ledger.failNext = false
    const account = { net: 'n', slot: at(5), owner: 'o', fence: 1, at: at(6), outcome: 'missed' as const }
    expect(await batch.account(account), 'account waited for a window').toBe(true)
    expect((await batch.history('n', 10)).map((r) => r.outcome)).toEqual(['missed'])
  })
})
