/**
 * closeUnfinished over the memory ledger: runs an older term left without an end are closed `aborted`,
 * and nothing else is touched; and a real pass (runOnePass) closes one that landed before it.
 */
import { describe, expect, it } from 'vitest'
import { defineNet } from '../../src/index.js'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import { runOnePass } from '../../src/testing.js'
import { closeUnfinished } from '../../src/term/close-unfinished.js'
import { captureLogs } from '../support/log-capture.js'
import { startSandboxHarness } from '../support/sandbox-harness.js'

const NET = 'tidy'
const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s))
const claim = (s: number, fence: number) => ({
  net: NET,
  slot: at(s),
  owner: `host-${fence}`,
  fence,
  startedAt: at(s),
})

describe('closing runs older terms left unfinished', () => {
  it('ends only the runs with no end and an older fence, and says so once each', async () => {
    const ledger = new MemoryRunLedger()
    await ledger.claim(claim(1, 2)) // its holder died
    await ledger.claim(claim(2, 2))
    await ledger.finish(NET, at(2), 'host-2', 2, { finishedAt: at(3), outcome: 'ok' })
    await ledger.claim(claim(3, 5)) // the closing term's own pass, still running
    const capture = captureLogs()
    const spec = {
      ...{ ledger, fence: 5, now: () => at(9), signal: () => AbortSignal.timeout(1000) },
      ...{ going: () => true, log: capture.logger },
    }
    expect(await closeUnfinished(spec, await ledger.history(NET, 10))).toBe(1)
    expect(await ledger.get(NET, at(1)), 'a dead holder’s slot stays running forever').toMatchObject({
      outcome: 'aborted',
      finishedAt: at(9),
    })
    expect((await ledger.get(NET, at(2)))?.outcome).toBe('ok')
    expect((await ledger.get(NET, at(3)))?.outcome, 'the live term’s own pass was closed').toBeUndefined()
    expect(capture.matching('info', 'closed a run an older term left unfinished')).toHaveLength(1)
    expect(await closeUnfinished(spec, await ledger.history(NET, 10)), 'closed twice').toBe(0)
  })

  it('is done by every pass: a claim an older term left behind is closed by the next pass', async () => {
    const ledger = new MemoryRunLedger()
    await ledger.claim(claim(1, 0)) // fence 0: older than any term runOnePass's store will grant
    const net = defineNet({
      name: NET,
      lease: NET,
      schedule: '* * * * * *',
      description: 'a net that does nothing',
      options: {},
      setup: () => ({}),
      term: () => async () => undefined,
    })
    const h = await startSandboxHarness()
    const run = await runOnePass(net, { ledger, slot: at(30), forge: h.forge }).finally(() => h.close())
    expect(run.record?.outcome).toBe('ok')
    expect((await ledger.get(NET, at(1)))?.outcome, 'the older claim was left running').toBe('aborted')
  })
})
