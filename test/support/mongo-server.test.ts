/**
 * The test harness asks the server what it is: FerretDB-only allowances (read-then-write races) must
 * follow FerretDB also when a developer points `MONGO_URL` at one, or those tests fail for the server,
 * not for the code.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { startTestMongo, type TestMongoServer } from './mongo-server.js'

const started: TestMongoServer[] = []
afterAll(async () => {
  for (const server of started) await server.stop()
})

/** startTestMongo() with MONGO_URL set to `url` (or unset), the environment restored after. */
async function startWith(url: string | undefined): Promise<TestMongoServer> {
  const saved = { url: process.env.MONGO_URL, skip: process.env.LEASECRON_TEST_SKIP_MEMORY_SERVER }
  if (url === undefined) delete process.env.MONGO_URL
  else process.env.MONGO_URL = url
  process.env.LEASECRON_TEST_SKIP_MEMORY_SERVER = '1'
  try {
    const server = await startTestMongo({ log: () => undefined })
    started.push(server)
    return server
  } finally {
    for (const [name, value] of [
      ['MONGO_URL', saved.url],
      ['LEASECRON_TEST_SKIP_MEMORY_SERVER', saved.skip],
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
})
