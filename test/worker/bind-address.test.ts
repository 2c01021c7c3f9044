/**
 * LEASECRON_BIND_ADDRESS: the worker's HTTP server listens on the configured address only (createWorker on
 * the in-memory store), and a value that is no IP address is refused naming the variable.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, createWorker } from '../../src/index.js'
import type { Worker } from '../../src/worker/worker-options.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const { net } = recordingNet({ schedule: '0 0 * * *' })
const leases = TEST_LEASES
const env = { PORT: '0', LEASECRON_FORGE: 'sandbox', LOG_LEVEL: 'silent' }
const sandbox = { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 24 } }
const workers: Worker[] = []
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()))
})

/** What GET /healthz at `host` answers: its status, or the connection's error code. */
async function healthAt(host: string, port: number): Promise<number | string> {
  try {
    return (await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(5_000) })).status
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return cause?.code ?? String(error)
  }
}

async function started(bindAddress: string): Promise<number> {
  const worker = createWorker({
    nets: [net],
    leases,
    env: { ...env, LEASECRON_BIND_ADDRESS: bindAddress },
    sandbox,
  })
  workers.push(worker)
  await worker.start()
  return worker.port!
}

describe('the HTTP server’s bind address', () => {
  it('listens on the IPv4 loopback only when bound to 127.0.0.1', async () => {
    const port = await started('127.0.0.1')
    expect(await healthAt('127.0.0.1', port)).toBe(200)
    expect(await healthAt('[::1]', port), 'the server answered on an address it was not bound to').toBe(
      'ECONNREFUSED',
    )
  })

  it('listens on the IPv6 loopback only when bound to ::1', async () => {
    const port = await started('::1')
    expect(await healthAt('[::1]', port)).toBe(200)
    expect(await healthAt('127.0.0.1', port), 'the server answered on an address it was not bound to').toBe(
      'ECONNREFUSED',
    )
  })

  it('refuses a host name or an address with a port, naming the variable', () => {
    for (const value of ['example.com', '0.0.0.0:8080', '256.0.0.1']) {
      const create = () =>
        createWorker({ nets: [net], leases, env: { ...env, LEASECRON_BIND_ADDRESS: value } })
      expect(create, `LEASECRON_BIND_ADDRESS=${JSON.stringify(value)} was accepted`).toThrow(ConfigError)
      expect(create).toThrow(/LEASECRON_BIND_ADDRESS/)
    }
  })
})
