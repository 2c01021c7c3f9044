/**
 * A store outage shorter than the TTL, within a term, through the real scheduler (runNetCampaign): the
 * lease store (FaultyStore over MemoryStore) and the run ledger (MemoryRunLedger that refuses every call
 * while down) stop answering together around a minute slot's instant, as one Mongo server would, at the
 * seed's pace (TTL 180 s, retry 60 s, set: the shipped 30 s TTL gives up a term after 25 s without the
 * store). The holder keeps its term; the slot whose claim was not answered
 * must then be run late or recorded `missed` — never left without a record (issue #26's finding).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, MemoryRunLedger, MemoryStore, RunLedgerError } from '../../src/index.js'
import type { RunLedgerCallOptions, RunRecord } from '../../src/runs/run-ledger.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { FaultyStore } from '../lease/faulty-store.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { campaignOptions } from '../support/term-specs.js'

const NET = 'tick-net'
const at = (hhmmss: string) => new Date(`2026-10-01T${hhmmss}.000Z`)

/** The real memory ledger, unreachable while `down`: every call fails as a dropped connection would. */
class OutageLedger extends MemoryRunLedger {
  down = false
  /** A claim lands but its answer is lost (the connection drops after the write). */
  loseClaimAnswers = false
  /** History reads (the look back's read, and each pass's read of older terms' unfinished runs). */
  reads = 0
  #reach(operation: string): void {
    if (this.down || operation === 'claim answer')
      throw new RunLedgerError('RUN_LEDGER_FAILED', { component: 'OutageLedger', operation }, 'unreachable')
  }
  override async claim(...args: Parameters<MemoryRunLedger['claim']>) {
    this.#reach('claim')
    const won = await super.claim(...args)
    if (this.loseClaimAnswers) this.#reach('claim answer')
    return won
  }
  override async account(...args: Parameters<MemoryRunLedger['account']>) {
    this.#reach('account')
    return super.account(...args)
  }
  override async finish(...args: Parameters<MemoryRunLedger['finish']>) {
    this.#reach('finish')
    return super.finish(...args)
  }
  override async close(...args: Parameters<MemoryRunLedger['close']>) {
    this.#reach('close')
    return super.close(...args)
  }
  override async history(net: string, limit: number, options?: RunLedgerCallOptions): Promise<RunRecord[]> {
    this.reads++
    this.#reach('history')
    return super.history(net, limit, options)
  }
  override async prune(...args: Parameters<MemoryRunLedger['prune']>) {
    this.#reach('prune')
    return super.prune(...args)
  }
}

function holder(variables: Record<string, string> = {}) {
  const { net, passes, terms } = recordingNet({ schedule: '* * * * *' })
  // The seed's pace (TTL 180 s, retry 60 s): the outages below are shorter than its TTL by design.
  const env = Object.fromEntries(
    Object.entries({ TTL_MS: '180000', RETRY_MS: '60000', ...variables }).map(([k, v]) => [
      `LEASECRON_NET_TICK_NET_${k}`,
      v,
    ]),
  )
  const loaded = loadConfig(env, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
  const ledger = new OutageLedger()
  const store = new FaultyStore(new MemoryStore(), () => (ledger.down ? { kind: 'fail' } : { kind: 'pass' }))
  const stop = new AbortController()
  const done = runNetCampaign(campaignOptions(loaded.config.nets[0]!, { store, ledger, signal: stop.signal }))
  const finish = async () => {
    stop.abort()
    await vi.advanceTimersByTimeAsync(1000)
    await done
  }
  return { ledger, passes, finish, terms }
}

/** Advances fake time to `instant` (UTC, same day). */
const until = (instant: string) => vi.advanceTimersByTimeAsync(at(instant).getTime() - Date.now())

async function recordOf(ledger: MemoryRunLedger, instant: string) {
  return ledger.get(NET, at(instant))
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date('2026-10-01T15:00:00.200Z'))
})
afterEach(() => vi.useRealTimers())

