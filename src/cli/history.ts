/**
 * `leasecron history <net> [--limit N] [--json]`: a net's last runs from the run ledger, newest first —
 * also a net the configuration no longer declares, whose runs stay in the ledger.
 */
import type { WorkerConfig } from '../config/worker-config.js'
import type { BadDocument } from '../store-call/bad-document.js'
import { describeBadDocument } from '../worker/bad-documents.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import { findNet, resolveNet } from './find-net.js'
import type { Io } from './io.js'
import { historyJson, historyLines } from './ledger-views.js'
import { withDatabase } from './with-database.js'

/** Prints the runs; exit 0, 64 for an unknown net or a bad --limit, 1 when the ledger does not answer. */
export async function historyCommand({ args, values, config, io }: CommandContext): Promise<number> {
  const name = args[0]
  // By the names commands take: a per-installation net's `<net>:<installation>` is configured, not removed
  // (matching only the configured names sent it to the removed-net listing: no --limit or --json, and a
  // note offering to delete a live net's runs).
  const configured = resolveNet(name, config)
  if (!configured && name !== undefined && config.mongo)
    return removedNetHistory(name, config, io, values.config)
  const net = findNet('history', name, config, io, values.config)
  if (!net) return EXIT.usage
  const limitText = values.limit !== undefined ? values.limit.trim() : '20'
  const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit >= 1 && limit <= 1000)) {
    io.err(
      `leasecron history: --limit: expected a whole number from 1 to 1000; got ${JSON.stringify(limitText)}`,
    )
    return EXIT.usage
  }
  return withDatabase('history', config, io, onHistoryBadDocument(io), async ({ ledger }, signal) => {
    const runs = await ledger.history(net.definition.name, limit, { signal, reportLeftOut: true })
    if (values.json) io.out(JSON.stringify(runs.map((run) => historyJson(run, net.timeZone))))
    else if (runs.length === 0) io.out(`no runs of ${net.definition.name} recorded`)
    else for (const line of historyLines(runs, net.timeZone)) io.out(line)
    return undefined
  })
}

/**
 * `history` of a net the configuration no longer declares. Its runs stay in the ledger: the holder of a
 * net prunes only that net, and no replica may prune another's nets (during a rolling deploy an older
 * replica would delete a newly added net's runs). So they are listed, and the note says how to remove them.
 * A name with no runs is the usual usage error.
 */
function removedNetHistory(
  name: string,
  config: WorkerConfig,
  io: Io,
  configPath: string | undefined,
): Promise<number> {
  // As before the runtime: a malformed run of a removed net is skipped without a line.
  const skip = () => undefined
  return withDatabase('history', config, io, skip, async ({ ledger }, signal) => {
    const runs = await ledger.history(name, 1000, { signal })
    if (runs.length === 0) {
      findNet('history', name, config, io, configPath)
      return EXIT.usage
    }
    for (const line of historyLines(runs)) io.out(line)
    io.err(
      `leasecron history: "${name}" is not in this configuration: its runs (${runs.length === 1000 ? 'at least 1000' : runs.length}) stay in net_runs, never pruned; to remove them: db.net_runs.deleteMany({ net: ${JSON.stringify(name)} })`,
    )
    return EXIT.ok
  })
}

/** A malformed run read by `history`: one line on stderr; the run is skipped. */
function onHistoryBadDocument(io: Io): (bad: BadDocument) => void {
  return (bad) => io.err(`leasecron history: ${describeBadDocument(bad)}`)
}
