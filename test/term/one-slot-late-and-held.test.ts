/**
 * runOnce's two answers for a trigger that must not run its slot, on the memory twins and a real lease
 * campaign: a slot older than `missAfterMs` (a serverless trigger's catch-up window) is recorded `missed`
 * through the ledger's account path and never runs, and a lease held by another owner answers
 * `slot-taken` when the ledger shows the slot claimed, `held` when it does not (or holds only an account).
 */
import { describe, expect, it } from 'vitest'
import { loadConfig, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import type { NetConfig } from '../../src/config/worker-config.js'
import { type OnceSpec, runOnce } from '../../src/term/one-slot.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { onceSpec } from '../support/term-specs.js'

const HOUR = 3_600_000
const OTHER = 'another-owner-0123456789ab'

function netConfig(definition: ReturnType<typeof recordingNet>['net']): NetConfig {
  const loaded = loadConfig({}, [definition], TEST_LEASES, { needsForge: false })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return loaded.config.nets[0]!
}

/** A whole-second slot `hoursAgo` hours back: the recording net fires every second. */
function slotAgo(hoursAgo: number): Date {
  return new Date(Math.floor((Date.now() - hoursAgo * HOUR) / 1000) * 1000)
}

function spec(net: NetConfig, slot: Date, overrides: Partial<OnceSpec> = {}): OnceSpec {
  return onceSpec(net, slot, { owner: 'once-test-0123456789ab', runHistory: 100, ...overrides })
}

describe('runOnce for a late trigger', () => {
  it('records a slot older than missAfterMs missed, runs nothing, and answers slot-taken to its redelivery', async () => {
    const recording = recordingNet()
    const net = netConfig(recording.net)
    const ledger = new MemoryRunLedger()
    const slot = slotAgo(25)
    const late = spec(net, slot, { ledger, missAfterMs: 24 * HOUR })
    expect(await runOnce(late)).toMatchObject({ outcome: 'missed', fence: null })
    expect(await ledger.get(net.definition.name, slot)).toMatchObject({
      outcome: 'missed',
      attempts: 0,
      fence: 0,
      error: expect.stringMatching(/outside the catch-up window of 1d \(CATCH_UP_WINDOW\)/),
    })
    expect(await runOnce(late)).toMatchObject({ outcome: 'slot-taken' })
    expect(recording.passes, 'a slot outside the window ran').toEqual([])
  })

  it('runs a slot within missAfterMs as once always has', async () => {
    const recording = recordingNet()
    const slot = slotAgo(23)
    const result = await runOnce(spec(netConfig(recording.net), slot, { missAfterMs: 24 * HOUR }))
    expect(result).toMatchObject({ outcome: 'ran', slot: slot.toISOString() })
    expect(recording.passes.map((p) => p.slot)).toEqual([slot.toISOString()])
  })

  it('runs any slot, however old, without missAfterMs (once --slot, backfill)', async () => {
    const recording = recordingNet()
    const result = await runOnce(spec(netConfig(recording.net), slotAgo(25)))
    expect(result.outcome).toBe('ran')
  })
})

describe('runOnce against a lease another owner holds', () => {
  async function heldBy(net: NetConfig) {
    const store = new MemoryStore()
    expect(await store.acquire(net.definition.lease, OTHER, new Date(), 60_000)).toBeTruthy()
    return store
  }

  it('answers slot-taken when the ledger shows the slot claimed: the holder runs it', async () => {
    const net = netConfig(recordingNet().net)
    const ledger = new MemoryRunLedger()
    const slot = slotAgo(0)
    const claim = { net: net.definition.name, slot, owner: OTHER, fence: 1, startedAt: new Date() }
    expect(await ledger.claim(claim)).toBe(true)
    const result = await runOnce(spec(net, slot, { store: await heldBy(net), ledger }))
    expect(result).toMatchObject({ outcome: 'slot-taken', holder: OTHER })
  })

  it('answers held when the slot has no claim, or only an account that a claim may take over', async () => {
    const net = netConfig(recordingNet().net)
    const ledger = new MemoryRunLedger()
    const store = await heldBy(net)
    const slot = slotAgo(0)
    expect(await runOnce(spec(net, slot, { store, ledger }))).toMatchObject({
      outcome: 'held',
      holder: OTHER,
    })
    const account = { net: net.definition.name, slot, owner: OTHER, fence: 1, at: new Date() }
    expect(await ledger.account({ ...account, outcome: 'paused' })).toBe(true)
    expect(await runOnce(spec(net, slot, { store, ledger }))).toMatchObject({ outcome: 'held' })
  })
})
