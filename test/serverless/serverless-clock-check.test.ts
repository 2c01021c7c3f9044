/**
 * A serverless trigger on a host whose wall clock is a day ahead of the Mongo server (only `Date` faked:
 * the driver's timers and the server are real): both handlers refuse with the clock's reason before their
 * one acquire — no lease taken, no slot recorded, no pass run (term/clock-check.ts); the fetch handler
 * answers 503 (temporary, this instance's), not 500.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { defineLease, defineNet } from '../../src/index.js'
import { createServerlessHandlers } from '../../src/serverless.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'

const SECRET = 'serverless-clock-secret-0123456789'
const NET = 'serverless-clock-net'
const lease = defineLease(NET, 'serverless clock test net')
const DAY = 24 * 3_600_000
const passes: string[] = []
const net = defineNet({
  name: NET,
  lease: lease.name,
  schedule: '* * * * *',
  description: 'records its passes',
  options: {},
  setup: () => ({}),
  term:
    () =>
    async ({ slot }) =>
      void passes.push(slot.toISOString()),
})

let sandbox: SandboxForge
let mongo: TestDatabase
beforeAll(async () => {
  sandbox = await startSandboxForge()
  mongo = await useTestDatabase('serverless_clock')
})
afterAll(async () => {
  await sandbox?.close()
})

describe('a serverless trigger on a host a day ahead', () => {
  it('is refused by both handlers with the clock’s reason, taking no lease and recording nothing', async () => {
    const handlers = createServerlessHandlers({
      config: { nets: [net], leases: [lease] },
      net: NET,
      env: {
        GITHUB_APP_ID: String(sandbox.appId),
        GITHUB_INSTALLATION_ID: String(sandbox.installationId),
        GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
        GITHUB_API_URL: sandbox.url,
        LOG_LEVEL: 'silent',
        CRON_SECRET: SECRET,
        MONGO_URI: mongoServer().url,
        MONGO_DB: mongo.db.databaseName,
      },
    })
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + DAY })
    try {
      const answer = await handlers.fetch(
        new Request(`https://fn.example/api/cron?net=${NET}`, {
          headers: { authorization: `Bearer ${SECRET}` },
        }),
      )
      expect(answer.status, 'a clock-skew refusal is this instance’s temporary condition').toBe(503)
      expect(((await answer.json()) as { error: string }).error).toMatch(/ms ahead of the store's server/)
      const context = { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'clock-check' }
      await expect(handlers.handler({ net: NET }, context)).rejects.toMatchObject({
        name: 'ClockSkewError',
        code: 'CLOCK_SKEW',
      })
    } finally {
      vi.useRealTimers()
      await handlers.close()
    }
    expect(await mongo.db.collection('leases').countDocuments({}), 'a skewed trigger took the lease').toBe(0)
    expect(await mongo.db.collection('net_runs').countDocuments({}), 'a skewed trigger recorded').toBe(0)
    expect(passes).toEqual([])
  })
})
