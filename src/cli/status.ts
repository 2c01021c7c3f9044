/**
 * `leasecron status [--json] [--installation ID]`: each lease's holder, fence, expiry and its net's last
 * run, read from the configured store, then one line per installation the nets act as; with --json, the
 * status snapshot a worker serves at `GET /status`, read from the same store (store-status-snapshot.ts).
 * --installation narrows either to one installation's nets.
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import type { BadDocument } from '../store-call/bad-document.js'
import type { RunRecord } from '../runs/run-ledger.js'
import { describeBadDocument } from '../worker/bad-documents.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'
import { installationLines, statusLines } from './ledger-views.js'
import { holderStatus, RUNS_SHOWN, runStatus, runsRead } from '../status/collect-status.js'
import { failuresInRow, stateLabel } from '../status/failures-in-row.js'
import { netState } from '../status/net-state.js'
import { withDatabase } from './with-database.js'
import { describePause, type NetControl } from '../control/net-control-store.js'
import { InstallationFilterError, parseInstallationFilter } from '../worker/status/installation-filter.js'
import {
  narrowToInstallation,
  type SummarizedNet,
  summarizeInstallations,
} from '../status/installation-summary.js'
import { statusNets } from './status-nets.js'
import { backfillProgress, backfillProgressText } from '../status/backfill-progress.js'

/**
 * Prints the leases (or the snapshot); exit 0, 64 for a bad --installation, 1 when the store does not
 * answer. Without MONGO_URI there is no shared store: it says so and exits 0 (`store.answering: null`).
 */
export function statusCommand({ values, config, io }: CommandContext): Promise<number> {
  let installation: number | null
  try {
    installation = parseInstallationFilter(values.installation === undefined ? [] : [values.installation])
  } catch (error) {
    if (!(error instanceof InstallationFilterError)) throw error
    io.err(`leasecron status: --installation: ${error.message}`)
    return Promise.resolve(EXIT.usage)
  }
  if (values.json) return statusJson(config, io, installation)
  return statusText(config, io, installation)
}

/** The plain listing: the leases (of the installation's nets, when narrowed), then the installations. */
function statusText(config: WorkerConfig, io: Io, installation: number | null): Promise<number> {
  const onBadDocument = (bad: BadDocument) => io.err(`leasecron status: ${describeBadDocument(bad)}`)
  return withDatabase('status', config, io, onBadDocument, async ({ store, ledger, controls }, signal) => {
    const now = new Date()
    const stored = await store.list({ signal })
    // Each installation's nets as the workers name them (`<net>:<installation>`; under `all`, by the leases).
    const named = statusNets(
      config,
      stored.map((l) => l.name),
    )
    const nets = installation === null ? named : named.filter((n) => n.installation === installation)
    const leaseNames = new Set(nets.map((n) => n.definition.lease))
    const leases = stored.filter((l) => installation === null || leaseNames.has(l.name))
    const controlled = await controls.list(now, { signal })
    const paused = new Map(controlled.flatMap((c) => (c.paused ? [[c.net, c.paused] as const] : [])))
    const lastRuns = new Map<string, RunRecord>()
    const states = new Map<string, string>()
    const summarized: SummarizedNet[] = []
    const timeZones = new Map(nets.map((n) => [n.definition.lease, n.timeZone]))
    for (const n of nets) {
      // The newest runs the page shows: enough for the state's verdict and lateness (net-state.ts).
      const runs = await ledger.history(n.definition.name, runsRead(n), { signal, reportLeftOut: true })
      if (runs[0]) lastRuns.set(n.definition.lease, runs[0])
      if (n.enabled) states.set(n.definition.lease, shownState(runs, n, now, paused.has(n.definition.name)))
      const lease = leases.find((l) => l.name === n.definition.lease)
      summarized.push({
        name: n.definition.name,
        installation: n.installation ?? null,
        enabled: n.enabled,
        holder: lease ? holderStatus(lease, undefined, now) : null,
        runs: runs.slice(0, RUNS_SHOWN).map((run) => runStatus(run, n.timeZone)),
      })
    }
    for (const line of statusLines(leases, lastRuns, now, timeZones, states)) io.out(line)
    const shown = (net: string) => installation === null || nets.some((n) => n.definition.name === net)
    for (const line of controlLines(controlled, shown)) io.out(line)
    for (const line of installationLines(summarizeInstallations(summarized, null), installation)) io.out(line)
    return undefined
  })
}

/** A line per pause in force and per backfill request (its progress), for the nets `shown` keeps. */
function controlLines(controlled: readonly NetControl[], shown: (net: string) => boolean): string[] {
  const lines: string[] = []
  for (const { net, paused } of controlled)
    if (paused && shown(net))
      lines.push(`${net}: ${describePause(paused)} (since ${paused.at.toISOString()})`)
  for (const { net, backfill } of controlled)
    if (backfill && shown(net))
      lines.push(`${net}: backfill ${backfillProgressText(backfillProgress(backfill))}`)
  return lines
}

/** `status --json`: the same object `GET /status` serves, read from the shared store and ledger. */
async function statusJson(config: WorkerConfig, io: Io, installation: number | null): Promise<number> {
  const { storeStatusSnapshot } = await import('./store-status-snapshot.js')
  const snapshot = await storeStatusSnapshot(config, new Date())
  const shown = installation === null ? snapshot : narrowToInstallation(snapshot, installation)
  io.out(JSON.stringify(shown, null, 2))
  // Exit 1 only for a store that did not answer: `null` (no MONGO_URI) is not a failure, as in plain `status`.
  return snapshot.store.answering === false ? EXIT.failure : EXIT.ok
}

/** The net's state as the STATE column shows it: `failing ×N` for N failed slots in a row (N > 1). */
function shownState(runs: readonly RunRecord[], net: NetConfig, now: Date, paused: boolean): string {
  return stateLabel(netState(runs, net, now, paused), failuresInRow(runs))
}
