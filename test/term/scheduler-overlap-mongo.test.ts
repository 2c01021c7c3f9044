/**
 * OVERLAP on the test Mongo (MongoRunLedger, real time): an every-second net whose passes take 1.5 s.
 * `allow` starts each slot's pass at its tick beside the running ones, `buffer-all` runs every slot one
 * after another, `replace` aborts the pass in flight for the next slot — and under each every slot has one
 * record. The exact timings are the fake-timer tests' (test/term/scheduler.test.ts); the bounds here are
 * generous for a loaded machine.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig, MongoRunLedger } from '../../src/index.js'
import type { OverlapPolicy } from '../../src/nets/net.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { useTestDatabase } from '../support/mongo.js'
import { campaignOptions } from '../support/term-specs.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const mongo = await useTestDatabase('overlap')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs tick-net under `overlap` for about `ms` on its own ledger collection; its records, oldest first. */
async function runUnder(overlap: OverlapPolicy, ms: number) {
  const ledger = new MongoRunLedger(mongo.db, { collection: `net_runs_${overlap.replace('-', '_')}` })
  await ledger.ensureIndexes()
  const { net } = recordingNet({ passMs: () => 1_500 })
  const env = {
    LEASECRON_NET_TICK_NET_OVERLAP: overlap,
    LEASECRON_NET_TICK_NET_CATCH_UP: 'none',
    LEASECRON_NET_TICK_NET_TIMEOUT: '1m',
  }
  const loaded = loadConfig(env, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
  const stop = new AbortController()
  const done = runNetCampaign(campaignOptions(loaded.config.nets[0]!, { ledger, signal: stop.signal }))
  await sleep(ms)
  stop.abort()
  await done
  const runs = (await ledger.history('tick-net', 100)).reverse()
  const slots = runs.map((r) => r.slot.getTime())
  expect(new Set(slots).size, 'a slot has two records').toBe(slots.length)
  expect(slots, 'the records are not one per slot, in order').toEqual([...slots].sort((a, b) => a - b))
  return runs
}

describe('OVERLAP on the test Mongo', () => {
  it('allow: passes overlap, each starting at its own slot', async () => {
    const runs = await runUnder('allow', 4_500)
    expect(runs.length, 'too few slots ran to see an overlap').toBeGreaterThanOrEqual(3)
    for (const run of runs)
      expect(run.startedAt.getTime() - run.slot.getTime(), 'a pass waited for the one before').toBeLessThan(
        900,
      )
    const [first, second] = runs
    expect(second!.startedAt.getTime(), 'the second pass did not start beside the first').toBeLessThan(
      first!.finishedAt!.getTime(),
    )
  }, 30_000)

  it('buffer-all: passes run one after another, and no slot is let go', async () => {
    const runs = await runUnder('buffer-all', 4_500)
    expect(runs.map((r) => r.outcome)).not.toContain('skipped')
    for (let i = 1; i < runs.length; i++)
      if (runs[i - 1]!.finishedAt)
        expect(runs[i]!.startedAt.getTime(), 'two passes ran at once').toBeGreaterThanOrEqual(
          runs[i - 1]!.finishedAt!.getTime(),
        )
  }, 30_000)

  it('replace: each pass in flight is aborted for the next slot, saying which', async () => {
    const runs = await runUnder('replace', 3_500)
    const replaced = runs.filter((r) => /OVERLAP=replace/.test(r.error ?? ''))
    expect(replaced.length, 'no pass was replaced').toBeGreaterThanOrEqual(1)
    for (const run of replaced) expect(run.outcome).toBe('aborted')
  }, 30_000)
})
