/**
 * `leasecron status [--json]`: each lease's holder, fence, expiry and its net's last run, read from the
 * configured store; with --json, the status snapshot a worker serves at `GET /status`
 * (worker/status/cli-status.ts), read from the same store.
 */
import type { WorkerConfig } from '../config/worker-config.js'
import type { BadDocument } from '../store-call/bad-document.js'
import type { RunRecord } from '../runs/run-ledger.js'
import { describeBadDocument } from '../worker/bad-documents.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'
import { statusLines } from './ledger-views.js'
import { RUNS_SHOWN } from '../worker/status/collect-status.js'
import { type NetState, netState } from '../worker/status/net-state.js'
import { withDatabase } from './with-database.js'
import { describePause } from '../control/net-control-store.js'

/** Prints the leases (or the snapshot); exit 0, or 1 when the store does not answer. */
export function statusCommand({ values, config, io }: CommandContext): Promise<number> {
  if (values.json) return statusJson(config, io)
  const onBadDocument = (bad: BadDocument) => io.err(`leasecron status: ${describeBadDocument(bad)}`)
  return withDatabase('status', config, io, onBadDocument, async ({ store, ledger, controls }, signal) => {
    const leases = await store.list({ signal })
    const now = new Date()
    const paused = new Map(
      (await controls.list(now, { signal })).flatMap((c) => (c.paused ? [[c.net, c.paused] as const] : [])),
    )
    const lastRuns = new Map<string, RunRecord>()
    const states = new Map<string, NetState>()
    const timeZones = new Map(config.nets.map((n) => [n.net.lease, n.timeZone]))
    for (const n of config.nets) {
      // The newest runs the page shows: enough for the state's verdict and lateness (net-state.ts).
      const runs = await ledger.history(n.net.name, RUNS_SHOWN, { signal })
      if (runs[0]) lastRuns.set(n.net.lease, runs[0])
      if (n.enabled) states.set(n.net.lease, netState(runs, n, now, paused.has(n.net.name)))
    }
    for (const line of statusLines(leases, lastRuns, now, timeZones, states)) io.out(line)
    for (const [net, pause] of paused)
      io.out(`${net}: ${describePause(pause)} (since ${pause.at.toISOString()})`)
    return undefined
  })
}

/** `status --json`: the same object `GET /status` serves, read from the shared store and ledger. */
async function statusJson(config: WorkerConfig, io: Io): Promise<number> {
  const { storeStatusSnapshot } = await import('../worker/status/cli-status.js')
  const snapshot = await storeStatusSnapshot(config, new Date())
  io.out(JSON.stringify(snapshot, null, 2))
  return snapshot.store.answering ? EXIT.ok : EXIT.failure
}
