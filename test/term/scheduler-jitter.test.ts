/**
 * JITTER through the real scheduler (runNetCampaign on the memory store and ledger, fake time): each pass
 * of a net starts at its stable offset after its slot, the pass and its ledger record keep the schedule's
 * slot, and JITTER replaces a per-installation net's automatic spread.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineLease, defineNet, loadConfig, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { jitterOffsetMs } from '../../src/term/slot-spread.js'
import { installationNets } from '../../src/worker/installation-nets.js'
import { campaignOptions } from '../support/term-specs.js'

const LEASE = defineLease('jitter-net', 'test net')

/** Runs the net until `until` with `env`; its passes' start instants and slots, and the ledger. */
async function passesUntil(until: string, env: Record<string, string>, scope?: 'installation') {
  const started: Array<{ net: string; at: number; slot: string }> = []
  const net = defineNet({
    name: 'jitter-net',
    lease: LEASE.name,
    ...(scope ? { scope } : {}),
    schedule: '* * * * *',
    description: 'records when its passes start',
    options: {},
    setup: () => ({}),
    term: () => async (ctx) => {
      started.push({ net: `${ctx.installation ?? ''}`, at: Date.now(), slot: ctx.slot.toISOString() })
    },
  })
  const loaded = loadConfig(env, [net], [LEASE], { needsForge: false })
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
  const ledger = new MemoryRunLedger()
  const stop = new AbortController()
  const configs =
    scope === 'installation'
      ? installationNets(loaded.config.nets, { kind: 'list', ids: [1001, 1002] }, [1001, 1002]).map(
          (n) => n.net,
        )
      : loaded.config.nets
  const store = new MemoryStore()
  const done = configs.map((config) =>
    runNetCampaign(campaignOptions(config, { store, ledger, runHistory: 100, signal: stop.signal })),
  )
  await vi.advanceTimersByTimeAsync(Date.parse(until) - Date.now())
  stop.abort()
  await vi.advanceTimersByTimeAsync(1000)
  await Promise.all(done)
  return { started, ledger }
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date('2026-12-02T04:00:00.200Z'))
})
afterEach(() => vi.useRealTimers())

describe('a net with JITTER', () => {
  it('starts every ticked pass at the same offset after its slot, and keeps the slot as the schedule’s', async () => {
    const { started, ledger } = await passesUntil('2026-12-02T04:04:00Z', {
      LEASECRON_NET_JITTER_NET_JITTER: '50s',
    })
    const offset = jitterOffsetMs('jitter-net', 50_000)
    // The election's catch-up runs 04:00 at once; the ticks are those of 04:01, 04:02 and 04:03.
    const ticked = started.slice(1)
    expect(ticked.map((p) => p.slot)).toEqual([
      '2026-12-02T04:01:00.000Z',
      '2026-12-02T04:02:00.000Z',
      '2026-12-02T04:03:00.000Z',
    ])
    expect(
      ticked.map((p) => p.at - Date.parse(p.slot)),
      'a pass did not start at the net’s own offset',
    ).toEqual([offset, offset, offset])
    expect(offset, 'the offset is not within [0, JITTER)').toBeGreaterThanOrEqual(0)
    expect(offset).toBeLessThan(50_000)
    const records = await ledger.history('jitter-net', 10)
    expect(records.map((r) => r.slot.toISOString()).sort()).toEqual([
      '2026-12-02T04:00:00.000Z',
      ...ticked.map((p) => p.slot),
    ])
  })

  it('starts at the slot without JITTER', async () => {
    const { started } = await passesUntil('2026-12-02T04:02:00Z', {})
    expect(started.slice(1).map((p) => p.at - Date.parse(p.slot))).toEqual([0, 0])
  })

  it('gives each installation of a per-installation net its own share of JITTER, not the automatic spread', async () => {
    const { started } = await passesUntil(
      '2026-12-02T04:02:00Z',
      { LEASECRON_NET_JITTER_NET_JITTER: '50s' },
      'installation',
    )
    const ticked = started.filter((p) => p.slot === '2026-12-02T04:01:00.000Z')
    const offsets = Object.fromEntries(ticked.map((p) => [p.net, p.at - Date.parse(p.slot)]))
    expect(offsets).toEqual({
      '1001': jitterOffsetMs('jitter-net:1001', 50_000),
      '1002': jitterOffsetMs('jitter-net:1002', 50_000),
    })
  })
})
