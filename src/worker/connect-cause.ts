/**
 * Why a failed `once` (or `backfill`, or a serverless trigger) failed when its Mongo never connected: the
 * failed call says only "Topology is closed" or timed out; the real cause (connection refused at
 * host:port, host not found, authentication) is the connect attempt's (mongo-connection.ts). Not a retry.
 */
import { waitFor } from '../lease/wait.js'
import type { MongoConnection } from './mongo-connection.js'
import type { OnceResult } from '../term/one-slot.js'

/** How long a failed `once` waits for the connect attempt's verdict (its own bound is 5 s). */
const CONNECT_VERDICT_MS = 6_000

/**
 * A failed result whose Mongo never connected, with the connect attempt's own cause in place of its error
 * (awaited, bounded, when it has not ended yet); any other result as it is.
 */
export async function withConnectCause(
  result: OnceResult,
  connection: MongoConnection | undefined,
): Promise<OnceResult> {
  if (result.outcome !== 'failed') return result
  const cause = await connectCause(connection)
  return cause === undefined ? result : { ...result, error: cause }
}

/**
 * Why Mongo (MONGO_URI) never connected, when it did not: the connect attempt's own cause, awaited up to
 * CONNECT_VERDICT_MS; undefined when it connected, or without Mongo.
 */
export async function connectCause(connection: MongoConnection | undefined): Promise<string | undefined> {
  if (!connection) return undefined
  const done = new AbortController()
  const failure =
    connection.connectFailure() ??
    (await Promise.race([
      connection.firstAttempt,
      waitFor(CONNECT_VERDICT_MS, done.signal).then(() => undefined),
    ]).finally(() => done.abort()))
  if (failure === undefined) return undefined
  // Loaded here, not at the top: a connection exists, so the driver is loaded already; a path that never
  // connects (a function on the memory store) never loads it (test/library/bundle-graph.test.ts).
  const { describeMongoError } = await import('./mongo-connection.js')
  return `MongoDB (MONGO_URI) did not answer: ${describeMongoError(failure)}`
}
