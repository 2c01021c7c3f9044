/**
 * The worker's MongoDB connection: connected in the background with capped exponential backoff, so a
 * Mongo that is down, unreachable or refusing credentials at start-up never crash-loops the worker. While
 * it cannot answer, lease calls fail, nobody is elected and /readyz says so. Whether the store is up is
 * followed from the driver's own heartbeats and topology events, not only when someone asks.
 */
import { type Db, MongoClient, MongoServerError } from 'mongodb'
import { waitFor } from '../lease/wait.js'
import { plainStoreError, storeCommand } from '../store-call/store-call.js'
import { StoreError } from '../store-call/store-error.js'
import { createLogger, type Logger } from '../observe/logger.js'
import { scrubSecrets } from '../config/scrub.js'

export interface MongoConnection {
  client: MongoClient
  db: Db
  /**
   * The database through the lease lane: a client of its own (LEASE_LANE_POOL) for the lease's calls, so
   * that a renewal never queues behind a pass's ledger calls for a connection, nor waits out a new
   * connection's handshake while they hold the warm ones. `db` itself when the lane was not asked for.
   */
  leaseDb: Db
  /** Resolves once the first connection succeeded (never rejects; pending while it keeps failing). */
  connected: Promise<void>
  /**
   * Why the connection has not been made yet (the last failed attempt's error), or undefined once it is
   * connected or before the first attempt ended. A call made meanwhile fails only with "Topology is closed".
   */
  connectFailure(): unknown
  /** Resolves when the first connect attempt ends: undefined when it connected, else its error. */
  firstAttempt: Promise<unknown>
  /** Pings the server, bounded by `timeoutMs`; false when it does not answer in time. */
  ping(timeoutMs?: number): Promise<boolean>
  /**
   * The server's wall-clock time as its `hello` answer states it (`localTime`), in ms since the epoch;
   * bounded by PING_TIMEOUT_MS and `signal`. Rejects (StoreError) when it does not answer, or answers
   * without a usable `localTime`.
   */
  serverTime(signal: AbortSignal): Promise<number>
  close(): Promise<void>
}

const AUTH_FAILED = 18
/** The bound of the ping that proves a fresh connection (server selection is bounded at 5 s too). */
const PING_TIMEOUT_MS = 5_000

/** One ping through the store-call module (store-call.ts): bounded by `timeoutMs` and `signal`. */
function ping(db: Db, call: { signal: AbortSignal; timeoutMs: number }): Promise<unknown> {
  return storeCommand(
    db,
    { ping: 1 },
    { ...call, error: plainStoreError({ component: 'mongo', operation: 'ping' }) },
  )
}

export interface MongoConnectionOptions {
  /** Called on each heartbeat and topology change with whether a server answers (the store-up gauge). */
  onStoreUp?: (up: boolean) => void
  /**
   * Hears the client once it is built, before it connects: a caller's monitoring (the driver's CMAP and
   * command events) sees every connection it opens. A serverless trigger's `onMongoClient` (serverless/).
   */
  onClient?: (client: MongoClient) => void
  /** Opens the lease lane (`leaseDb`): a worker that campaigns does; a one-shot command does not. */
  leaseLane?: boolean
}

/**
 * The lease lane's pool: two connections, opened at once and kept (min = max). Warm, so a renewal finds one
 * ready: the chaos suite saw a holder's shared pool grow from 5 to 7 connections under +750 ms of latency,
 * each new one costing a renewal a second round trip (its handshake), past its ttl/3 bound and, twice in a
 * row, the term. Two, so that a renewal and an election's call (or two nets' renewals) go at once, and no
 * more, so that a replica adds at most two connections to the server: on FerretDB every replica's
 * connections together must stay below its PostgreSQL pool (docs/semantics.md, "A lease and its terms"), and lease calls
 * beyond two wait in the lane, behind other lease calls only.
 */
export const LEASE_LANE_POOL = { minPoolSize: 2, maxPoolSize: 2 } as const

/**
 * Whether the driver accepts `uri` and its options (constructing a client connects nothing). Reading the
 * configuration checks only the syntax, so that it does not load the driver; the CLI asks this before a
 * command uses Mongo, so a bad option value is a configuration error (exit 78), not a failed start.
 */
