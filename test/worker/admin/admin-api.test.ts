/**
 * The HTTP admin API over real HTTP against real workers (createWorker in-process), on the memory store
 * and on the test Mongo: the token rules (missing, wrong, right), the 404/409/422 answers, the body's
 * bounds, and the one log line an accepted action leaves — read from a plain pino logger with no
 * scrubbing, so a token that reached a log line would be seen.
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet } from '../../../src/index.js'
import { createWorker, type Worker } from '../../../src/worker/worker.js'
import { mongoServer } from '../../support/mongo.js'

const TOKEN = 'admin-test-token-3f9c2a7be1d04c55'
const lease = defineLease('admin-net', 'admin API test net')
const net = defineNet({
  name: 'admin-net',
  lease: lease.name,
  schedule: '0 0 1 1 *',
  description: 'admin API test net (yearly: only manual runs happen in the test)',
  options: {},
  setup: () => ({}),
  term: () => async () => {},
})
const offLease = defineLease('admin-off-net', 'a net disabled on the test worker')
const offNet = defineNet({ ...net, name: 'admin-off-net', lease: offLease.name })

const workers: Worker[] = []
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()))
})

/** A started worker, its base URL and every line it logged (raw JSON, unscrubbed). */
async function start(env: Record<string, string>): Promise<{ base: string; lines: string[] }> {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const worker = createWorker({
    nets: [net, offNet],
    leases: [lease, offLease],
    logger: pino({ level: 'info' }, sink),
    env: {
      PORT: '0',
      LEASECRON_FORGE: 'sandbox',
      LEASECRON_NET_ADMIN_OFF_NET_ENABLED: 'false',
      ...env,
    },
    sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 3 } },
  })
  workers.push(worker)
  await worker.start()
  return { base: `http://127.0.0.1:${worker.port}`, lines }
}

interface Answered {
  status: number
  headers: Headers
  body: { error?: { code: string; message: string }; outcome?: string; message?: string; control?: Control }
}
interface Control {
  net: string
  paused?: { at: string; until?: string; reason?: string; by?: string; abort: boolean }
  run?: { id: string; at: string }
}

async function post(
  url: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<Answered> {
  const init: RequestInit = { method: 'POST', headers: { ...headers } }
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
    ;(init.headers as Record<string, string>)['content-type'] ??= 'application/json'
  }
  const response = await fetch(url, init)
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answered['body'],
  }
}

const STORES = [
  ['the memory store', () => ({})],
  ['the test Mongo', () => ({ MONGO_URI: mongoServer().url, MONGO_DB: `admin_${Date.now().toString(36)}` })],
] as const

