/**
 * A pass never starts once its term may no longer act: a won claim whose term reached its step-down
 * instant before the pass began — while the claim or the first pass's read of older runs was in flight —
 * records the slot `aborted` without calling the net. The chaos suite saw the second case: a holder
 * stopped (SIGSTOP) during that read woke past its step-down instant and started the pass anyway.
 * Through the real slot pass and served term on the real memory ledger; the term's liveness is the one
 * thing the test drives, as the lease's term would on its step-down.
 */
import { describe, expect, it } from 'vitest'
import { defineNet, loadConfig, MemoryRunLedger } from '../../src/index.js'
import type {
  RunClaim,
  RunHistoryOptions,
  RunLedgerCallOptions,
  RunRecord,
} from '../../src/runs/run-ledger.js'
import { ServedTerm } from '../../src/term/served-term.js'
import { runSlotPass } from '../../src/term/slot-pass.js'
import { passSetting } from '../support/term-specs.js'
import { TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'

const slot = new Date('2026-09-30T15:00:00.000Z')

/** The call whose answer finds the term past its step-down instant (`never`: the term stays live). */
type During = 'claim' | 'history' | 'never'

/** A memory ledger that reports when a call of the kind `during` has been answered. */
class SteppingLedger extends MemoryRunLedger {
  constructor(
    readonly during: During,
    readonly onAnswer: () => void,
  ) {
    super()
  }

  override async claim(claim: RunClaim, options?: RunLedgerCallOptions): Promise<boolean> {
    const won = await super.claim(claim, options)
    if (this.during === 'claim') this.onAnswer()
    return won
  }

  override async history(net: string, limit: number, options?: RunHistoryOptions): Promise<RunRecord[]> {
    const runs = await super.history(net, limit, options)
    if (this.during === 'history') this.onAnswer()
    return runs
  }
}

/** One pass of a net for `slot` in a term that passes its step-down instant while `during` is answered. */
async function passWhoseTermEndsDuring(during: During) {
  let calls = 0
  const net = defineNet({
    name: 'tick-net',
    lease: TICK_LEASE.name,
    schedule: '* * * * *',
    description: 'a pass the served term below stands in for',
    options: {},
    setup: () => ({}),
    term: () => async () => undefined,
  })
  const loaded = loadConfig({}, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`configuration refused: ${JSON.stringify(loaded)}`)
  let pastStepDown = false
  const ledger = new SteppingLedger(during, () => {
    pastStepDown = true
  })
  const served = new ServedTerm({
    setting: passSetting(loaded.config.nets[0]!, { ledger }),
    info: { fence: 1, live: () => !pastStepDown, stepDownAt: () => Number.POSITIVE_INFINITY },
    signal: new AbortController().signal,
    pass: async () => {
      calls++
    },
  })
  const result = await served.withPass(slot, {}, runSlotPass)
  const [record] = await ledger.history('tick-net', 1)
  return { result, calls, record }
}

describe('a pass whose term ended before it began', () => {
  it('is not run when the step-down instant passes while its first read of older runs is in flight', async () => {
    const { result, calls, record } = await passWhoseTermEndsDuring('history')
    expect(calls, 'the pass started after its term’s step-down: a successor may be running the net').toBe(0)
    expect(result).toMatchObject({ kind: 'ran', outcome: 'aborted', attempts: 0 })
    expect(record, 'the slot was left claimed and unfinished').toMatchObject({ outcome: 'aborted' })
  })

  it('is not run when the step-down instant passes while its claim is in flight', async () => {
    const { result, calls, record } = await passWhoseTermEndsDuring('claim')
    expect(calls, 'the pass started after its term’s step-down: a successor may be running the net').toBe(0)
    expect(result).toMatchObject({ kind: 'ran', outcome: 'aborted', attempts: 0 })
    expect(record, 'the slot was left claimed and unfinished').toMatchObject({ outcome: 'aborted' })
  })

  it('runs once when the term stays live through its claim and its read', async () => {
    const { result, calls, record } = await passWhoseTermEndsDuring('never')
    expect(calls, 'a live term’s pass did not run: the checks above cannot tell').toBe(1)
    expect(result).toMatchObject({ kind: 'ran', outcome: 'ok', attempts: 1 })
    expect(record).toMatchObject({ outcome: 'ok' })
  })
})
