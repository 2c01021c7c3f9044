/**
 * `leasecron/serverless` on both stores — memory (no MONGO_URI: one warm instance's own store) and the
 * run's real Mongo server — against the real sandbox forge configured as the GitHub App: each handler
 * invoked with events and requests shaped as each platform documents them (an EventBridge Scheduler
 * input with `<aws.scheduler.scheduled-time>` filled in, an EventBridge rule's "Scheduled Event", a Cloud
 * Scheduler HTTP job's request with its X-CloudScheduler headers, a Vercel Cron GET with its bearer), one
 * slot delivered twice at once, late, with a wrong or missing secret, and warm: the second invocation opens
 * no new Mongo connection, counted by the driver's own CMAP events.
 */
import type { MongoClient } from 'mongodb'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet, MongoRunLedger } from '../../src/index.js'
import { createServerlessHandlers, type ServerlessHandlers } from '../../src/serverless.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'

const SECRET = 'serverless-test-secret-0123456789'
const NET = 'serverless-net'
const lease = defineLease(NET, 'serverless test net')
const MINUTE = 60_000
const TOKEN_ROUTE = 'POST /app/installations/:installation_id/access_tokens'

/** What the net's passes saw, and how the next ones behave. */
const passes: { slot: string; db: string }[] = []
let gate: Promise<void> | undefined
let failing = false
let currentDb = ''

const net = defineNet({
  name: NET,
  lease: lease.name,
  schedule: '* * * * *',
  description: 'asks the forge one question per pass',
  options: {},
  setup: () => ({}),
  term:
    () =>
    async ({ forge, signal, slot }) => {
      passes.push({ slot: slot.toISOString(), db: currentDb })
      await forge.request('GET /rate_limit', { request: { signal } })
      if (gate) await gate
      if (failing) throw new Error('the serverless test pass failed on purpose')
    },
})
const CONFIG = { nets: [net], leases: [lease] }

let sandbox: SandboxForge
let mongo: TestDatabase
const open: ServerlessHandlers[] = []
let databases = 0

beforeAll(async () => {
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 27 } })
  mongo = await useTestDatabase('serverless')
})
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()))
  gate = undefined
  failing = false
})
afterAll(async () => {
  await sandbox?.close()
})

/** The schedule's slot `minutesAgo` minutes back (whole minutes, UTC). */
function slotAgo(minutesAgo: number): Date {
  return new Date(Math.floor(Date.now() / MINUTE) * MINUTE - minutesAgo * MINUTE)
}

/** The slot's instant as a platform might deliver it: a few seconds after the fire time. */
function late(slot: Date, seconds = 7): string {
  return new Date(slot.getTime() + seconds * 1000).toISOString().replace('.000Z', 'Z')
}

const STORES = [
  { kind: 'memory', withMongo: false },
  { kind: 'mongo', withMongo: true },
] as const

