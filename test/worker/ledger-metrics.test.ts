/**
 * The ledger's metrics as Prometheus scrapes them: two replicas' registries, each reading one shared
 * MemoryRunLedger through its own status snapshot (collectStatus over real sources, shared for a second),
 * neither holding the lease — every replica exports every net's figures. A ledger that does not answer
 * leaves its net without series, and a burst of scrapes reads the ledger once.
 */
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { type Clock, systemClock } from '../../src/lease/clock.js'
import { MemoryStore } from '../../src/lease/memory-store.js'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import type { RunOutcome } from '../../src/runs/run-ledger.js'
import { registerLedgerMetrics } from '../../src/worker/ledger-metrics.js'
import { collectStatus } from '../../src/status/collect-status.js'
import { sharedSnapshot } from '../../src/status/shared-snapshot.js'
import type { StatusSources } from '../../src/status/status-sources.js'

const NOW = new Date('2026-06-10T12:20:30Z')
const HOUR = 3_600_000

/** A ledger of the hourly `digest` net: 09:00 ok, 10:00 ok, 11:00 timed-out, 12:00 failed. */
async function sharedLedger(): Promise<MemoryRunLedger> {
  const ledger = new MemoryRunLedger()
  const outcomes: RunOutcome[] = ['ok', 'ok', 'timed-out', 'failed']
  for (const [i, outcome] of outcomes.entries()) {
    const slot = new Date(Date.parse('2026-06-10T09:00:00Z') + i * HOUR)
    await ledger.claim({ net: 'digest', slot, owner: 'holder-x', fence: 4, startedAt: slot })
    await ledger.finish('digest', slot, 'holder-x', 4, {
      finishedAt: new Date(slot.getTime() + 2_000),
      outcome,
    })
  }
  return ledger
}

/** One replica's registry with the ledger metrics over `history`, on a clock the test moves. */
function replica(owner: string, history: StatusSources['history'], clock: Clock = systemClock): Registry {
  const store = new MemoryStore()
  const sources: StatusSources = {
    replica: { owner, version: '0.0.0', startedAt: NOW.toISOString() },
    nets: [{ name: 'digest', leaseName: 'digest', enabled: true, schedule: '0 * * * *', timeZone: 'UTC' }],
    storeKind: 'memory',
    forgeScope: 'replica',
    ping: async () => true,
    serverVersion: async () => null,
    leases: () => store.list(),
    ...(history ? { history } : {}),
    forgeHours: async () => [],
  }
  const registry = new Registry()
  registerLedgerMetrics(
    registry,
    sharedSnapshot(() => collectStatus(sources, NOW), clock),
  )
  return registry
}

/** The sample lines of the ledger metrics in one scrape. */
async function scrape(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith('leasecron_'))
}

describe('the ledger metrics', () => {
  it('export the last success, the last slot, slots by outcome and the state on every replica', async () => {
    const ledger = await sharedLedger()
    const history = (net: string, limit: number) => ledger.history(net, limit)
    const [a, b] = [await scrape(replica('replica-a', history)), await scrape(replica('replica-b', history))]
    expect(a, 'two replicas of one ledger disagree').toEqual(b)
    const success = Date.parse('2026-06-10T10:00:02Z') / 1000
    expect(a).toEqual(
      expect.arrayContaining([
        `leasecron_net_last_success_timestamp_seconds{net="digest"} ${success}`,
        `leasecron_net_last_slot_timestamp_seconds{net="digest"} ${Date.parse('2026-06-10T12:00:00Z') / 1000}`,
        'leasecron_slots_total{net="digest",outcome="ok"} 2',
        'leasecron_slots_total{net="digest",outcome="failed"} 1',
        'leasecron_slots_total{net="digest",outcome="timed-out"} 1',
        'leasecron_slots_total{net="digest",outcome="missed"} 0',
        'leasecron_slots_total{net="digest",outcome="skipped"} 0',
        'leasecron_slots_total{net="digest",outcome="aborted"} 0',
        'leasecron_net_state{net="digest",state="failing"} 1',
        // 12:00 failed after 11:00 timed out: two in a row, 10:00's success ends the count.
        'leasecron_net_failures_in_row{net="digest"} 2',
        'leasecron_net_state{net="digest",state="ok"} 0',
        'leasecron_net_state{net="digest",state="late"} 0',
        'leasecron_net_state{net="digest",state="missed"} 0',
      ]),
    )
  })

  it('leave a net without series when its ledger does not answer, and still answer the scrape', async () => {
    const lines = await scrape(
      replica('replica-a', async () => {
        throw new Error('store unreachable')
      }),
    )
    expect(
      lines.filter((l) => l.includes('net="digest"')),
      'a guessed figure while the ledger is down',
    ).toEqual([])
  })

  it('read the ledger once for a burst of scrapes within a second', async () => {
    const ledger = await sharedLedger()
    let reads = 0
    const history = (net: string, limit: number) => {
      reads++
      return ledger.history(net, limit)
    }
    const clock: Clock = { ...systemClock, monotonic: () => 0 }
    const registry = replica('replica-a', history, clock)
    await Promise.all(Array.from({ length: 10 }, () => scrape(registry)))
    expect(reads, 'each scrape (or each metric) read the ledger itself').toBe(1)
  })
})
