/**
 * The test harness asks the server what it is: FerretDB-only allowances (read-then-write races) must
 * follow FerretDB also when a developer points `MONGO_URL` at one, or those tests fail for the server,
 * not for the code.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BACKEND_VARIABLE, requestedBackend } from './ferretdb-backend.js'
import { startTestMongo, type TestMongoServer } from './mongo-server.js'
import { findPostgresBinaries } from './postgres-binaries.js'

const started: TestMongoServer[] = []
afterAll(async () => {
  for (const server of started) await server.stop()
})

/** startTestMongo() with MONGO_URL set to `url` (or unset), the environment restored after. */
async function startWith(url: string | undefined, backend?: string): Promise<TestMongoServer> {
  const saved = {
    url: process.env.MONGO_URL,
    skip: process.env.LEASECRON_TEST_SKIP_MEMORY_SERVER,
    backend: process.env[BACKEND_VARIABLE],
  }
  if (url === undefined) delete process.env.MONGO_URL
  else process.env.MONGO_URL = url
  if (backend === undefined) delete process.env[BACKEND_VARIABLE]
  else process.env[BACKEND_VARIABLE] = backend
  process.env.LEASECRON_TEST_SKIP_MEMORY_SERVER = '1'
  try {
    const server = await startTestMongo({ log: () => undefined })
    started.push(server)
    return server
  } finally {
    for (const [name, value] of [
      ['MONGO_URL', saved.url],
      ['LEASECRON_TEST_SKIP_MEMORY_SERVER', saved.skip],
      [BACKEND_VARIABLE, saved.backend],
    ] as const) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

describe('the test harness’s Mongo server', () => {
  it('takes a MONGO_URL server that answers buildInfo as FerretDB for FerretDB', async () => {
    const own = await startWith(undefined)
    expect(own.kind).toBe('ferretdb')
    expect(own.isFerretDb, 'the FerretDB the harness started did not say it is FerretDB').toBe(true)

    const external = await startWith(own.url)
    expect(external.kind).toBe('external')
    expect(
      external.isFerretDb,
      'FerretDB behind MONGO_URL lost its read-then-write allowances: its race tests fail for the server',
    ).toBe(true)
    expect(external.description).toMatch(/FerretDB/)
  }, 120_000)

  it('runs FerretDB on the backend asked for, and names it on the run’s description line', async () => {
    const sqlite = await startWith(undefined, 'sqlite')
    expect(sqlite.backend).toBe('sqlite')
    expect(sqlite.description).toMatch(/^FerretDB 1\.24\.2 on SQLite \(/)
    const fallback = await startWith(undefined)
    const expected = (await findPostgresBinaries()) ? 'postgresql' : 'sqlite'
    expect(fallback.backend, 'PostgreSQL is the default where its binaries are').toBe(expected)
    if (expected === 'postgresql')
      expect(fallback.description).toMatch(
        /^FerretDB 1\.24\.2 on PostgreSQL \d+\.\d+ \(a throwaway cluster\)/,
      )
  }, 120_000)

  it('refuses a backend it does not know, naming the variable and the choices', () => {
    expect(() => requestedBackend({ [BACKEND_VARIABLE]: 'postgres' })).toThrow(
      /LEASECRON_TEST_FERRETDB_BACKEND is "postgres"; expected one of postgresql, sqlite/,
    )
    expect(requestedBackend({})).toBeUndefined()
  })
})