describe.each(STORES)('the admin API on %s', (_store, storeEnv) => {
  let base: string
  let lines: string[]
  beforeAll(async () => {
    // A 3 s TTL: the holder renews every second, and hears an action's notice at its next renewal.
    const fast = { LEASECRON_NET_ADMIN_NET_TTL_MS: '3000' }
    ;({ base, lines } = await start({ LEASECRON_ADMIN_TOKEN: TOKEN, ...fast, ...storeEnv() }))
  })

  it('answers 401 with WWW-Authenticate without a token and 403 with a wrong one, changing nothing', async () => {
    const missing = await post(`${base}/nets/admin-net/pause`, {}, {})
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect(missing.body.error?.code).toBe('unauthorized')
    const basic = await post(`${base}/nets/admin-net/pause`, {}, { authorization: `Basic ${TOKEN}` })
    expect(basic.status, 'a token under another scheme was accepted').toBe(401)
    for (const wrong of [`${TOKEN}x`, TOKEN.slice(0, -1), 'short', `${TOKEN.slice(0, -1)}0`]) {
      const answer = await post(`${base}/nets/admin-net/pause`, {}, { authorization: `Bearer ${wrong}` })
      expect(answer.status, `the wrong token ${wrong} was not refused 403`).toBe(403)
      expect(answer.body.error?.code).toBe('forbidden')
    }
    const status = (await (await fetch(`${base}/status`)).json()) as { admin: unknown }
    expect(status.admin).toEqual({ enabled: true })
    const resume = await post(`${base}/nets/admin-net/resume`)
    expect(resume.status, 'a refused pause paused the net').toBe(409)
  })

  it('pauses with the right token (200 and the pause), resumes (200), and refuses a second resume (409)', async () => {
    const paused = await post(`${base}/nets/admin-net/pause`, { for: '2h', reason: 'deploy', by: 'ann' })
    expect(paused.status).toBe(200)
    expect(paused.body.outcome).toBe('paused')
    expect(paused.body.message).toContain('paused by ann until')
    const pause = paused.body.control?.paused
    expect(pause, 'the answer carries no pause').toMatchObject({ reason: 'deploy', by: 'ann', abort: false })
    const hours = (Date.parse(pause?.until ?? '') - Date.parse(pause?.at ?? '')) / 3_600_000
    expect(hours, 'for: 2h did not end the pause two hours later').toBe(2)
    const resumed = await post(`${base}/nets/admin-net/resume`, { by: 'ann' })
    expect(resumed.status).toBe(200)
    expect(resumed.body.outcome).toBe('resumed')
    expect(resumed.body.control?.paused).toBeUndefined()
    const again = await post(`${base}/nets/admin-net/resume`)
    expect(again.status, 'a resume of a net not paused was accepted').toBe(409)
    expect(again.body.error).toEqual({
      code: 'not-paused',
      message: 'admin-net is not paused: nothing to resume',
    })
  })

  it('accepts a run now (202) once, answers a second while it is pending, and refuses a disabled net (409)', async () => {
    const first = await post(`${base}/nets/admin-net/run`, { reason: 'check' })
    expect(first.status).toBe(202)
    expect(first.body.outcome).toBe('run-requested')
    expect(first.body.control?.run, 'the answer carries no pending run').toBeDefined()
    // The holder takes a request at its next renewal: a second may find it pending or already taken.
    const second = await post(`${base}/nets/admin-net/run`, { reason: 'check' })
    expect(second.status).toBe(202)
    expect(['run-requested', 'run-pending']).toContain(second.body.outcome)
    const ran = () => lines.some((l) => l.includes('run requested: running a manual pass'))
    const until = Date.now() + 5_000
    while (!ran() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(ran(), 'the holder did not hear the request’s notice: it waited for the fallback poll').toBe(true)
    const disabled = await post(`${base}/nets/admin-off-net/run`)
    expect(disabled.status).toBe(409)
    expect(disabled.body.error?.code).toBe('net-disabled')
    expect(disabled.body.error?.message).toContain('disabled on this worker')
  })

  it('leaves a backfill for the holder (202), which runs it and shows its progress in /status; one at a time', async () => {
    const refused = await post(`${base}/nets/admin-net/backfill`, {
      from: '2026-01-02T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error?.message).toMatch(
      /^backfill admin-net: from and to: from 2026-01-02T00:00:00.000Z is after to/,
    )
    const empty = await post(`${base}/nets/admin-net/backfill`, {
      from: '2026-02-01T00:00:00Z',
      to: '2026-03-01T00:00:00Z',
    })
    expect(empty.status, 'a range without a slot was left for the holder').toBe(422)
    expect(empty.body.error?.message).toContain('expected a range holding at least one slot of the net')
    const range = { from: '2024-06-01T00:00:00Z', to: '2026-06-01T00:00:00Z', by: 'ann' }
    const first = await post(`${base}/nets/admin-net/backfill`, range)
    expect(first.status, JSON.stringify(first.body)).toBe(202)
    expect(first.body.outcome).toBe('backfill-requested')
    // The holder hears of it at its next renewal (a second): a second request made at once finds it running.
    const second = await post(`${base}/nets/admin-net/backfill`, range)
    if (second.status === 409) {
      expect(second.body.error?.code).toBe('backfill-pending')
      expect(second.body.error?.message).toMatch(/is still running .*leasecron backfill --cancel admin-net/)
    } else
      expect(second.body.outcome, 'a second backfill was neither refused nor run after the first').toBe(
        'backfill-requested',
      )
    type Shown = {
      nets: Array<{
        name: string
        backfill: { state: string; done: number; left: number; failed: number } | null
      }>
    }
    let shown: Shown['nets'][number]['backfill'] = null
    let last = ''
    for (const until = Date.now() + 20_000; Date.now() < until && shown?.state !== 'done'; ) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      const status = (await (await fetch(`${base}/status`)).json()) as Shown
      shown = status.nets.find((n) => n.name === 'admin-net')?.backfill ?? null
      last = JSON.stringify(status.nets.find((n) => n.name === 'admin-net'))
    }
    expect(
      shown,
      `the holder did not finish the backfill (2025-01-01 and 2026-01-01); /status said ${last}`,
    ).toMatchObject({
      state: 'done',
      done: 2,
      left: 0,
      failed: 0,
    })
    const cancel = await post(`${base}/nets/admin-net/cancel-backfill`, { by: 'ann' })
    expect(cancel.status).toBe(409)
    expect(cancel.body.error?.code).toBe('no-backfill')
  }, 45_000)

  it('answers 404 for an unknown net only once the token is right, and for a path that is no action', async () => {
    expect((await post(`${base}/nets/nope/pause`, {}, {})).status, 'nets are listed without a token').toBe(
      401,
    )
    const unknown = await post(`${base}/nets/nope/pause`)
    expect(unknown.status).toBe(404)
    expect(unknown.body.error?.code).toBe('unknown-net')
    expect(unknown.body.error?.message).toContain('expected one of: admin-net, admin-off-net')
    const action = await post(`${base}/nets/admin-net/explode`)
    expect(action.status).toBe(404)
    expect(action.body.error?.message).toContain('expected POST /nets/<net>/pause')
    const get = await fetch(`${base}/nets/admin-net/pause`)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })

  it('refuses values it cannot use with 422 and a message naming the field, writing nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [
        { until: '2001-01-01T00:00:00Z' },
        /^pause admin-net: until: expected an instant after now .*got 2001-01-01T00:00:00.000Z$/,
      ],
      [{ until: 'tomorrow' }, /until: expected an ISO 8601 instant with a time zone/],
      [{ until: '2030-01-01T00:00:00' }, /until: expected an ISO 8601 instant with a time zone/],
      [{ for: '2 hours' }, /for: expected a duration above zero such as 90s, 30m, 2h or 1d; got "2 hours"/],
      [{ for: '0s' }, /for: expected a duration above zero/],
      [{ for: '99999999d' }, /for: expected a duration ending by \+275760-09-13T00:00:00.000Z/],
      [{ for: '1h', until: '2030-01-01T00:00:00Z' }, /for and until: expected one of them, not both/],
    ]
    for (const [body, message] of cases) {
      const answer = await post(`${base}/nets/admin-net/pause`, body)
      expect(answer.status, `${JSON.stringify(body)} was not refused 422`).toBe(422)
      expect(answer.body.error?.code).toBe('invalid')
      expect(answer.body.error?.message).toMatch(message)
    }
    expect((await post(`${base}/nets/admin-net/resume`)).status, 'a refused pause was written').toBe(409)
  })

  it('bounds the body: 413 too large, 415 not JSON, 400 malformed JSON or a wrong field; an empty body is {}', async () => {
    const big = await post(`${base}/nets/admin-net/pause`, { reason: 'x'.repeat(100_000) })
    expect(big.status).toBe(413)
    expect(big.body.error?.code).toBe('body-too-large')
    const text = await post(`${base}/nets/admin-net/pause`, 'reason=deploy', {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(text.status).toBe(415)
    expect(text.body.error?.message).toContain('expected Content-Type: application/json')
    const malformed = await post(`${base}/nets/admin-net/pause`, '{"reason": "deploy"')
    expect(malformed.status).toBe(400)
    expect(malformed.body.error?.code).toBe('malformed-json')
    const typo = await post(`${base}/nets/admin-net/pause`, { fro: '2h' })
    expect(typo.status).toBe(400)
    expect(typo.body.error?.message).toMatch(
      /fro.*expected a JSON object with any of: for, until, reason, by, abort/,
    )
    // Before: the unknown field alone, with the list to compare it against by eye.
    expect(typo.body.error?.message).toContain('Unrecognized key: "fro" — did you mean "for"?')
    const wrongType = await post(`${base}/nets/admin-net/pause`, { abort: 'yes' })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.error?.message).toContain('abort')
    expect((await post(`${base}/nets/admin-net/resume`)).status, 'a refused body was written').toBe(409)
    const empty = await post(`${base}/nets/admin-net/pause`)
    expect(empty.status, 'an empty body was refused').toBe(200)
    expect((await post(`${base}/nets/admin-net/resume`)).status).toBe(200)
  })

  it('logs each accepted action once at info with action, net, by and reason, and never the token', async () => {
    const reason = `log check ${Date.now()}`
    expect((await post(`${base}/nets/admin-net/pause`, { reason, by: 'bob' })).status).toBe(200)
    expect((await post(`${base}/nets/admin-net/resume`, { reason, by: 'bob' })).status).toBe(200)
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.reason === reason)
    expect(logged, 'not one line per accepted action').toHaveLength(2)
    expect(logged[0]).toMatchObject({ level: 30, action: 'pause', net: 'admin-net', by: 'bob', reason })
    expect(logged[1]).toMatchObject({ level: 30, action: 'resume', net: 'admin-net', by: 'bob', reason })
    expect(lines.join('\n'), 'a log line carries the admin token').not.toContain(TOKEN)
    expect(lines.join('\n')).not.toContain(TOKEN.slice(0, 12))
  })
})

describe('the admin API without LEASECRON_ADMIN_TOKEN', () => {
  it('answers 404 admin-off for every /nets/ path and says so in /status', async () => {
    const { base } = await start({})
    const answer = await post(`${base}/nets/admin-net/pause`)
    expect(answer.status).toBe(404)
    expect(answer.body.error?.code).toBe('admin-off')
    expect(answer.body.error?.message).toContain('LEASECRON_ADMIN_TOKEN')
    const status = (await (await fetch(`${base}/status`)).json()) as { admin: unknown }
    expect(status.admin).toEqual({ enabled: false })
  })
})
