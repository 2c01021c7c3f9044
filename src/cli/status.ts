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
import { withDatabase } from './with-database.js'

/** Prints the leases (or the snapshot); exit 0, or 1 when the store does not answer. */
export function statusCommand({ values, config, io }: CommandContext): Promise<number> {
  if (values.json) return statusJson(config, io)
  const onBadDocument = (bad: BadDocument) => io.err(`leasecron status: ${describeBadDocument(bad)}`)
  return withDatabase('status', config, io, onBadDocument, async ({ store, ledger }, signal) => {
    const leases = await store.list({ signal })
    const lastRuns = new Map<string, RunRecord>()
    const timeZones = new Map(config.nets.map((n) => [n.net.lease, n.timeZone]))
    for (const n of config.nets) {
      const [last] = await ledger.history(n.net.name, 1, { signal })
      if (last) lastRuns.set(n.net.lease, last)
    }
    for (const line of statusLines(leases, lastRuns, new Date(), timeZones)) io.out(line)
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
