/**
 * The configured database opened for a read-only command (`status`, `history`): its store and ledger
 * opened by worker/runtime.ts (quietly, no index created), connected first, each read bounded, closed
 * after; without MONGO_URI there is nothing shared to read, and the command says so.
 */
import type { WorkerConfig } from '../config/worker-config.js'
import type { OnBadDocument } from '../store-call/bad-document.js'
import { createLogger } from '../worker/logger.js'
import { describeMongoError } from '../worker/mongo-connection.js'
import { openRuntime, type StoreRuntime } from '../worker/runtime.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'

const QUERY_BOUND_MS = 10_000

/** What each read-only command reads, for the message when Mongo does not answer. */
const STORE_OF: Record<string, string> = {
  status: 'lease store',
  history: 'run ledger',
  pause: 'net control store',
  resume: 'net control store',
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
    await runtime.mongo?.client.connect()
    return (await read(runtime, AbortSignal.timeout(QUERY_BOUND_MS))) ?? EXIT.ok
  } catch (error) {
    io.err(`leasecron ${command}: the ${STORE_OF[command]} did not answer: ${describeMongoError(error)}`)
    return EXIT.failure
  } finally {
    await runtime.close()
  }
}
