/**
 * PING_URL: a pass's pings reach a real local HTTP server by Healthchecks.io's protocol — `/start`, then
 * the URL on success, `/fail` with a short scrubbed error, `/log` for an aborted pass, one run id per pass —
 * through runOnePass (the worker's own slot path) and the pinger itself. A server that hangs or is down
 * never delays or fails a pass; its failures are logged once at warn and counted. The configuration
 * refuses a bad URL naming the variable, and never shows one whole.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet, loadConfig } from '../../src/index.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox.js'
import { runOnePass } from '../../src/testing.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { createPinger, PING_TIMEOUT_MS } from '../../src/observe/ping.js'
import { freePort } from '../support/free-port.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { asPromRegistry } from '../../src/forge/meter/prom-registry.js'

const CHECK = '5f1c2a9e-0b7d-4c3e-9a61-2d8e4f7b9c10'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const lease = defineLease('ping-test', 'elects the ping test net')
const slot = new Date('2026-09-30T15:05:00.000Z')

interface Received {
  method: string
  path: string
  rid: string | null
  body: string
  authorization: string | undefined
}

/** A Healthchecks stand-in on a free port: records every request; `hang` leaves them unanswered. */
async function pingServer(mode: 'answer' | 'hang' = 'answer') {
  const received: Received[] = []
  const hanging: ServerResponse[] = []
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost')
      received.push({
        method: request.method ?? '',
        path: url.pathname,
        rid: url.searchParams.get('rid'),
        body,
        authorization: request.headers.authorization,
      })
      if (mode === 'hang') hanging.push(response)
      else response.end('OK')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/${CHECK}`,
    received,
    close: async () => {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A net that lists repositories, or throws (with a token in its message) when told to. */
function pingedNet(
  pingUrl: string,
  behaviour: 'ok' | 'fail' | 'wait-for-abort' = 'ok',
  onStart?: () => void,
) {
  return defineNet({
    name: 'ping-test',
    lease: lease.name,
    schedule: '*/5 * * * *',
    description: 'pinged',
    pingUrl,
    options: {},
    setup: () => ({}),
    term: () => async (context) => {
      onStart?.()
      if (behaviour === 'fail')
        throw new Error('the forge refused token ghs_0123456789abcdefghijABCDEFGHIJ\nsecond line')
      if (behaviour === 'wait-for-abort') {
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))
        return
      }
      await context.forge.request('GET /installation/repositories', { per_page: 1 })
    },
  })
}

let sandbox: SandboxForge
const closing: (() => Promise<void>)[] = []
beforeAll(async () => {
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 0, issuesPerRepo: 0, seed: 7 } })
})
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()))
})
afterAll(async () => {
  await sandbox?.close()
})

async function server(mode: 'answer' | 'hang' = 'answer') {
  const started = await pingServer(mode)
  closing.push(started.close)
  return started
}

describe('a pass with a PING_URL', () => {
  it('pings /start, then the URL on success, with one canonical run id, before runOnePass resolves', async () => {
    const hc = await server()
    const run = await runOnePass(pingedNet(hc.url), { forge: sandbox, slot })
    expect(run.outcome).toBe('ran')
    expect(hc.received.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /${CHECK}/start`, `GET /${CHECK}`])
    const [start, success] = hc.received
    expect(start?.rid, 'Healthchecks wants a lowercase canonical UUID as rid').toMatch(UUID)
    expect(success?.rid, 'the end ping must carry its start’s run id to pair with it').toBe(start?.rid)
  })

  it('pings /fail with the first line of the error, scrubbed, and a fresh run id per pass', async () => {
    const hc = await server()
    const first = await runOnePass(pingedNet(hc.url, 'fail'), { forge: sandbox, slot })
    expect(first.outcome).toBe('failed')
    await runOnePass(pingedNet(hc.url), { forge: sandbox, slot: new Date('2026-09-30T15:10:00Z') })
    expect(hc.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /${CHECK}/start`,
      `POST /${CHECK}/fail`,
      `GET /${CHECK}/start`,
      `GET /${CHECK}`,
    ])
    const fail = hc.received[1]!
    expect(fail.body).toBe('failed: Error: the forge refused token [redacted]')
    expect(fail.body, 'a token reached the ping server').not.toContain('ghs_')
    expect(hc.received[2]?.rid, 'two passes shared a run id').not.toBe(fail.rid)
  })

  it('pings /log, not /fail, for a pass its term cut short', async () => {
    const hc = await server()
    const stop = new AbortController()
    const net = pingedNet(hc.url, 'wait-for-abort', () => setTimeout(() => stop.abort(), 20))
    const run = await runOnePass(net, { forge: sandbox, slot, signal: stop.signal })
    expect(run.outcome).toBe('aborted')
    expect(hc.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /${CHECK}/start`,
      `POST /${CHECK}/log`,
    ])
    expect(hc.received[1]?.body).toMatch(/^aborted: /)
  })

  it('sends credentials in the URL as Basic authorization, never in the request line', async () => {
    const hc = await server()
    const withUser = hc.url.replace('http://', 'http://ops:s3cret-pass@')
    await runOnePass(pingedNet(withUser), { forge: sandbox, slot })
    expect(hc.received).toHaveLength(2)
    expect(hc.received[0]?.authorization).toBe(`Basic ${Buffer.from('ops:s3cret-pass').toString('base64')}`)
  })

  it('is not delayed by a server that never answers: the pass ends at once, the pings give up in time', async () => {
    const hc = await server('hang')
    const began = Date.now()
    const run = await runOnePass(pingedNet(hc.url), { forge: sandbox, slot })
    const took = Date.now() - began
    expect(run.outcome).toBe('ran')
    const record = run.record!
    const passMs = record.finishedAt!.getTime() - record.startedAt.getTime()
    expect(passMs, 'the pass waited for its pings').toBeLessThan(PING_TIMEOUT_MS)
    // Start, then end after the start gave up: two bounded pings, and nothing longer.
    expect(took, 'the pings were not bounded').toBeLessThan(2 * PING_TIMEOUT_MS + 3_000)
    expect(hc.received.map((r) => r.path)).toEqual([`/${CHECK}/start`, `/${CHECK}`])
    const warned = run.log.filter((l) => l.level === 'warn' && l.event === 'ping_failed')
    expect(warned).toHaveLength(1)
    expect(warned[0]?.msg).toContain(`no answer within ${PING_TIMEOUT_MS} ms`)
  }, 20_000)

  it('still runs and records the pass when the ping server is down, warning once and naming no secret', async () => {
    const url = `http://127.0.0.1:${await freePort()}/${CHECK}`
    const run = await runOnePass(pingedNet(url), { forge: sandbox, slot })
    expect(run.outcome).toBe('ran')
    expect(run.record?.outcome).toBe('ok')
    const failures = run.log.filter((l) => l.event === 'ping_failed')
    expect(failures.map((l) => [l.level, l.kind, l.reason])).toEqual([
      ['warn', 'start', 'ECONNREFUSED'],
      ['debug', 'success', 'ECONNREFUSED'],
    ])
    expect(JSON.stringify(run.log), 'the ping URL’s check id was logged').not.toContain(CHECK)
  })
})

