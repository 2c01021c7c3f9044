/**
 * The public createWorker (src/worker/lazy-worker.ts): the configuration is checked at once, the
 * worker itself loads on start(), and its metrics are refused before and served after. A worker never
 * started stops without loading the worker: seen in the built bundle, in a child process whose module
 * loader reports each module it loads (a load hook that only writes the URL down, then loads as usual).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, it } from 'vitest'
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
const dir = mkdtempSync(join(tmpdir(), 'leasecron-deferred-'))
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()))
  rmSync(dir, { recursive: true, force: true })
})

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/index.js', import.meta.url))
// Registered before the bundle loads: writes down every module URL the loader loads, and changes nothing.
const RECORDER = `import { appendFileSync } from 'node:fs'
let file
export function initialize(data) { file = data.file }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context) }`
const CHILD = `import { register } from 'node:module'
const [bundle, file, mode] = process.argv.slice(1)
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(RECORDER)}), { data: { file } })
const { createWorker, defineLease, defineNet } = await import(bundle)
const lease = defineLease('deferred-net', 'deferred worker test net')
const net = defineNet({ name: 'deferred-net', lease: lease.name, schedule: '0 0 * * *', description: 'x',
  options: {}, setup: () => ({}), term: () => async () => {} })
const worker = createWorker({ nets: [net], leases: [lease], env: ${JSON.stringify(env)} })
if (mode === 'start') await worker.start()
await worker.stop()`

/** The module URLs a child loads while it creates a worker from the bundle and stops it (after `start` when asked). */
async function modulesLoaded(mode: 'stop' | 'start'): Promise<string[]> {
  expect(inject('buildError'), 'dist/ did not build').toBeUndefined()
  const file = join(dir, `${mode}.modules`)
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD, BUNDLE, file, mode], {
    env: { PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  })
  return readFileSync(file, 'utf8').trim().split('\n')
}
const workerChunk = (urls: string[]) => urls.filter((u) => /\/chunks\/worker-[^/]*\.js$/.test(u))

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

  it('stops a worker that was never started without starting it, and it stays stopped', async () => {
    const worker = createWorker({ nets: [net], leases: [lease], env, sandbox })
    await worker.stop()
    expect(worker.port, 'stopping a worker never started bound a port').toBeUndefined()
    expect(() => worker.metrics, 'stop() assembled the worker it had nothing to stop').toThrow(
      WorkerNotStartedError,
    )
    await worker.start()
    expect(worker.port, 'a worker stopped before it started, started after all').toBeUndefined()
  })

  it('loads no worker module to stop a worker never started (the built bundle, in a child process)', async () => {
    const started = await modulesLoaded('start')
    expect(workerChunk(started), 'the recorder does not see the worker chunk load on start()').toHaveLength(1)
    const stopped = await modulesLoaded('stop')
    expect(stopped, 'the recorder saw no module load').toContain(`file://${BUNDLE}`)
    expect(workerChunk(stopped), 'stop() of a worker never started loaded the worker').toEqual([])
  }, 120_000)
})