export function mongoUriRefusal(uri: string): unknown {
  try {
    new MongoClient(uri)
    return undefined
  } catch (error) {
    return error
  }
}

/** How long the driver looks for a server before an operation fails (and a connect gives up). */
export const SERVER_SELECTION_MS = 5_000

const CLIENT_OPTIONS = {
  serverSelectionTimeoutMS: SERVER_SELECTION_MS,
  connectTimeoutMS: SERVER_SELECTION_MS,
  // Above the longest default ttl/3 (60 s) and the lease store's server bounds (maxTimeMS/wtimeoutMS 5 s).
  socketTimeoutMS: 90_000,
  appName: 'leasecron',
} as const

/** The lease lane's client: the worker's options and URI, its own pool (options given here win over the URI's). */
function openLeaseLane(uri: string, options: MongoConnectionOptions): MongoClient {
  const lane = new MongoClient(uri, { ...CLIENT_OPTIONS, ...LEASE_LANE_POOL, appName: 'leasecron-lease' })
  options.onClient?.(lane)
  return lane
}

/** Opens the client and keeps trying to connect until it succeeds or `signal` aborts. */
export function connectMongo(
  uri: string,
  dbName: string,
  log: Logger,
  signal: AbortSignal,
  options: MongoConnectionOptions = {},
): MongoConnection {
  const client = new MongoClient(uri, CLIENT_OPTIONS)
  const db = client.db(dbName)
  options.onClient?.(client)
  const lane = options.leaseLane ? openLeaseLane(uri, options) : undefined
  if (options.onStoreUp) followStoreUp(client, options.onStoreUp)
  let failure: unknown
  let endFirstAttempt: (error: unknown) => void = () => {}
  const firstAttempt = new Promise<unknown>((resolve) => {
    endFirstAttempt = resolve
  })
  const connected = new Promise<void>((resolve) => {
    void keepConnecting(client, dbName, log, signal, (error) => {
      failure = error
      endFirstAttempt(error)
      if (error !== undefined) return
      // Fills the lane's warm connections now, not at the first lease call; a failure here is the
      // first call's to report, as the lane connects again when asked.
      lane?.connect().catch(() => undefined)
      resolve()
    })
  })
  return {
    client,
    db,
    leaseDb: lane ? lane.db(dbName) : db,
    connected,
    connectFailure: () => failure,
    firstAttempt,
    async ping(timeoutMs = 1_000) {
      const signal = AbortSignal.timeout(timeoutMs)
      return ping(db, { signal, timeoutMs }).then(
        () => true,
        () => false,
      )
    },
    serverTime: (signal) => serverTime(db, signal),
    close: async () => {
      await Promise.all([client.close(), lane?.close()])
    },
  }
}

/** `hello`'s `localTime`: the one clock reading every MongoDB (and FerretDB) answer carries. */
async function serverTime(db: Db, signal: AbortSignal): Promise<number> {
  const error = plainStoreError({ component: 'mongo', operation: 'hello' })
  const answer = await storeCommand(db, { hello: 1 }, { signal, timeoutMs: PING_TIMEOUT_MS, error })
  const localTime: unknown = answer.localTime
  if (!(localTime instanceof Date) || Number.isNaN(localTime.getTime()))
    throw error('failed', `hello answered without a usable localTime (got ${String(localTime)})`, undefined)
  return localTime.getTime()
}

/**
 * Connects with capped exponential backoff until it succeeds or `signal` aborts, logging the first failure
 * and every tenth; `attempted` hears each attempt's end (undefined when it connected).
 */