describe('the pinger', () => {
  it('counts every failed ping, warns once per streak, and says when pings get through again', async () => {
    const port = await freePort()
    const lines: { level: string; msg: string; event?: string }[] = []
    const log = createLogger({
      level: 'debug',
      destination: { write: (l: string) => void lines.push(JSON.parse(l)) },
    })
    const metrics = createWorkerMetrics()
    const pinger = createPinger({ url: `http://127.0.0.1:${port}/${CHECK}`, net: 'ping-test', log, metrics })
    for (let pass = 0; pass < 3; pass++) pinger.start().end({ outcome: 'ok' })
    await pinger.settle()
    const failures = await asPromRegistry(metrics.registry).getSingleMetricAsString(
      'leasecron_ping_failures_total',
    )
    expect(failures).toContain('leasecron_ping_failures_total{net="ping-test"} 6')
    expect(lines.filter((l) => l.event === 'ping_failed' && l.level === 'warn')).toHaveLength(1)

    // The same URL answers again: one info line ends the streak.
    const hc = createServer((_request, response) => response.end('OK'))
    await new Promise<void>((resolve) => hc.listen(port, '127.0.0.1', resolve))
    closing.push(() => new Promise<void>((resolve) => hc.close(() => resolve())))
    pinger.start().end({ outcome: 'ok' })
    await pinger.settle()
    expect(lines.filter((l) => l.event === 'ping_recovered').map((l) => l.level)).toEqual(['info'])
    expect(
      lines.filter((l) => l.event === 'ping_failed' && l.level === 'warn'),
      'a recovered streak warned again',
    ).toHaveLength(1)
  })
})

describe('LEASECRON_NET_<NET>_PING_URL', () => {
  const { net } = recordingNet()
  const variable = 'LEASECRON_NET_TICK_NET_PING_URL'
  const load = (env: Record<string, string>, nets = [net]) => loadConfig(env, nets, TEST_LEASES)

  it('is read, overrides the net’s own pingUrl, and is shown by its origin only', () => {
    const own = { ...net, pingUrl: `https://hc.example/${CHECK}` }
    const fromNet = load({}, [own])
    expect(fromNet.ok && fromNet.config.nets[0]?.pingUrl).toBe(`https://hc.example/${CHECK}`)
    const result = load({ [variable]: `https://hc-ping.com/${CHECK}` }, [own])
    expect(result.ok && result.config.nets[0]?.pingUrl).toBe(`https://hc-ping.com/${CHECK}`)
    if (!result.ok) return
    const shown = JSON.stringify(redactedConfig(result.config))
    expect(shown).toContain('"pingUrl":"https://hc-ping.com/[redacted]"')
    expect(shown, '`config` printed the ping URL whole').not.toContain(CHECK)
    const unset = load({})
    expect(unset.ok && unset.config.nets[0]?.pingUrl).toBeUndefined()
  })

  it('refuses a URL that is not http(s) naming the variable, without echoing it', () => {
    for (const bad of [`ftp://hc.example/${CHECK}`, 'hc-ping.com/abc', `https://hc.example/${CHECK}#x`]) {
      const result = load({ [variable]: bad })
      expect(result.ok, `${bad} was accepted`).toBe(false)
      if (result.ok) continue
      expect(result.issues).toEqual([
        { variable, expected: expect.stringMatching(/http:\/\/ or https:\/\//) },
      ])
    }
  })

  it('refuses a net whose own pingUrl is not a URL, naming the net', () => {
    const result = load({}, [{ ...net, pingUrl: 'not a url' }])
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues[0]?.variable).toBe('net "tick-net" (worker configuration module)')
  })
})
