/**
 * Per-file access to the run's real Mongo server: each test file gets its own database, dropped at the end.
 */
import { randomBytes } from 'node:crypto'
import { type Db, MongoClient } from 'mongodb'
import { afterAll, inject } from 'vitest'

export interface TestDatabase {
  db: Db
  client: MongoClient
  kind: string
  /**
   * The server answered `buildInfo` as FerretDB (also behind `MONGO_URL`): it applies an update as
   * read-then-write, so races on one existing document can elect two.
   */
  isFerretDb: boolean
}

/** The server the run uses; throws (failing the calling test) when none could be had. */
export function mongoServer(): {
  url: string
  kind: string
  version: string
  isFerretDb: boolean
  description: string
} {
  const mongo = inject('mongo')
  if ('error' in mongo)
    throw new Error(`This test needs a real MongoDB server and none is available: ${mongo.error}`)
  return mongo
}

/** Connects to a fresh database named after `label` (≤ 63 chars of [A-Za-z0-9_-]) and drops it after the file. */
export async function useTestDatabase(label: string): Promise<TestDatabase> {
  const server = mongoServer()
  const name = `t_${label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`
  const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 10_000 })
  await client.connect().catch((error: unknown) => {
    throw new Error(
      `The run's Mongo server (${server.description}) did not answer: ${(error as Error).message}. ` +
        'If it was the FerretDB the run started, a "mongo: the run\'s FerretDB … exited" line in the ' +
        "run's output says when and how it died.",
      { cause: error },
    )
  })
  const db = client.db(name)
  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined)
    await client.close()
  })
  return { db, client, kind: server.kind, isFerretDb: server.isFerretDb }
}

/** The variables of a quiet worker (no log, any free port) on `database` of the run's Mongo server. */
export function workerMongoEnv(database: TestDatabase): Record<string, string> {
  return { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName, LOG_LEVEL: 'silent', PORT: '0' }
}
