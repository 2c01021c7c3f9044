/**
 * The CLI commands that read or write the run ledger: `once <net>` (one term, one pass, one slot),
 * `status` (leases and each net's last run) and `history <net>`. Each returns its exit code; none throws
 * for an expected outcome (a held lease, a taken slot).
 */
import { createForge } from '../forge/github-app.js'
import { systemClock } from '../lease/clock.js'
import type { BadDocument } from '../store-call/bad-document.js'
import { MemoryStore } from '../lease/memory-store.js'
import { waitFor } from '../lease/wait.js'
import { MongoStore } from '../lease/mongo-store.js'
import { MongoRunLedger } from '../runs/mongo-run-ledger.js'
import type { RunRecord } from '../runs/run-ledger.js'
import type { NetConfig, WorkerConfig } from './config.js'
import { EXIT } from './exit-codes.js'
import { forgeCacheSettings } from './forge-cache-settings.js'
import { historyJson, historyLines, statusLines } from './ledger-views.js'
import { startLocalSandbox } from './local-sandbox.js'
import { createLogger, type Logger } from './logger.js'
import {
  connectForCommand,
  connectMongo,
  describeMongoError,
  type MongoConnection,
} from './mongo-connection.js'
import { describeOnce, type OnceResult, parseSlotOption, runOnce } from './once.js'
import { badDocumentSink, describeBadDocument } from './bad-documents.js'
import { openRunLedger } from './open-run-ledger.js'
import { ownerId } from './owner-id.js'

export interface CommandIo {
  out: (line: string) => void
  err: (line: string) => void
}

/** The parsed command-line options these commands read. */
export interface LedgerCommandOptions {
  slot?: string | boolean | undefined
  json?: string | boolean | undefined
  limit?: string | boolean | undefined
}

const QUERY_BOUND_MS = 10_000
const ONCE_EXIT: Record<OnceResult['outcome'], number> = {
  ran: EXIT.ok,
  'slot-taken': EXIT.ok,
  held: EXIT.ok,
  failed: EXIT.failure,
  aborted: EXIT.interrupted,
}

function findNet(
  command: string,
  name: string | undefined,
  config: WorkerConfig,
  io: CommandIo,
): NetConfig | undefined {
  const net = config.nets.find((n) => n.net.name === name)
  if (!net)
    io.err(
      `leasecron ${command}: expected one of ${config.nets.map((n) => n.net.name).join(', ')}; got ${name ?? 'nothing'}`,
    )
  return net
}

/** `leasecron once <net> [--slot X] [--json]`: see once.ts. SIGTERM/SIGINT abort the pass. */
export async function onceCommand(
  name: string | undefined,
  options: LedgerCommandOptions,
  config: WorkerConfig,
  io: CommandIo,
): Promise<number> {
  const net = findNet('once', name, config, io)
  if (!net) return EXIT.usage
  const slot = parseSlotOption(
    typeof options.slot === 'string' ? options.slot : undefined,
    net.schedule,
    new Date(),
  )
  if (!slot.ok) {
    io.err(`leasecron once: ${slot.expected}`)
    return EXIT.usage
  }
  const owner = ownerId(config.workerId)
  // With --json, stdout carries the answer alone (a trigger pipes it to jq); the log goes to stderr.
  const log = createLogger({ level: config.logLevel, toStderr: Boolean(options.json) }).child({
    owner,
    net: net.net.name,
    lease: net.net.lease,
  })
  const interrupt = new AbortController()
  const onSignal = (signal: NodeJS.Signals) => interrupt.abort(new Error(`${signal}: once stopping`))
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const world = await openOnceWorld(config, log)
  try {
    const result = await runOnce({
      net,
      slot: slot.slot,
      owner,
      store: world.connection
        ? new MongoStore(world.connection.db, { onBadDocument: badDocumentSink(log) })
        : new MemoryStore(),
      ledger: openRunLedger(world.connection?.db, world.connection?.connected, log, badDocumentSink(log)),
      runHistory: config.runHistory,
      pass: (term, stepDownAt) => buildPass(net, config, world.connection, log, term, stepDownAt),
      // A getter: the forge's client is built only if the pass runs and asks for it.
      get forge() {
        return world.forge.octokit
      },
      meter: world.forge.meter,
      log,
      clock: systemClock,
      signal: interrupt.signal,
    }).then((r) => withConnectCause(r, world.connection))
    io.out(options.json ? JSON.stringify(result) : describeOnce(result))
    return ONCE_EXIT[result.outcome]
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
    await world.close()
  }
}

/** How long a failed `once` waits for the connect attempt's verdict (its own bound is 5 s). */
const CONNECT_VERDICT_MS = 6_000

/**
 * A failed `once` whose Mongo never connected fails with "Topology is closed" or an unanswered call: the
 * real cause (connection refused at host:port, host not found, authentication) is the connect
 * attempt's, awaited (bounded) when it has not ended yet.
 */
async function withConnectCause(
  result: OnceResult,
  connection: MongoConnection | undefined,
): Promise<OnceResult> {
  if (result.outcome !== 'failed' || !connection) return result
  const done = new AbortController()
  const failure =
    connection.connectFailure() ??
    (await Promise.race([
      connection.firstAttempt,
      waitFor(CONNECT_VERDICT_MS, done.signal).then(() => undefined),
    ]).finally(() => done.abort()))
  if (failure === undefined) return result
  return { ...result, error: `MongoDB (MONGO_URI) did not answer: ${describeMongoError(failure)}` }
}

