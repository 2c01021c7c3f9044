/**
 * The ledger's metrics: what each net's runs say, exported by every replica (not only the holder), so a
 * net's figures exist while any replica lives. With Mongo each replica reads the shared ledger; without
 * it, its own.
 *
 * Read at scrape time (prom-client `collect()`) from the status snapshot — the newest runs of each net
 * (RUNS_SHOWN, 20) — which is shared for a second (shared-snapshot.ts) and whose every read is bounded
 * (SOURCE_BOUND_MS): a scrape never writes, a burst of scrapes costs one read per second, and a scrape
 * during a store outage answers within that bound. A net whose ledger did not answer has no series in
 * that scrape (never a stale or guessed figure); its store outage shows as `leasecron_store_up`.
 *
 * What it is not: a counter of passes (`leasecron_pass_attempts_total` counts this process's attempts).
 * `leasecron_slots_total` is a gauge read from the ledger: the outcomes of the newest runs it holds, the
 * same on every replica; compare it (`> 0`, `changes()`), do not `rate()` it.
 */
import { Gauge, type Registry } from 'prom-client'
import { RUN_OUTCOMES } from '../runs/run-ledger.js'
import { failuresInRow } from '../status/failures-in-row.js'
import { NET_STATES } from '../status/net-state.js'
import type { NetStatus, StatusSnapshot } from '../status/status-snapshot.js'

/** Every outcome a slot can have in the ledger, each exported (0 when none of the newest runs has it). */
export const SLOT_OUTCOMES = RUN_OUTCOMES

/** Registers the ledger's gauges in `registry`, each filled from `snapshot()` at scrape time. */
export function registerLedgerMetrics(registry: Registry, snapshot: () => Promise<StatusSnapshot>): void {
  const registers = [registry]
  // Each gauge reads the shared snapshot: one collection serves all of them.
  const filled = (fill: (gauge: Gauge<string>, net: NetStatus) => void) =>
    async function collect(this: Gauge<string>) {
      const { nets } = await snapshot()
      this.reset()
      for (const net of nets) if (net.runs !== null) fill(this, net)
    }
  new Gauge({
    name: 'leasecron_net_last_success_timestamp_seconds',
    help: 'when the newest successful pass among the newest runs of the net in the ledger finished (Unix seconds); absent when none succeeded',
    labelNames: ['net'],
    registers,
    collect: filled((gauge, net) => {
      const success = net.runs?.find((r) => r.outcome === 'ok')
      if (success?.finishedAt) gauge.set({ net: net.name }, seconds(success.finishedAt))
    }),
  })
  new Gauge({
    name: 'leasecron_net_last_slot_timestamp_seconds',
    help: 'the newest slot of the net the ledger holds, whatever its outcome, running included (Unix seconds)',
    labelNames: ['net'],
    registers,
    collect: filled((gauge, net) => {
      const newest = net.runs?.[0]
      if (newest) gauge.set({ net: net.name }, seconds(newest.slot))
    }),
  })
  new Gauge({
    name: 'leasecron_slots_total',
    help: 'slots of the net by outcome among the newest 20 runs the ledger holds (a gauge read from the ledger, the same on every replica: compare it, do not rate() it)',
    labelNames: ['net', 'outcome'],
    registers,
    collect: filled((gauge, net) => {
      for (const outcome of SLOT_OUTCOMES) {
        const count = net.runs?.filter((r) => r.outcome === outcome).length ?? 0
        gauge.set({ net: net.name, outcome }, count)
      }
    }),
  })
  new Gauge({
    name: 'leasecron_net_failures_in_row',
    help: 'how many of the net’s newest slots with a verdict failed or timed out one after another (aborted, skipped and running slots passed over); 0 after a success',
    labelNames: ['net'],
    registers,
    collect: filled((gauge, net) => gauge.set({ net: net.name }, failuresInRow(net.runs ?? []))),
  })
  new Gauge({
    name: 'leasecron_net_state',
    help: 'the net state from its ledger runs and schedule: 1 for the current one of ok, starting (its first pass runs), late (no success within two schedule intervals), slow or too-fast (outside MAX_DURATION or MIN_DURATION), failing (the newest finished slot failed or timed out), missed, paused, finished (past its END_AT, or its MAX_RUNS run)',
    labelNames: ['net', 'state'],
    registers,
    collect: filled((gauge, net) => {
      if (net.state === null) return
      for (const state of NET_STATES) gauge.set({ net: net.name, state }, state === net.state ? 1 : 0)
    }),
  })
}

function seconds(iso: string): number {
  return Date.parse(iso) / 1000
}