describe('a store outage shorter than the TTL within a term', () => {
  it('runs the slot whose claim the store did not answer late, once the store answers again, before the next slot', async () => {
    const h = holder()
    await until('15:00:50')
    h.ledger.down = true
    await until('15:01:05')
    expect(
      h.passes.map((p) => p.slot),
      'a pass ran without a claim',
    ).toEqual([at('15:00:00').toISOString()])
    h.ledger.down = false // down 15:00:50–15:01:05: 15 s, well within the TTL of 180 s
    await until('15:01:30')
    const late = await recordOf(h.ledger, '15:01:00')
    expect(
      late,
      'the slot that fell due while the store was down has no record: silently lost',
    ).toMatchObject({
      outcome: 'ok',
      owner: 'alpha',
    })
    expect(late!.startedAt.getTime(), 'the late run did not start before the next slot').toBeLessThan(
      at('15:02:00').getTime(),
    )
    await until('15:02:05')
    expect(h.passes.map((p) => p.slot)).toEqual(
      ['15:00:00', '15:01:00', '15:02:00'].map((t) => at(t).toISOString()),
    )
    expect(h.terms(), 'the holder lost its term: the outage was meant to be shorter than the TTL').toBe(1)
    await h.finish()
  })

  it('records the slot missed, with the reason, when the store answers only after the next slot fell due', async () => {
    const h = holder()
    await until('15:00:50')
    h.ledger.down = true
    await until('15:02:05') // 75 s down: the 15:01 and 15:02 claims both fail; still within the TTL
    h.ledger.down = false
    await until('15:02:40')
    const missed = await recordOf(h.ledger, '15:01:00')
    expect(missed, 'the slot lost to the outage has no record: users are never told').toMatchObject({
      outcome: 'missed',
    })
    expect(missed!.error ?? '').toMatch(/run ledger did not answer/)
    expect(await recordOf(h.ledger, '15:02:00'), 'the newest due slot was not run late').toMatchObject({
      outcome: 'ok',
    })
    expect(
      h.passes.map((p) => p.slot),
      'a slot past its deadline ran, or one ran twice',
    ).toEqual(['15:00:00', '15:02:00'].map((t) => at(t).toISOString()))
    expect(h.terms()).toBe(1)
    await h.finish()
  })

  it('under CATCH_UP=none records the slot missed instead of running it late', async () => {
    const h = holder({ CATCH_UP: 'none' })
    await until('15:00:50')
    await until('15:01:30') // the term's first tick, at 15:01, ran; CATCH_UP=none ran nothing at election
    h.ledger.down = true
    await until('15:02:05')
    h.ledger.down = false
    await until('15:02:40')
    expect(await recordOf(h.ledger, '15:02:00'), 'the slot lost to the outage has no record').toMatchObject({
      outcome: 'missed',
    })
    expect(h.passes.map((p) => p.slot)).toEqual([at('15:01:00').toISOString()])
    await h.finish()
  })

  it('records aborted a claim that landed though its answer was lost, and never runs it', async () => {
    const h = holder()
    await until('15:00:50')
    h.ledger.loseClaimAnswers = true
    await until('15:01:05')
    h.ledger.loseClaimAnswers = false
    await until('15:01:30')
    const lost = await recordOf(h.ledger, '15:01:00')
    expect(lost, 'the claim that landed unanswered stays “running” forever').toMatchObject({
      outcome: 'aborted',
      attempts: 0,
      owner: 'alpha',
    })
    expect(lost!.error ?? '').toMatch(/claim landed later/)
    await until('15:02:05')
    expect(
      h.passes.map((p) => p.slot),
      'a slot whose claim was not answered ran',
    ).toEqual(['15:00:00', '15:02:00'].map((t) => at(t).toISOString()))
    await h.finish()
  })

  it('looks for older terms’ claims until a pass ends a call bound after the term began, then every tenth pass', async () => {
    const h = holder()
    await until('15:00:30')
    const first = h.ledger.reads
    await until('15:02:30')
    // The term began at 15:00:00.2 and its call bound is 60 s (TTL 180 s): the 15:00 catch-up and the 15:01
    // pass ended before 15:01:00.2, when every older claim had landed, so the 15:02 pass looked too.
    expect(h.ledger.reads - first, 'a young term did not look once older claims had all landed').toBe(2)
    const settled = h.ledger.reads
    await until('15:05:30')
    // Passes 4 to 6: no look; an older term's claim has landed by now or never will.
    expect(h.ledger.reads - settled, 'a term kept looking for claims that had all landed').toBe(0)
    await until('15:15:30')
    // Passes 7 to 16: only the tenth reads. Each read scans the whole ledger on FerretDB/SQLite.
    expect(
      h.ledger.reads - settled,
      'a quiet term stopped looking, or reads the whole ledger every pass',
    ).toBe(1)
    await h.finish()
  })
})
