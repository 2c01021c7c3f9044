/**
 * The forge cache keeps only 200 answers, also when a server tags another answer with an ETag (a proxy's
 * error page, an Enterprise Server, a CDN in front of the API). A real local HTTP server answers the first
 * GET with the status under test and an ETag, and honours `If-None-Match` with a 304 as any server does:
 * were the error kept, the next GET would go out conditional and hand the caller the error body as a 200.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { createForgeCache } from '../../../src/forge/cache/forge-cache.js'
import { MemoryForgeCacheStore } from '../../../src/forge/cache/memory-forge-cache-store.js'

const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** A server whose first answer is `status` with an ETag, then a 200 — or a 304 to that ETag. */
async function serverAnsweringFirst(status: number) {
  const seen: IncomingHttpHeaders[] = []
  const server = createServer((req, res) => {
    seen.push(req.headers)
    const first = seen.length === 1
    const etag = first ? `W/"error-${status}"` : 'W/"fresh"'
    if (!first && req.headers['if-none-match'] === `W/"error-${status}"`) {
      res.writeHead(304, { etag: `W/"error-${status}"` }).end()
      return
    }
    const body = first ? { message: `answer ${status}` } : { fresh: true }
    res
      .writeHead(first ? status : 200, {
        'content-type': 'application/json; charset=utf-8',
        etag,
        'last-modified': 'Tue, 29 Sep 2026 10:00:00 GMT',
        'cache-control': 'private, max-age=60',
        ...(status === 206 && first ? { 'content-range': 'bytes 0-19/100' } : {}),
      })
      .end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/repos/o/r/pulls/1`, seen }
}

describe('forge cache given a non-200 answer that carries an ETag', () => {
  for (const status of [203, 206, 403, 404, 410, 429, 500, 502, 503]) {
    it(`does not keep a ${status}: the next GET goes out unconditional and gets the fresh body`, async () => {
      const { url, seen } = await serverAnsweringFirst(status)
      const local = new MemoryForgeCacheStore()
      const cache = createForgeCache({ local, installationId: 1 })
      const agent = new Agent().compose(cache.interceptor)
      closers.push(() => agent.close())

      const first = await request(url, { dispatcher: agent })
      expect(first.statusCode).toBe(status)
      await first.body.text()
      await cache.settle()
      expect((await local.size()).entries, `a ${status} answer was kept`).toBe(0)

      const second = await request(url, { dispatcher: agent })
      const body: unknown = await second.body.json()
      expect(seen[1]?.['if-none-match'], `the ${status} answer's ETag was sent back`).toBeUndefined()
      expect(seen[1]?.['if-modified-since'], `the ${status} answer's date was sent back`).toBeUndefined()
      expect(second.statusCode).toBe(200)
      expect(body, `the ${status} answer's body was handed out as a 200`).toEqual({ fresh: true })
    })
  }
})
