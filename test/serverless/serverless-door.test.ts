/**
 * The serverless entry's door, against the real sandbox forge on the memory store: a bearer secret no
 * request could match (too short, padded with spaces) is a configuration error naming where it is set,
 * never its value; a schedule time longer than an instant is refused unread and unechoed; a Lambda context
 * whose getRemainingTimeInMillis throws is a typed error with the cause. Nothing runs in any of them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet } from '../../src/index.js'
import { createServerlessHandlers, type ServerlessHandlers } from '../../src/serverless.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import type { Logger } from '../../src/observe/logger.js'

const SECRET = 'serverless-door-secret-0123456789'
const NET = 'door-net'
const lease = defineLease(NET, 'serverless door test net')
const ran: string[] = []
const net = defineNet({
  name: NET,
  lease: lease.name,
  schedule: '* * * * *',
  description: 'counts its passes',
  options: {},
  setup: () => ({}),
  term:
    () =>
    async ({ slot }) => {
      ran.push(slot.toISOString())
    },
})

let sandbox: SandboxForge
const open: ServerlessHandlers[] = []
beforeAll(async () => {
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 36 } })
})
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()))
  ran.length = 0
})
afterAll(async () => {
  await sandbox?.close()
})

/** What the handlers warned, as [fields, message]. */
const warned: Array<[Record<string, unknown>, string | undefined]> = []
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (fields, message) => warned.push([fields as Record<string, unknown>, message]),
  error: () => {},
  child: () => logger,
}

function handlers(extra: { cronSecret?: string; secret?: string } = {}): ServerlessHandlers {
  const env: Record<string, string> = {
    GITHUB_APP_ID: String(sandbox.appId),
    GITHUB_INSTALLATION_ID: String(sandbox.installationId),
    GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
    GITHUB_API_URL: sandbox.url,
    LOG_LEVEL: 'silent',
    CRON_SECRET: extra.cronSecret ?? SECRET,
  }
  const made = createServerlessHandlers({
    config: { nets: [net], leases: [lease] },
    env,
    logger,
    ...(extra.secret === undefined ? {} : { secret: extra.secret }),
  })
  open.push(made)
  return made
}

const url = `https://fn.example/?net=${NET}`
const bearer = (secret: string) => new Request(url, { headers: { authorization: `Bearer ${secret}` } })

describe('the fetch handler’s bearer secret', () => {
  it('refuses a CRON_SECRET shorter than the admin token’s minimum as a configuration error, not a 403', async () => {
    warned.length = 0
    const response = await handlers({ cronSecret: 'a' }).fetch(bearer('a'))
    expect(response.status).toBe(500)
    const { error } = (await response.json()) as { error: string }
    expect(error).toMatch(
      /^invalid configuration \(1 problem\): CRON_SECRET: expected a token of at least 16/,
    )
    expect(error).toContain('1 characters long (value not shown)')
    expect(warned[0]?.[0].err).toMatchObject({ name: 'ConfigError', code: 'CONFIG_INVALID', exitCode: 78 })
    expect(ran, 'a trigger ran under a guessable secret').toEqual([])
  })

  it('refuses a CRON_SECRET padded with spaces (no bearer can match it) instead of answering 403 forever', async () => {
    const response = await handlers({ cronSecret: ` ${SECRET}\n` }).fetch(bearer(SECRET))
    expect(response.status).toBe(500)
    const { error } = (await response.json()) as { error: string }
    expect(error).toMatch(/CRON_SECRET: expected .*; this one is carrying a space/)
    expect(error, 'the secret was echoed').not.toContain(SECRET)
    expect(ran).toEqual([])
  })

  it('names the handlers’ `secret` when that is where a short one was set', async () => {
    const response = await handlers({ secret: 'short' }).fetch(bearer('short'))
    expect(((await response.json()) as { error: string }).error).toMatch(
      /the handlers’ `secret`: expected a token of at least 16 .*5 characters long/,
    )
  })
})

describe('a trigger’s schedule time', () => {
  const long = `2026-09-30T15:05:00Z${'9'.repeat(40_000)}`

  it('refuses a 40 KB X-CloudScheduler-ScheduleTime with 400, saying its length and never echoing it', async () => {
    warned.length = 0
    const response = await handlers().fetch(
      new Request(url, {
        headers: { authorization: `Bearer ${SECRET}`, 'x-cloudscheduler-scheduletime': long },
      }),
    )
    expect(response.status).toBe(400)
    const body = await response.text()
    expect(JSON.parse(body)).toEqual({
      error:
        'X-CloudScheduler-ScheduleTime: expected an ISO 8601 instant of at most 64 characters (e.g. 2026-09-30T15:05:00Z); got 40020 characters (not shown)',
    })
    expect(JSON.stringify(warned), 'the header reached the log').not.toContain('9'.repeat(100))
    expect(ran).toEqual([])
  })

  it('refuses a Lambda event whose time is 40 KB the same way', async () => {
    await expect(handlers().handler({ net: NET, time: long })).rejects.toMatchObject({
      code: 'SERVERLESS_TRIGGER_INVALID',
      message: expect.stringMatching(/^the event’s "time": expected .* got 40020 characters \(not shown\)$/),
    })
  })
})

describe('the Lambda context', () => {
  it('rejects with a typed error carrying the cause when getRemainingTimeInMillis throws, running nothing', async () => {
    const broken = new Error('the context broke')
    const context = {
      getRemainingTimeInMillis: () => {
        throw broken
      },
    }
    const failed = await handlers()
      .handler({ net: NET }, context)
      .catch((error: unknown) => error)
    expect(failed).toMatchObject({
      name: 'ServerlessError',
      code: 'SERVERLESS_CONTEXT_INVALID',
      message: expect.stringMatching(
        /^context.getRemainingTimeInMillis\(\) threw: expected a Lambda context/,
      ),
    })
    expect((failed as Error).cause).toBe(broken)
    expect(ran).toEqual([])
  })
})
