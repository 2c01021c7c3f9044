/**
 * The worker's MongoDB connection: connected in the background with capped exponential backoff, so a
 * Mongo that is down, unreachable or refusing credentials at start-up never crash-loops the worker. While
 * it cannot answer, lease calls fail, nobody is elected and /readyz says so.
 */
import { type Db, MongoClient, MongoServerError } from 'mongodb'
import { scrubSecrets } from './logger.js'
import type { Logger } from './logger.js'

export interface MongoConnection {
  client: MongoClient
  db: Db
  /** Resolves once the first connection succeeded (never rejects; pending while it keeps failing). */
  connected: Promise<void>
  /** Pings the server, bounded by `timeoutMs`; false when it does not answer in time. */
  ping(timeoutMs?: number): Promise<boolean>
  close(): Promise<void>
}

const AUTH_FAILED = 18

/** Opens the client and keeps trying to connect until it succeeds or `signal` aborts. */
export function connectMongo(uri: string, dbName: string, log: Logger, signal: AbortSignal): MongoConnection {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    // Above the longest default ttl/3 (60 s) and the lease store's server bounds (maxTimeMS/wtimeoutMS 5 s).
    socketTimeoutMS: 90_000,
    appName: 'leasecron',
  })
  const db = client.db(dbName)
  let resolveConnected: () => void = () => {}
  const connected = new Promise<void>((resolve) => {
    resolveConnected = resolve
  })
  void (async () => {
    let delay = 500
    let failures = 0
    while (!signal.aborted) {
      try {
        await client.connect()
        await db.command({ ping: 1 })
        if (failures > 0) log.info({ component: 'mongo', failures }, 'connected to MongoDB after retrying')
        else log.info({ component: 'mongo', db: dbName }, 'connected to MongoDB')
        resolveConnected()
        return
      } catch (error) {
        failures++
        const auth = error instanceof MongoServerError && error.code === AUTH_FAILED
        if (failures === 1 || failures % 10 === 0) {
          log.warn(
            {
              component: 'mongo',
              failures,
              retryInMs: delay,
              err: scrubSecrets(error instanceof Error ? error.message : String(error)),
            },
            auth
              ? 'MongoDB refused authentication: check the credentials in MONGO_URI; retrying'
              : 'cannot connect to MongoDB; nobody is elected until it answers; retrying',
          )
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay)
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer)
              resolve()
            },
            { once: true },
          )
        })
        delay = Math.min(delay * 2, 30_000)
      }
    }
  })()
  return {
    client,
    db,
    connected,
    async ping(timeoutMs = 1_000) {
      let timer: NodeJS.Timeout | undefined
      try {
        return await Promise.race([
          db.command({ ping: 1 }).then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), timeoutMs)
          }),
        ])
      } catch {
        return false
      } finally {
        clearTimeout(timer)
      }
    },
    close: () => client.close(),
  }
}
