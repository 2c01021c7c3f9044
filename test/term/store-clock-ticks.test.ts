/**
 * A replica whose clock runs ahead of the store's server starts each slot at the server's instant, not
 * its own: with the offset the clock guard measured (5 s ahead, the most it tolerates at the default TTL),
 * neither the election's catch-up nor a tick runs a slot before its time. Through the worker's term (fake
 * timers, memory store and ledger); the offset is the one input the test gives, as the guard would.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, MemoryRunLedger } from '../../src/index.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { campaignOptions } from '../support/term-specs.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const AHEAD_MS = 5_000

/** A minute net's passes over `ms` of this replica's clock, from 15:01:02 on it (15:00:57 on the server's). */
async function passesAhead(tickOffsetMs: (() => number) | undefined, ms: number) {
  const recording = recordingNet({ schedule: '* * * * *' })
  const loaded = loadConfig({ LEASECRON_FORGE: 'sandbox' }, [recording.net], TEST_LEASES, {
    needsForge: false,
  })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  const stop = new AbortController()
  const options = {
    ledger: new MemoryRunLedger(),
    signal: stop.signal,
    ...(tickOffsetMs ? { tickOffsetMs } : {}),
  }
  const done = runNetCampaign(campaignOptions(loaded.config.nets[0]!, options))
  await vi.advanceTimersByTimeAsync(ms)
  stop.abort()
  await vi.advanceTimersByTimeAsync(5_000)
  await done
  return recording.passes.map((p) => ({ slot: p.slot, early: Date.parse(p.slot!) + AHEAD_MS - p.at! }))
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
  vi.setSystemTime(new Date('2026-09-30T15:01:02.000Z'))
})
afterEach(() => vi.useRealTimers())

describe('a replica whose clock runs ahead of the store server', () => {
  it('starts no slot before the server’s instant: the election leaves the slot not yet due to its tick', async () => {
    const passes = await passesAhead(() => AHEAD_MS, 70_000)
    expect(passes.map((p) => p.slot)).toEqual([
      '2026-09-30T15:00:00.000Z',
      '2026-09-30T15:01:00.000Z',
      '2026-09-30T15:02:00.000Z',
    ])
    // The election's catch-up runs 15:00, due on both clocks; 15:01 waits for the server's 15:01.
    for (const { slot, early } of passes.slice(1))
      expect(early, `slot ${slot} started ${early} ms before the server's instant`).toBeLessThanOrEqual(0)
  })

  it('without the offset, starts the slot on its own clock, 5 s early by the server’s (what the guard’s offset corrects)', async () => {
    const passes = await passesAhead(undefined, 70_000)
    const early = passes.find((p) => p.slot === '2026-09-30T15:01:00.000Z')?.early
    expect(early, 'the test cannot tell an early start from an on-time one').toBeGreaterThan(AHEAD_MS / 2)
  })
})
