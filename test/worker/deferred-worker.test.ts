/**
 * The public createWorker (src/worker/deferred-worker.ts): the configuration is checked at once, the
 * worker itself loads on start(), and its metrics are refused before and served after.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, createWorker, defineLease, defineNet, WorkerNotStartedError } from '../../src/index.js'
import type { Worker } from '../../src/worker/worker-options.js'

const lease = defineLease('deferred-net', 'deferred worker test net')
const net = defineNet({
  name: 'deferred-net',
  lease: lease.name,
  schedule: '*/5 * * * * *',
  description: 'deferred worker test net',
  options: {},
  setup: () => ({}),
  term: () => async () => {},
})
const env = { PORT: '0', LEASECRON_FORGE: 'sandbox', LOG_LEVEL: 'silent' }
const sandbox = { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 24 } }
const workers: Worker[] = []
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()))
})

describe('createWorker from the public entry', () => {
  it('throws ConfigError naming the bad variable at once, before anything is loaded or started', () => {
    const create = () => createWorker({ nets: [net], leases: [lease], env: { ...env, PORT: 'eighty' } })
    expect(create, 'a bad PORT would surface only at start, after the worker loaded').toThrow(ConfigError)
    expect(create).toThrow(/PORT/)
  })

  it('refuses its metrics before start() with an error naming the owner, and serves them at /metrics once started', async () => {
    const worker = createWorker({ nets: [net], leases: [lease], env, sandbox })
    workers.push(worker)
    expect(worker.config.port, 'the configuration is read before start').toBe(0)
    expect(worker.port, 'nothing listens before start').toBeUndefined()
    let refused: unknown
    try {
      void worker.metrics
    } catch (error) {
      refused = error
    }
    expect(refused, 'metrics read before start would be a registry nobody serves').toBeInstanceOf(
      WorkerNotStartedError,
    )
    expect((refused as WorkerNotStartedError).code).toBe('WORKER_NOT_STARTED')
    expect((refused as Error).message).toContain(worker.owner)

    await worker.start()
    expect(worker.port, 'the started worker does not report its HTTP port').toBeGreaterThan(0)
    // The families, not the values: a pass may count between the two reads.
    const families = (text: string) => text.split('\n').filter((l) => l.startsWith('# TYPE '))
    const served = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text()
    expect(families(served), '/metrics does not serve the registry Worker.metrics exposes').toEqual(
      families(await worker.metrics.registry.metrics()),
    )
    expect(served).toContain('# TYPE leasecron_')
  })

  it('stops a worker that was never started without starting it', async () => {
    const worker = createWorker({ nets: [net], leases: [lease], env, sandbox })
    await worker.stop()
    expect(worker.port, 'stopping a worker never started bound a port').toBeUndefined()
  })
})
