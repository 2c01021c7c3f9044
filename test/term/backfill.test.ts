/**
 * runBackfill in-process on the memory twins and a real lease campaign: the slots run oldest first under
 * one term whose renewals carry it past several TTLs, a failed slot is recorded and the next one runs, a
 * recorded slot is skipped and a `missed` one runs, and a signal aborts the slot in flight, runs no more
 * and releases the lease. The CLI around it is tested on real processes in test/e2e/backfill-e2e.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import type { NetConfig } from '../../src/config/worker-config.js'
import { type BackfillSpec, runBackfill } from '../../src/term/backfill.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { backfillSpec } from '../support/term-specs.js'

const SLOTS = Array.from({ length: 6 }, (_, i) => new Date(Date.UTC(2026, 8, 30, 10, 0, i)))

function netConfig(
  definition: ReturnType<typeof recordingNet>['net'],
  env: Record<string, string> = {},
): NetConfig {
  const loaded = loadConfig({ LEASECRON_NET_TICK_NET_RETRIES: '0', ...env }, [definition], TEST_LEASES, {
    needsForge: false,
  })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return loaded.config.nets[0]!
}

function spec(net: NetConfig, overrides: Partial<BackfillSpec> = {}): BackfillSpec {
  return backfillSpec(net, SLOTS, { owner: 'backfill-test-0123456789ab', ...overrides })
}

describe('runBackfill', () => {
  it('runs every slot oldest first under one term that its renewals keep past several TTLs', async () => {
    const recording = recordingNet({ passMs: () => 400 })
    // TTL 1 s: the term steps down after ~833 ms unless renewals land; six 400 ms passes take 2.4 s. (A
    // TTL that is no multiple of 3 also holds the claim's bound, TTL/3, to whole milliseconds.)
    const net = netConfig(recording.net, { LEASECRON_NET_TICK_NET_TTL_MS: '1000' })
    const progress: number[] = []
    const result = await runBackfill(spec(net, { onSlot: (index) => progress.push(index) }))
    expect(result.end, `the backfill ended early: ${JSON.stringify(result.slots)}`).toBe('done')
    expect(result.counts.ok).toBe(6)
    expect(recording.passes.map((p) => p.slot)).toEqual(SLOTS.map((s) => s.toISOString()))
    expect(new Set(recording.passes.map((p) => p.fence)), 'the slots ran under more than one term').toEqual(
      new Set([result.fence]),
    )
    expect(recording.terms(), 'the net’s term was built more than once').toBe(1)
    expect(progress).toEqual([0, 1, 2, 3, 4, 5])
  }, 20_000)

  it('records a failed slot and runs the next, skips a recorded slot and runs a missed one', async () => {
    const recording = recordingNet({ fail: (pass) => pass === 2 })
    const net = netConfig(recording.net)
    const ledger = new MemoryRunLedger()
    const [first, second, third, fourth] = SLOTS
    const other = { net: 'tick-net', owner: 'someone-else', fence: 7 }
    expect(await ledger.claim({ ...other, slot: second!, startedAt: new Date() })).toBe(true)
    expect(await ledger.account({ ...other, slot: third!, at: new Date(), outcome: 'missed' })).toBe(true)
    const result = await runBackfill(spec(net, { ledger, slots: [first!, second!, third!, fourth!] }))
    expect(result.slots.map((s) => s.outcome)).toEqual(['ok', 'slot-taken', 'failed', 'ok'])
    expect(result.slots[2]?.error).toMatch(/pass 2 failed on purpose/)
    expect((await ledger.get('tick-net', third!))?.outcome, 'the missed slot was not taken over').toBe(
      'failed',
    )
    expect((await ledger.get('tick-net', second!))?.owner, 'a slot that ran was overwritten').toBe(
      'someone-else',
    )
  })

  it('on its signal aborts the slot in flight, runs no more slots and releases the lease', async () => {
    const recording = recordingNet({ passMs: () => 60_000 })
    const net = netConfig(recording.net)
    const interrupt = new AbortController()
    const store = new MemoryStore()
    const ledger = new MemoryRunLedger()
    const done = runBackfill(spec(net, { store, ledger, signal: interrupt.signal }))
    for (let i = 0; i < 200 && recording.passes.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    interrupt.abort(new Error('SIGINT: backfill stopping'))
    const result = await done
    expect(result.end).toBe('interrupted')
    expect(result.slots.map((s) => s.outcome)).toEqual(['aborted', ...Array(5).fill('not-run')])
    expect((await ledger.get('tick-net', SLOTS[0]!))?.outcome).toBe('aborted')
    expect(await ledger.get('tick-net', SLOTS[1]!), 'a slot after the signal was claimed').toBeUndefined()
    const lease = await store.get('tick-net')
    expect(lease?.owner, 'the interrupted backfill kept the lease').toBeFalsy()
  }, 20_000)

  it('says held, naming the holder, and runs nothing while another owner holds the lease', async () => {
    const recording = recordingNet()
    const store = new MemoryStore()
    expect(await store.acquire('tick-net', 'a-running-worker-0123', new Date(), 60_000)).toBeTruthy()
    const result = await runBackfill(spec(netConfig(recording.net), { store }))
    expect(result).toMatchObject({ end: 'held', holder: 'a-running-worker-0123', fence: null })
    expect(result.counts['not-run']).toBe(6)
    expect(recording.passes).toEqual([])
  })
})
