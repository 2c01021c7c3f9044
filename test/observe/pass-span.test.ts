/**
 * Traces through @opentelemetry/api, seen by the real SDK (BasicTracerProvider, the in-memory exporter and
 * the AsyncLocalStorage context manager, registered as a user would): a real pass against the sandbox forge
 * is one span with its net, slot, fence, attempts and outcome, and each forge request it makes is a child
 * CLIENT span named and attributed by the HTTP conventions; a failing pass is an ERROR span. The request
 * span interceptor is also driven over a real undici Agent: the private trace header never reaches the
 * wire, and a refused connection is an ERROR span with its error.type.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defineLease, defineNet } from '../../src/index.js'
import { requestSpanInterceptor, TRACE_HEADER } from '../../src/forge/client/request-span.js'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox.js'
import { runOnePass } from '../../src/testing.js'
import { freePort } from '../support/free-port.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const lease = defineLease('traced-test', 'elects the traced test net')
const slot = new Date('2026-09-30T15:05:00.000Z')

/** A net whose pass lists repositories and asks for one that does not exist (a 404), or throws. */
function tracedNet(fail = false) {
  return defineNet({
    name: 'traced-test',
    lease: lease.name,
    schedule: '*/5 * * * *',
    description: 'traced',
    options: {},
    setup: () => ({}),
    term: () => async (ctx) => {
      await ctx.forge.request('GET /installation/repositories', { per_page: 1 })
      await ctx.forge
        .request('GET /repos/{owner}/{repo}', { owner: 'nobody', repo: 'nothing' })
        .catch(() => {})
      if (fail) throw new Error('the pass broke with token ghs_0123456789abcdefghijABCDEFGHIJ')
    },
  })
}

let sandbox: SandboxForge
beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(provider)
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 0, issuesPerRepo: 0, seed: 3 } })
})
beforeEach(() => exporter.reset())
afterAll(async () => {
  await sandbox?.close()
  await provider.shutdown()
  trace.disable()
  context.disable()
})

const passSpans = () => exporter.getFinishedSpans().filter((s) => s.name.startsWith('leasecron.pass'))
const childrenOf = (parent: ReadableSpan) =>
  exporter.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId)

describe('a pass’s trace', () => {
  it('is one span with the net, slot, fence, attempts and outcome; its forge requests are its CLIENT children', async () => {
    const run = await runOnePass(tracedNet(), { forge: sandbox, slot })
    expect(run.outcome).toBe('ran')
    const [pass, ...more] = passSpans()
    expect(more, 'a slot made more than one pass span').toEqual([])
    expect(pass?.name).toBe('leasecron.pass traced-test')
    expect(pass?.kind).toBe(SpanKind.INTERNAL)
    expect(pass?.attributes).toMatchObject({
      'leasecron.net': 'traced-test',
      'leasecron.slot': slot.toISOString(),
      'leasecron.fence': run.fence,
      'leasecron.attempts': 1,
      'leasecron.outcome': 'ok',
    })
    expect(pass?.status.code).toBe(SpanStatusCode.UNSET)
    expect(pass?.events.map((e) => [e.name, e.attributes?.['leasecron.outcome']])).toEqual([
      ['leasecron.attempt', 'ok'],
    ])
    const requests = childrenOf(pass!)
    expect(requests.map((s) => [s.name, s.attributes['http.response.status_code']])).toEqual([
      ['GET', 200],
      ['GET', 404],
    ])
    const host = new URL(sandbox.url)
    for (const span of requests) {
      expect(span.kind).toBe(SpanKind.CLIENT)
      expect(span.attributes).toMatchObject({
        'http.request.method': 'GET',
        'server.address': host.hostname,
        'server.port': Number(host.port),
      })
    }
    expect(requests[0]?.attributes['url.full']).toBe(`${sandbox.url}/installation/repositories?per_page=1`)
    expect(requests[0]?.status.code).toBe(SpanStatusCode.UNSET)
    expect(requests[1]?.status.code, 'a client 4xx must be an ERROR span').toBe(SpanStatusCode.ERROR)
    expect(requests[1]?.attributes['error.type']).toBe('404')
  })

  it('keeps the token mint out of the pass: a root span of its own, charged to no pass', async () => {
    await runOnePass(tracedNet(), { forge: sandbox, slot })
    const mints = exporter
      .getFinishedSpans()
      .filter((s) => String(s.attributes['url.full']).endsWith('/access_tokens'))
    expect(mints.map((s) => [s.name, s.parentSpanContext?.spanId])).toEqual([['POST', undefined]])
  })

  it('is an ERROR span with the scrubbed message when the pass fails', async () => {
    const run = await runOnePass(tracedNet(true), { forge: sandbox, slot })
    expect(run.outcome).toBe('failed')
    const [pass] = passSpans()
    expect(pass?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'Error: the pass broke with token [redacted]',
    })
    expect(pass?.attributes).toMatchObject({ 'leasecron.outcome': 'failed', 'error.type': 'Error' })
    const carried = exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.status, s.events])
    expect(JSON.stringify(carried), 'a token reached a span').not.toContain('ghs_')
    expect(childrenOf(pass!), 'the failing pass lost its request spans').toHaveLength(2)
  })
})

describe('the request span interceptor', () => {
  it('strips the trace header before the wire and parents the span on it', async () => {
    const seen: IncomingHttpHeaders[] = []
    const server = createServer((req, res) => {
      seen.push(req.headers)
      res.end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const agent = new Agent().compose(requestSpanInterceptor())
    try {
      const { port } = server.address() as AddressInfo
      const traceId = '0af7651916cd43dd8448eb211c80319c'
      const stamped = `${traceId}-b7ad6b7169203331-1`
      const answer = await request(`http://127.0.0.1:${port}/x?token=abc`, {
        dispatcher: agent,
        headers: { [TRACE_HEADER]: stamped },
      })
      await answer.body.text()
      expect(seen[0]?.[TRACE_HEADER], 'the private trace header went on the wire').toBeUndefined()
      const [span] = exporter.getFinishedSpans()
      expect(span?.spanContext().traceId).toBe(traceId)
      expect(span?.parentSpanContext?.spanId).toBe('b7ad6b7169203331')
      expect(span?.attributes['url.full']).toBe(`http://127.0.0.1:${port}/x?token=REDACTED`)
    } finally {
      await agent.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('ends a request that got no answer as an ERROR span naming the error', async () => {
    const agent = new Agent().compose(requestSpanInterceptor())
    try {
      const port = await freePort()
      await expect(request(`http://127.0.0.1:${port}/`, { dispatcher: agent })).rejects.toThrow()
      const [span] = exporter.getFinishedSpans()
      expect(span?.status.code).toBe(SpanStatusCode.ERROR)
      expect(span?.attributes['error.type']).toBe('ECONNREFUSED')
      expect(span?.attributes['http.response.status_code']).toBeUndefined()
    } finally {
      await agent.close()
    }
  })
})
