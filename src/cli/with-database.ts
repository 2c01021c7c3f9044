/**
 * The configured database opened for a read-only command (`status`, `history`): its store and ledger
 * opened by worker/runtime.ts (quietly, no index created), connected first, each read bounded, closed
 * after; without MONGO_URI there is nothing shared to read, and the command says so.
 */
import type { WorkerConfig } from '../config/worker-config.js'
import type { OnBadDocument } from '../store-call/bad-document.js'
import { createLogger } from '../observe/logger.js'
import { describeMongoError, SERVER_SELECTION_MS } from '../worker/mongo-connection.js'
import { openRuntime, type StoreRuntime } from '../worker/runtime.js'
import { waitFor } from '../lease/wait.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'

const QUERY_BOUND_MS = 10_000
/** How long a connect goes unremarked: past it the command says what it waits for, not a silent wait. */
const CONNECT_NOTICE_MS = 1_000

/** What each read-only command reads, for the message when Mongo does not answer. */
const STORE_OF: Record<string, string> = {
  status: 'lease store',
  history: 'run ledger',
  pause: 'net control store',
  resume: 'net control store',
  backfill: 'net control store',
  'backfill --dry-run': 'run ledger',
}

/**
 * Runs `read` on the connected store and ledger (its signal bounds the reads; a malformed document goes
 * to `onBadDocument`); resolves to its exit code (0 when it returns none), or 1 after saying that the
 * store did not answer.
 */
export async function withDatabase(
  command: string,
  config: WorkerConfig,
  io: Io,
  onBadDocument: OnBadDocument,
  read: (runtime: StoreRuntime, signal: AbortSignal) => Promise<number | undefined>,
  withoutMongo: () => number = () => {
    io.out(
      'no MONGO_URI: leases and runs live inside each worker process (single-process mode); nothing to list',
    )
    return EXIT.ok
  },
): Promise<number> {
  if (!config.mongo) return withoutMongo()
  const runtime = await openRuntime({
    config,
    parts: 'read',
    log: createLogger({ level: 'silent' }),
    onBadDocument,
  })
  try {
    // Connect first: a failed connect says why (refused, unknown host); a later call only "topology closed".
    await connectSaying(command, runtime, io)
    return (await read(runtime, AbortSignal.timeout(QUERY_BOUND_MS))) ?? EXIT.ok
  } catch (error) {
    io.err(`leasecron ${command}: the ${STORE_OF[command]} did not answer: ${describeMongoError(error)}`)
    return EXIT.failure
  } finally {
    await runtime.close()
  }
}

/**
 * Connects the runtime's client; when that takes over CONNECT_NOTICE_MS, says on stderr that it waits for
 * MongoDB and for how long at most (the driver's server selection bound), so an unreachable server is not a
 * silent pause of several seconds before the error. Rejects as the connect does.
 */
async function connectSaying(command: string, runtime: StoreRuntime, io: Io): Promise<void> {
  const client = runtime.mongo?.client
  if (!client) return
  const settled = new AbortController()
  void waitFor(CONNECT_NOTICE_MS, settled.signal).then((elapsed) => {
    if (elapsed)
      io.err(
        `leasecron ${command}: waiting for MongoDB (MONGO_URI) to answer (at most ${Math.round(SERVER_SELECTION_MS / 1000)} s)…`,
      )
  })
  try {
    await client.connect()
  } finally {
    settled.abort()
  }
}
