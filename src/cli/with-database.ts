/**
 * The configured database opened for a read-only command (`status`, `history`): connected first, each
 * read bounded, closed after; without MONGO_URI there is nothing shared to read, and the command says so.
 */
import type { WorkerConfig } from '../config/worker-config.js'
import { connectForCommand, describeMongoError, type MongoConnection } from '../worker/mongo-connection.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'

const QUERY_BOUND_MS = 10_000

/** What each read-only command reads, for the message when Mongo does not answer. */
const STORE_OF: Record<string, string> = { status: 'lease store', history: 'run ledger' }

/**
 * Runs `read` on the connected database (its signal bounds the reads); resolves to its exit code (0 when
 * it returns none), or 1 after saying that the store did not answer.
 */
export async function withDatabase(
  command: string,
  config: WorkerConfig,
  io: Io,
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
