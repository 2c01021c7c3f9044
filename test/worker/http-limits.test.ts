/**
 * The worker's HTTP port under slow and hostile clients, on real sockets: a client that sends part of a
 * request and waits is closed within seconds, connections past the cap are closed as they arrive, one
 * address holding its whole allowance of slow-header connections leaves the probes and scrapes of another
 * answered (loopback clients bound to 127.0.0.x stand for distinct hosts), a refused method says which are
 * allowed, and every answer forbids MIME sniffing.
 */
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { HTTP_LIMITS } from '../../src/worker/http-limits.js'
import { type HealthServer, startHealthServer } from '../../src/worker/http.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'

let server: HealthServer | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await server?.close()
  server = undefined
})

async function start(): Promise<HealthServer> {
  server = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry: createWorkerMetrics().registry,
    ready: async () => ({ ready: true, detail: {} }),
  })
  return server
}

/** A connected socket from local address `from`, whose received bytes and close are recorded. */
async function open(
  port: number,
  from = '127.0.0.1',
): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from })
  sockets.push(socket)
  let data = ''
  socket.on('data', (chunk) => {
    data += chunk.toString('latin1')
  })
  socket.on('error', () => undefined)
  const opened = Date.now()
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)))
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, received: () => data, closed }
}

/** GET `path` from local address `from`: the status code, or the error's code when it was refused. */
function probe(port: number, path: string, from: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path, localAddress: from, agent: false }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
    })
    req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    req.setTimeout(5_000, () => req.destroy(new Error('no answer within 5 s')))
    req.end()
  })
}

/** Resolves `'open'` if `closed` has not settled within `ms`. */
function within(closed: Promise<number>, ms: number): Promise<number | 'open'> {
  return Promise.race([closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms))])
}

describe('the HTTP port under slow and hostile clients', () => {
  it('closes a client that sends half a request line and waits, within a few seconds', async () => {
    const { port } = await start()
    const slow = await open(port)
    slow.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
    const silent = await open(port)
    // The bound is 5 s, checked every second; 9 s leaves room for a busy machine, 60 s was Node's default.
    const bound = HTTP_LIMITS.headersTimeoutMs + 4_000
    expect(await within(slow.closed, bound), 'a slow-header client holds its socket open').not.toBe('open')
    expect(await within(silent.closed, 1_000), 'a client that sends nothing holds its socket open').not.toBe(
      'open',
    )
  }, 20_000)

  it('closes connections past the cap as they arrive while the others are served', async () => {
    const { port, server: http } = await start()
    let accepted = 0
    http.on('connection', () => accepted++)
    const held = []
    // From four addresses, each within its own allowance, so that the server's cap is what refuses.
    for (let i = 0; i < HTTP_LIMITS.maxConnections; i++) held.push(await open(port, `127.0.0.${1 + (i % 4)}`))
    await expect.poll(() => accepted, { timeout: 5_000 }).toBe(HTTP_LIMITS.maxConnections)
    const excess = await open(port, '127.0.0.5')
    expect(await within(excess.closed, 2_000), 'a connection past the cap was kept').not.toBe('open')
    expect(excess.received(), 'a connection past the cap was answered').toBe('')
    const first = held[0]!
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    await within(first.closed, 2_000)
    expect(first.received(), 'a connection within the cap was not served').toMatch(/^HTTP\/1\.1 200/)
  }, 20_000)

  it('answers probes and scrapes from another address while one address holds the cap’s worth of slow-header connections', async () => {
    const { port, server: http } = await start()
    let accepted = 0
    http.on('connection', () => accepted++)
    for (let i = 0; i < HTTP_LIMITS.maxConnections; i++) {
      const slow = await open(port, '127.0.0.1')
      slow.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
    }
    await expect.poll(() => accepted, { timeout: 5_000 }).toBe(HTTP_LIMITS.maxConnections)
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect(await probe(port, path, '127.0.0.2'), `${path} from another address`).toBe(200)
  }, 20_000)

  it('closes a connection past one address’s allowance, unanswered, and gives the place back when one closes', async () => {
    const { port } = await start()
    const held = []
    for (let i = 0; i < HTTP_LIMITS.maxConnectionsPerAddress; i++) held.push(await open(port, '127.0.0.3'))
    const excess = await open(port, '127.0.0.3')
    expect(await within(excess.closed, 2_000), 'a connection past the allowance was kept').not.toBe('open')
    expect(excess.received(), 'a connection past the allowance was answered').toBe('')
    expect(await probe(port, '/healthz', '127.0.0.4'), 'another address was refused').toBe(200)
    const first = held[0]!
    first.socket.end('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(await within(first.closed, 2_000), 'the server kept a finished connection').not.toBe('open')
    expect(first.received(), 'a connection within the allowance was not served').toMatch(/^HTTP\/1\.1 200/)
    // The closed connection's place is free again: the same address is served, not refused.
    // (Polled: the server may see the close a moment after the client does.)
    await expect
      .poll(() => probe(port, '/healthz', '127.0.0.3'), {
        timeout: 3_000,
        message: 'a closed connection kept its place',
      })
      .toBe(200)
  }, 20_000)

  it('answers a refused method with 405 and Allow: GET, HEAD', async () => {
    const { port } = await start()
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, { method })
      expect(response.status, `${method} was not refused`).toBe(405)
      expect(response.headers.get('allow'), `the 405 to ${method} does not say what is allowed`).toBe(
        'GET, HEAD',
      )
      expect(
        await response.json(),
        'a client reading the admin API’s errors could not read this one',
      ).toEqual({
        error: { code: 'method-not-allowed', message: `expected GET or HEAD; got ${method}` },
      })
    }
  })

  it('forbids MIME sniffing and referrers on every answer, found or not', async () => {
    const { port } = await start()
    for (const [path, method] of [
      ['/healthz', 'GET'],
      ['/readyz', 'GET'],
      ['/metrics', 'GET'],
      ['/nowhere', 'GET'],
      ['/healthz', 'HEAD'],
      ['/healthz', 'POST'],
    ] as const) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { method })
      expect(response.headers.get('x-content-type-options'), `${method} ${path} may be sniffed`).toBe(
        'nosniff',
      )
      expect(response.headers.get('referrer-policy'), `${method} ${path} leaks its address`).toBe(
        'no-referrer',
      )
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    }
  })
})
