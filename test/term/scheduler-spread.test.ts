/**
 * The spread through the real scheduler (runNetCampaign on the memory store and ledger, fake time): the
 * copies of one per-installation net under GITHUB_INSTALLATION_IDS start their passes at their own offsets
 * after each slot, and under GITHUB_INSTALLATION_ID the net's pass starts at the slot.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { InstallationSet } from '../../src/forge/installations/installation-set.js'
import { defineLease, defineNet, loadConfig, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import { installationNets } from '../../src/worker/installation-nets.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { campaignOptions } from '../support/term-specs.js'

const LEASE = defineLease('spread-net', 'test net')

/** Runs the net for each installation of `set` until 04:01:00; the passes' start instants and slots. */
async function passesUnder(set: InstallationSet, ids: readonly number[]) {
  const started: Array<{ net: string; at: number; slot: string }> = []
  const net = defineNet({
    name: 'spread-net',
    lease: LEASE.name,
    scope: 'installation',
    schedule: '*/30 * * * * *',
    description: 'records when its passes start',
    options: {},
    setup: () => ({}),
    term: () => async (ctx) => {
      started.push({ net: `${ctx.installation}`, at: Date.now(), slot: ctx.slot.toISOString() })
    },
  })
  const loaded = loadConfig({}, [net], [LEASE])
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
  const store = new MemoryStore()
  const ledger = new MemoryRunLedger()
  const stop = new AbortController()
  const done = installationNets(loaded.config.nets, set, ids).map(({ net: config }) =>
    runNetCampaign(campaignOptions(config, { store, ledger, runHistory: 100, signal: stop.signal })),
  )
  await vi.advanceTimersByTimeAsync(new Date('2026-12-02T04:01:00Z').getTime() - Date.now())
  stop.abort()
  await vi.advanceTimersByTimeAsync(1000)
  await Promise.all(done)
  // The election's catch-up ran 04:00:00 at once; the ticks' passes are those of 04:00:30.
  return started.filter((p) => p.slot === '2026-12-02T04:00:30.000Z')
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date('2026-12-02T04:00:00.200Z'))
})
afterEach(() => vi.useRealTimers())

it('starts twenty installations’ passes of one slot spread over its first 7.5 s, not at one instant', async () => {
  const ids = Array.from({ length: 20 }, (_, i) => 1001 + i)
  const passes = await passesUnder({ kind: 'list', ids }, ids)
  expect(passes, 'an installation’s 04:00:30 slot did not run once').toHaveLength(20)
  const slot = Date.parse('2026-12-02T04:00:30Z')
  const offsets = passes.map((p) => p.at - slot)
  expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0)
  expect(Math.max(...offsets), 'a pass started past a quarter of the period').toBeLessThan(7_500)
  const seconds = new Set(offsets.map((ms) => Math.floor(ms / 1000)))
  expect(seconds.size, 'the passes still reach the store as one burst').toBeGreaterThanOrEqual(5)
})

it('starts the pass at its slot under GITHUB_INSTALLATION_ID, where there is nothing to spread', async () => {
  const passes = await passesUnder({ kind: 'one', id: 1001 }, [1001])
  expect(passes.map((p) => p.at - Date.parse('2026-12-02T04:00:30Z'))).toEqual([0])
})
