/**
 * ServedTerm.withPass: a pass's signal ends with its term and with its job (a pause with --abort), and
 * follows them only while the pass runs, so a term that lasts days keeps nothing of its passes
 * (lease/follow-abort.ts), through the real slot pass on the real memory ledger.
 */
import { describe, expect, it } from 'vitest'
import { defineNet, loadConfig, MemoryRunLedger } from '../../src/index.js'
import { followerCount } from '../../src/lease/follow-abort.js'
import type { PassContext } from '../../src/nets/net.js'
import { ServedTerm } from '../../src/term/served-term.js'
import { runSlotPass } from '../../src/term/slot-pass.js'
import { anyDependants } from '../support/abort-dependants.js'
import { passSetting } from '../support/term-specs.js'
import { TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'

const slot = new Date('2026-09-30T15:00:00.000Z')

/** A term of a net whose pass does what `pass` says, on a fresh memory ledger. */
function servedTerm(pass: (context: PassContext) => Promise<void>) {
  const net = defineNet({
    name: 'tick-net',
    lease: TICK_LEASE.name,
    schedule: '* * * * *',
    description: 'passes as told',
    options: {},
    setup: () => ({}),
    term: () => pass,
  })
  const loaded = loadConfig({}, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`configuration refused: ${JSON.stringify(loaded)}`)
  const term = new AbortController()
  const served = new ServedTerm({
    setting: passSetting(loaded.config.nets[0]!, { ledger: new MemoryRunLedger() }),
    info: { fence: 1, live: () => !term.signal.aborted, stepDownAt: () => Number.POSITIVE_INFINITY },
    signal: term.signal,
    pass,
  })
  return { served, term }
}

/** A pass that waits for its signal, then rejects with its reason. */
const untilAborted = (context: PassContext) =>
  new Promise<void>((_, reject) =>
    context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }),
  )

describe('ServedTerm.withPass', () => {
  it('leaves nothing on the term’s signal once a hundred passes with a job have ended', async () => {
    const { served, term } = servedTerm(async () => undefined)
    for (let i = 0; i < 100; i++) {
      const job = new AbortController()
      const at = new Date(slot.getTime() + i * 60_000)
      expect(await served.withPass(at, { jobAbort: job.signal }, runSlotPass)).toMatchObject({
        kind: 'ran',
        outcome: 'ok',
      })
    }
    expect(anyDependants(term.signal), 'each pass would stay on the term for its life (Node 20)').toBe(0)
    expect(followerCount(term.signal), 'each pass would stay on the term until it ends').toBe(0)
  })

  it('ends the pass when its job is aborted (a pause with --abort)', async () => {
    const { served } = servedTerm(untilAborted)
    const job = new AbortController()
    const result = served.withPass(slot, { jobAbort: job.signal }, runSlotPass)
    setTimeout(() => job.abort(new Error('paused with --abort')), 20)
    expect(await result).toMatchObject({ kind: 'ran', outcome: 'aborted' })
  })

  it('ends the pass when the term ends, with or without a job', async () => {
    for (const jobAbort of [new AbortController().signal, undefined]) {
      const { served, term } = servedTerm(untilAborted)
      const result = served.withPass(slot, { jobAbort }, runSlotPass)
      setTimeout(() => term.abort(new Error('term ended')), 20)
      expect(await result, `a term's end did not end a pass (job: ${Boolean(jobAbort)})`).toMatchObject({
        kind: 'ran',
        outcome: 'aborted',
      })
    }
  })
})