async function openOnceWorld(config: WorkerConfig, log: Logger) {
  const stop = new AbortController()
  const connection = config.mongo
    ? connectMongo(config.mongo.uri, config.mongo.db, log, stop.signal)
    : undefined
  if (!connection)
    log.warn({}, 'single-process mode: no MONGO_URI, so this process elects itself (in-memory store)')
  const local = config.forge.kind === 'sandbox' ? await startLocalSandbox() : undefined
  if (local && config.forge.kind === 'sandbox')
    log.warn(
      { url: local.sandbox.url, reason: config.forge.reason },
      'using the local sandbox forge, not GitHub',
    )
  const forge = createForge({
    config: config.forge.kind === 'github' ? config.forge.config : local!.config,
    logger: log.child({ component: 'forge' }),
    // The shared forge_cache makes a cold `once` process revalidate instead of paying for every GET.
    cache: forgeCacheSettings(config.forgeCacheMb, connection?.db, log),
  })
  const close = async () => {
    stop.abort()
    await forge.close()
    await local?.sandbox.close()
    await connection?.close().catch(() => undefined)
  }
  return { connection, forge, close }
}

async function buildPass(
  net: NetConfig,
  config: WorkerConfig,
  connection: MongoConnection | undefined,
  log: Logger,
  term: AbortSignal,
  stepDownAt: () => number,
) {
  if (connection) await connection.connected
  const resources = await net.net.setup({
    options: net.options,
    db: connection?.db,
    log,
    publicUrl: config.publicUrl,
    now: () => new Date(),
  })
  return net.net.term(resources, { options: net.options, log, signal: term, stepDownAt })
}

/** What each read-only command reads, for the message when Mongo does not answer. */
const STORE_OF: Record<string, string> = { status: 'lease store', history: 'run ledger' }

/** Opens the configured database for a read-only command, or says there is nothing to read. */
async function withDatabase(
  command: string,
  config: WorkerConfig,
  io: CommandIo,
  read: (connection: MongoConnection, signal: AbortSignal) => Promise<number | undefined>,
  withoutMongo: () => number = () => {
    io.out(
      'no MONGO_URI: leases and runs live inside each worker process (single-process mode); nothing to list',
    )
    return EXIT.ok
  },
): Promise<number> {
  if (!config.mongo) return withoutMongo()
  const connection = connectForCommand(config.mongo)
  try {
    // Connect first: a failed connect says why (refused, unknown host); a later call only "topology closed".
    await connection.client.connect()
    return (await read(connection, AbortSignal.timeout(QUERY_BOUND_MS))) ?? EXIT.ok
  } catch (error) {
    io.err(`leasecron ${command}: the ${STORE_OF[command]} did not answer: ${describeMongoError(error)}`)
    return EXIT.failure
  } finally {
    await connection.end()
  }
}

/** `leasecron status`: each lease's holder, fence, expiry, and its net's last run. */
export function statusCommand(config: WorkerConfig, io: CommandIo): Promise<number> {
  return withDatabase('status', config, io, async (connection, signal) => {
    const onBadDocument = (bad: BadDocument) => io.err(`leasecron status: ${describeBadDocument(bad)}`)
    const leases = await new MongoStore(connection.db, { onBadDocument }).list({ signal })
    const ledger = new MongoRunLedger(connection.db, { onBadDocument })
    const lastRuns = new Map<string, RunRecord>()
    for (const n of config.nets) {
      const [last] = await ledger.history(n.net.name, 1, { signal })
      if (last) lastRuns.set(n.net.lease, last)
    }
    for (const line of statusLines(leases, lastRuns, new Date())) io.out(line)
    return undefined
  })
}

/** `leasecron history <net> [--limit N] [--json]`. */
export async function historyCommand(
  name: string | undefined,
  options: LedgerCommandOptions,
  config: WorkerConfig,
  io: CommandIo,
): Promise<number> {
  const configured = config.nets.find((n) => n.net.name === name)
  if (!configured && name !== undefined && config.mongo) return removedNetHistory(name, config, io)
  const net = findNet('history', name, config, io)
  if (!net) return EXIT.usage
  const limitText = typeof options.limit === 'string' ? options.limit.trim() : '20'
  const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit >= 1 && limit <= 1000)) {
    io.err(
      `leasecron history: --limit: expected a whole number from 1 to 1000; got ${JSON.stringify(limitText)}`,
    )
    return EXIT.usage
  }
  return withDatabase('history', config, io, async (connection, signal) => {
    const onBadDocument = (bad: BadDocument) => io.err(`leasecron history: ${describeBadDocument(bad)}`)
    const ledger = new MongoRunLedger(connection.db, { onBadDocument })
    const runs = await ledger.history(net.net.name, limit, { signal })
    if (options.json) io.out(JSON.stringify(runs.map(historyJson)))
    else if (runs.length === 0) io.out(`no runs of ${net.net.name} recorded`)
    else for (const line of historyLines(runs)) io.out(line)
    return undefined
  })
}

/**
 * `history` of a net the configuration no longer declares. Its runs stay in the ledger: the holder of a
 * net prunes only that net, and no replica may prune another's nets (during a rolling deploy an older
 * replica would delete a newly added net's runs). So they are listed, and the note says how to remove them.
 * A name with no runs is the usual usage error.
 */
function removedNetHistory(name: string, config: WorkerConfig, io: CommandIo): Promise<number> {
  return withDatabase('history', config, io, async (connection, signal) => {
    const runs = await new MongoRunLedger(connection.db).history(name, 1000, { signal })
    if (runs.length === 0) {
      findNet('history', name, config, io)
      return EXIT.usage
    }
    for (const line of historyLines(runs)) io.out(line)
    io.err(
      `leasecron history: "${name}" is not in this configuration: its runs (${runs.length === 1000 ? 'at least 1000' : runs.length}) stay in net_runs, never pruned; to remove them: db.net_runs.deleteMany({ net: ${JSON.stringify(name)} })`,
    )
    return EXIT.ok
  })
}