async function keepConnecting(
  client: MongoClient,
  dbName: string,
  log: Logger,
  signal: AbortSignal,
  attempted: (error: unknown) => void,
): Promise<void> {
  let delay = 500
  let failures = 0
  while (!signal.aborted) {
    try {
      await client.connect()
      await ping(client.db(dbName), { signal, timeoutMs: PING_TIMEOUT_MS })
      if (failures > 0) log.info({ component: 'mongo', failures }, 'connected to MongoDB after retrying')
      else log.info({ component: 'mongo', db: dbName }, 'connected to MongoDB')
      attempted(undefined)
      return
    } catch (thrown) {
      // The driver's own error, as the log line and `connectFailure()` have always named it.
      const error =
        thrown instanceof StoreError && thrown.code === 'STORE_CALL_FAILED' ? thrown.cause : thrown
      attempted(error)
      failures++
      const auth = error instanceof MongoServerError && error.code === AUTH_FAILED
      if (failures === 1 || failures % 10 === 0) {
        log.warn(
          { component: 'mongo', failures, retryInMs: delay, cause: describeMongoError(error) },
          auth
            ? 'MongoDB refused authentication: check the credentials in MONGO_URI; retrying'
            : 'cannot connect to MongoDB; nobody is elected until it answers; retrying',
        )
      }
      await waitFor(delay, signal)
      delay = Math.min(delay * 2, 30_000)
    }
  }
}

/**
 * Reports the store up or down from the driver's heartbeats (each server check) and topology changes
 * (a server found or lost), so the gauge is right without anyone requesting /readyz.
 */
function followStoreUp(client: MongoClient, onStoreUp: (up: boolean) => void): void {
  client.on('serverHeartbeatSucceeded', () => onStoreUp(true))
  client.on('serverHeartbeatFailed', () => onStoreUp(false))
  client.on('topologyDescriptionChanged', (event) => onStoreUp(event.newDescription.hasDataBearingServers))
  client.on('topologyClosed', () => onStoreUp(false))
}

/**
 * Why Mongo did not answer, in words an operator acts on: "connection refused at 127.0.0.1:9", "host
 * mongo.example not found", or the driver's message (scrubbed) when nothing more precise is known. Reads
 * the cause chain and a server-selection error's per-server errors.
 */
export function describeMongoError(error: unknown): string {
  const found = findSystemError(error, 0)
  if (found) {
    const where = found.address ?? found.hostname
    const at = where === undefined ? '' : ` at ${where}${found.port === undefined ? '' : `:${found.port}`}`
    if (found.code === 'ECONNREFUSED') return `connection refused${at}`
    if (found.code === 'ENOTFOUND' || found.code === 'EAI_AGAIN')
      return `host ${found.hostname ?? where} not found (DNS ${found.code})`
    if (found.code === 'ETIMEDOUT') return `connection timed out${at}`
    return `${found.code}${at}`
  }
  const message = error instanceof Error ? error.message : String(error)
  return scrubSecrets(message)
}

interface SystemErrorFields {
  code: string
  address?: string
  hostname?: string
  port?: number
}

function findSystemError(error: unknown, depth: number): SystemErrorFields | undefined {
  if (depth > 6 || !(error instanceof Error)) return undefined
  const e = error as Error &
    Partial<SystemErrorFields> & { reason?: { servers?: Map<string, { error?: unknown }> } }
  if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) {
    const hostPort = /(\S+):(\d+)$/.exec(e.message)
    return {
      code: e.code,
      ...(e.address === undefined ? {} : { address: e.address }),
      ...(e.hostname === undefined ? {} : { hostname: e.hostname }),
      ...(e.port === undefined ? (hostPort ? { port: Number(hostPort[2]) } : {}) : { port: e.port }),
    }
  }
  for (const server of e.reason?.servers?.values() ?? []) {
    const inner = findSystemError(server.error, depth + 1)
    if (inner) return inner
  }
  return findSystemError(e.cause, depth + 1)
}

/**
 * A connection for a one-shot command (`status`, `history`, `status --json`): it logs nothing of its own,
 * and `end()` stops its background connecting and closes it (never rejects).
 */
export function connectForCommand(mongo: { uri: string; db: string }): MongoConnection & {
  end(): Promise<void>
} {
  const stop = new AbortController()
  const connection = connectMongo(mongo.uri, mongo.db, createLogger({ level: 'silent' }), stop.signal)
  return Object.assign(connection, {
    async end() {
      stop.abort()
      await connection.close().catch(() => undefined)
    },
  })
}