describe.each(STORES)('on the $kind store', ({ withMongo }) => {
  /** One function instance: its own factory on the store (a fresh database each test for Mongo). */
  function instance(
    db: string,
    extra: { onMongoClient?: (client: MongoClient) => void; secret?: string | null } = {},
  ): ServerlessHandlers {
    const env: Record<string, string> = {
      GITHUB_APP_ID: String(sandbox.appId),
      GITHUB_INSTALLATION_ID: String(sandbox.installationId),
      GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
      GITHUB_API_URL: sandbox.url,
      LOG_LEVEL: 'silent',
      ...(extra.secret === null ? {} : { CRON_SECRET: extra.secret ?? SECRET }),
      ...(withMongo ? { MONGO_URI: mongoServer().url, MONGO_DB: db } : {}),
    }
    const handlers = createServerlessHandlers({
      config: CONFIG,
      env,
      ...(extra.onMongoClient ? { onMongoClient: extra.onMongoClient } : {}),
    })
    open.push(handlers)
    return handlers
  }

  function freshDb(): string {
    currentDb = `${mongo.db.databaseName}_${++databases}`
    return currentDb
  }

  async function record(db: string, slot: Date) {
    return withMongo ? new MongoRunLedger(mongo.client.db(db)).get(NET, slot) : undefined
  }

  const passesOf = (slot: Date, db: string) =>
    passes.filter((p) => p.slot === slot.toISOString() && p.db === db)

  it('runs the slot of an EventBridge Scheduler event (its input with <aws.scheduler.scheduled-time> filled in) once, and a redelivery answers slot-taken', async () => {
    const db = freshDb()
    const { handler } = instance(db)
    const slot = slotAgo(3)
    // The schedule's target input: {"net": "serverless-net", "time": "<aws.scheduler.scheduled-time>"}.
    const event = { net: NET, time: late(slot) }
    const context = {
      getRemainingTimeInMillis: () => 60_000,
      awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    }
    const first = await handler(event, context)
    expect(first).toMatchObject({ net: NET, slot: slot.toISOString(), outcome: 'ran', attempts: 1 })
    expect(first.fence, 'a ran slot names its term’s fence').toBeGreaterThan(0)
    const again = await handler(event, context)
    expect(again, 'a redelivered event ran its slot again').toMatchObject({ outcome: 'slot-taken' })
    expect(passesOf(slot, db), 'the slot ran more or less than once').toHaveLength(1)
    if (withMongo)
      expect(await record(db, slot)).toMatchObject({ outcome: 'ok', owner: first.owner, fence: first.fence })
  }, 30_000)

  it('runs the slot of an EventBridge rule’s "Scheduled Event" for the net the factory names', async () => {
    const db = freshDb()
    const handlers = createServerlessHandlers({
      config: CONFIG,
      net: NET,
      env: {
        ...{ GITHUB_APP_ID: String(sandbox.appId), GITHUB_INSTALLATION_ID: String(sandbox.installationId) },
        ...{ GITHUB_APP_PRIVATE_KEY: sandbox.privateKey, GITHUB_API_URL: sandbox.url, LOG_LEVEL: 'silent' },
        ...(withMongo ? { MONGO_URI: mongoServer().url, MONGO_DB: db } : {}),
      },
    })
    open.push(handlers)
    const slot = slotAgo(2)
    const event = {
      version: '0',
      id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: late(slot, 0),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/serverless-net'],
      detail: {},
    }
    expect(await handlers.handler(event)).toMatchObject({ slot: slot.toISOString(), outcome: 'ran' })
    expect(passesOf(slot, db)).toHaveLength(1)
  }, 30_000)

  it('answers a Cloud Scheduler HTTP job’s request with the once --json object, the slot read from X-CloudScheduler-ScheduleTime', async () => {
    const db = freshDb()
    const { fetch } = instance(db)
    const slot = slotAgo(4)
    const request = new Request(`https://leasecron-abc123-uc.a.run.app/?net=${NET}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${SECRET}`,
        'user-agent': 'Google-Cloud-Scheduler',
        'x-cloudscheduler': 'true',
        'x-cloudscheduler-jobname': 'projects/acme/locations/us-central1/jobs/serverless-net',
        'x-cloudscheduler-scheduletime': late(slot, 1),
        'content-type': 'application/octet-stream',
      },
      body: '',
    })
    const response = await fetch(request)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    const body = (await response.json()) as Record<string, unknown>
    expect(Object.keys(body).sort(), 'the answer is not the once --json object').toEqual(
      ['attempts', 'fence', 'net', 'outcome', 'owner', 'slot'].sort(),
    )
    expect(body).toMatchObject({ net: NET, slot: slot.toISOString(), outcome: 'ran' })
    if (withMongo) expect(await record(db, slot)).toMatchObject({ outcome: 'ok', owner: body.owner })
  }, 30_000)

  it('runs the slot due now for a Vercel Cron GET with its bearer, and 200 slot-taken for the same minute again', async () => {
    const db = freshDb()
    const { fetch } = instance(db)
    const cron = () =>
      new Request(`https://leasecron-demo.vercel.app/api/leasecron?net=${NET}`, {
        headers: { authorization: `Bearer ${SECRET}`, 'user-agent': 'vercel-cron/1.0' },
      })
    const before = slotAgo(0)
    const first = await fetch(cron())
    const body = (await first.json()) as { slot: string; outcome: string }
    expect(first.status).toBe(200)
    expect(body.outcome).toBe('ran')
    // The slot due at the request's time: this minute (or the next, had the minute turned meanwhile).
    expect([before.toISOString(), slotAgo(0).toISOString()]).toContain(body.slot)
    const second = await fetch(cron())
    const again = (await second.json()) as { slot: string; outcome: string }
    if (again.slot === body.slot) expect(again.outcome).toBe('slot-taken')
    expect(second.status).toBe(200)
  }, 30_000)

  it('runs one slot delivered twice at once exactly once: the second delivery, while the first runs, answers slot-taken', async () => {
    const db = freshDb()
    const first = instance(db)
    // Two warm instances share a Mongo; on the memory store only one instance can see the slot's claim.
    const second = withMongo ? instance(db) : first
    const slot = slotAgo(5)
    let open!: () => void
    gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const running = first.handler({ net: NET, time: late(slot) })
    for (const deadline = Date.now() + 20_000; passesOf(slot, db).length === 0; ) {
      if (Date.now() > deadline) throw new Error('the first delivery’s pass never started')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const redelivered = await second.handler({ net: NET, time: late(slot, 30) })
    open()
    expect(redelivered, 'a delivery while the slot ran was not told it was taken').toMatchObject({
      outcome: 'slot-taken',
      slot: slot.toISOString(),
    })
    expect(await running).toMatchObject({ outcome: 'ran' })
    expect(passesOf(slot, db), 'the slot ran twice').toHaveLength(1)
  }, 40_000)

  it('answers two simultaneous requests for one slot with exactly one ran', async () => {
    const db = freshDb()
    const a = instance(db)
    const b = withMongo ? instance(db) : a
    const slot = slotAgo(6)
    const request = () =>
      new Request(`https://fn.example/?net=${NET}`, {
        headers: { authorization: `Bearer ${SECRET}`, 'x-cloudscheduler-scheduletime': late(slot) },
      })
    const responses = await Promise.all([a.fetch(request()), b.fetch(request())])
    const outcomes = await Promise.all(
      responses.map(async (r) => ((await r.json()) as { outcome: string }).outcome),
    )
    expect(responses.map((r) => r.status)).toEqual([200, 200])
    expect(
      outcomes.filter((o) => o === 'ran'),
      `outcomes: ${outcomes.join(', ')}`,
    ).toHaveLength(1)
    // The other found the slot claimed, or the lease held before the claim landed: not run either way.
    expect(outcomes.filter((o) => o === 'slot-taken' || o === 'held')).toHaveLength(1)
    expect(passesOf(slot, db), 'the slot ran twice').toHaveLength(1)
  }, 40_000)

  it('records a slot older than the catch-up window missed instead of running it, and a redelivery runs nothing either', async () => {
    const db = freshDb()
    const { handler } = instance(db)
    const slot = slotAgo(25 * 60) // 25 hours: past the default CATCH_UP_WINDOW of 24h
    expect(await handler({ net: NET, time: late(slot) })).toMatchObject({
      outcome: 'missed',
      slot: slot.toISOString(),
      fence: null,
    })
    expect(await handler({ net: NET, time: late(slot) })).toMatchObject({ outcome: 'slot-taken' })
    expect(passesOf(slot, db), 'a late slot ran').toHaveLength(0)
    if (withMongo) {
      const missed = await record(db, slot)
      expect(missed).toMatchObject({ outcome: 'missed', attempts: 0 })
      expect(missed?.error).toMatch(/outside the catch-up window of 1d \(CATCH_UP_WINDOW\)/)
    }
  }, 30_000)

  it('refuses a request without a bearer (401) or with a wrong one (403), and runs nothing', async () => {
    const db = freshDb()
    const { fetch } = instance(db)
    const url = `https://leasecron-demo.vercel.app/api/leasecron?net=${NET}`
    const none = await fetch(new Request(url))
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    const wrong = await fetch(new Request(url, { headers: { authorization: `Bearer ${SECRET}x` } }))
    expect(wrong.status).toBe(403)
    const short = await fetch(new Request(url, { headers: { authorization: 'Bearer s' } }))
    expect(short.status, 'a guess of another length was not refused alike').toBe(403)
    const basic = await fetch(new Request(url, { headers: { authorization: `Basic ${SECRET}` } }))
    expect(basic.status).toBe(401)
    expect(JSON.stringify(await wrong.json())).not.toContain(SECRET)
    expect(
      passes.filter((p) => p.db === db),
      'a refused request ran a pass',
    ).toEqual([])
  }, 30_000)

  it('runs nothing over HTTP when no secret is configured, saying what to set', async () => {
    const db = freshDb()
    const { fetch } = instance(db, { secret: null })
    const response = await fetch(
      new Request(`https://fn.example/?net=${NET}`, { headers: { authorization: 'Bearer x' } }),
    )
    expect(response.status).toBe(500)
    expect(((await response.json()) as { error: string }).error).toMatch(/set CRON_SECRET/)
    expect(passes.filter((p) => p.db === db)).toEqual([])
  }, 30_000)

  it('answers a failed pass with 500 over HTTP and a rejected invocation on Lambda, and a retry of it slot-taken', async () => {
    const db = freshDb()
    const { handler, fetch } = instance(db)
    failing = true
    const slot = slotAgo(7)
    const failed = await handler({ net: NET, time: late(slot) }).catch((error: unknown) => error)
    expect(failed).toMatchObject({ name: 'ServerlessError', code: 'SERVERLESS_PASS_FAILED' })
    expect((failed as { result?: unknown }).result).toMatchObject({
      outcome: 'failed',
      error: 'the serverless test pass failed on purpose',
    })
    expect(await handler({ net: NET, time: late(slot) })).toMatchObject({ outcome: 'slot-taken' })
    // From `slot`, not the clock: a minute turning during the test would make slotAgo(8) the failed slot.
    const other = new Date(slot.getTime() - MINUTE)
    const response = await fetch(
      new Request(`https://fn.example/?net=${NET}`, {
        headers: { authorization: `Bearer ${SECRET}`, 'x-cloudscheduler-scheduletime': late(other) },
      }),
    )
    expect(response.status).toBe(500)
    expect(await response.json()).toMatchObject({ outcome: 'failed' })
  }, 30_000)

  it('refuses an event whose time is not an instant or whose net is unknown, naming what it expected', async () => {
    const db = freshDb()
    const { handler, fetch } = instance(db)
    await expect(handler({ net: NET, time: '<aws.scheduler.scheduled-time>' })).rejects.toMatchObject({
      code: 'SERVERLESS_TRIGGER_INVALID',
      message: expect.stringMatching(/the event’s "time": expected an ISO 8601 instant/),
    })
    await expect(handler({ net: 'no-such-net', time: late(slotAgo(1)) })).rejects.toThrow(
      /net: expected one of serverless-net .*; got "no-such-net"/,
    )
    const response = await fetch(
      new Request('https://fn.example/', {
        headers: { authorization: `Bearer ${SECRET}`, 'x-cloudscheduler-scheduletime': 'yesterday' },
      }),
    )
    expect(response.status).toBe(400)
    expect(passes.filter((p) => p.db === db)).toEqual([])
  }, 30_000)

  it('refuses to run on an invalid configuration, naming the variable, and reads it again on the next invocation', async () => {
    const db = freshDb()
    const env: Record<string, string> = {
      ...{ GITHUB_APP_ID: String(sandbox.appId), GITHUB_INSTALLATION_ID: String(sandbox.installationId) },
      ...{ GITHUB_APP_PRIVATE_KEY: sandbox.privateKey, GITHUB_API_URL: sandbox.url, LOG_LEVEL: 'silent' },
      ...(withMongo ? { MONGO_URI: mongoServer().url, MONGO_DB: db } : {}),
      CRON_SECRET: SECRET,
      LEASECRON_NET_SERVERLESS_NET_SCHEDULE: 'every minute',
    }
    const handlers = createServerlessHandlers({ config: CONFIG, env })
    open.push(handlers)
    const event = { net: NET, time: late(slotAgo(11)) }
    await expect(handlers.handler(event)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('LEASECRON_NET_SERVERLESS_NET_SCHEDULE'),
    })
    const refused = await handlers.fetch(
      new Request(`https://fn.example/?net=${NET}`, { headers: { authorization: `Bearer ${SECRET}` } }),
    )
    expect(refused.status).toBe(500)
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /invalid configuration \(1 problem\): LEASECRON_NET_SERVERLESS_NET_SCHEDULE: expected/,
    )
    delete env.LEASECRON_NET_SERVERLESS_NET_SCHEDULE
    expect(await handlers.handler(event), 'a failed open was kept').toMatchObject({ outcome: 'ran' })
  }, 30_000)

  it('keeps its runtime warm: the second invocation opens no new Mongo client or connection and mints no new forge token', async () => {
    const db = freshDb()
    let clients = 0
    let connections = 0
    const { handler } = instance(db, {
      onMongoClient: (client) => {
        clients++
        client.on('connectionCreated', () => connections++)
      },
    })
    sandbox.resetStats()
    expect(await handler({ net: NET, time: late(slotAgo(10)) })).toMatchObject({ outcome: 'ran' })
    const afterFirst = connections
    expect(await handler({ net: NET, time: late(slotAgo(9)) })).toMatchObject({ outcome: 'ran' })
    expect(clients, 'the warm invocation built a second client').toBe(withMongo ? 1 : 0)
    if (withMongo) {
      expect(afterFirst, 'the first invocation’s connections were not counted').toBeGreaterThan(0)
      expect(connections - afterFirst, 'the warm invocation opened a Mongo connection').toBe(0)
    }
    expect(
      countRequests(sandbox.stats(), { route: TOKEN_ROUTE }),
      'the forge minted a token per invocation',
    ).toBe(1)
    expect(countRequests(sandbox.stats(), { route: 'GET /rate_limit' })).toBe(2)
  }, 30_000)
})
