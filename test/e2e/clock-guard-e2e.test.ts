/**
 * The clock guard with real processes on the run's Mongo: libfaketime (as the chaos suite preloads it)
 * moves one worker's wall clock 2 s ahead — beyond ttl/6 = 500 ms — and another's 200 ms ahead, within
 * it. The first measures its offset from the server's answers, stops campaigning and says so on /readyz
 * and /metrics; the second is elected as before.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { mongoServer } from '../support/mongo.js'
import { type LogLine, startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/e2e-nets.mjs', import.meta.url))
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1'
const TTL = 3000

let sandbox: SandboxForge
const running: WorkerProcess[] = []

beforeAll(async () => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 5 } })
})
afterAll(async () => {
  for (const w of running) w.child.kill('SIGKILL')
  await sandbox?.close()
})

/**
 * A worker on the shared database whose wall clock (only: monotonic stays real) runs `skewMs` ahead; its
 * net's TTL is `ttlMs` (ttl/6 is what the guard tolerates).
 */
function skewedWorker(db: string, skewMs: number, ttlMs = TTL): WorkerProcess {
  const w = startWorkerProcess(['run', '--config', NETS], {
    PORT: '0',
    LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    MONGO_URI: mongoServer().url,
    MONGO_DB: db,
    LEASECRON_NET_E2E_TICK_TTL_MS: String(ttlMs),
    LEASECRON_NET_E2E_TICK_RETRY_MS: '1000',
    GITHUB_APP_ID: String(sandbox.appId),
    GITHUB_INSTALLATION_ID: String(sandbox.installationId),
    GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
    GITHUB_API_URL: sandbox.url,
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME: `+${(skewMs / 1000).toFixed(3)}`,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  })
  running.push(w)
  return w
}

async function offsetGauge(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith('leasecron_clock_offset_seconds '))
  return Number(line?.split(' ')[1])
}

describe('the clock guard, with a worker whose clock libfaketime moved', () => {
  it('holds a replica 2 s ahead back from a ttl-3 s lease, says why, and elects one 200 ms ahead', async () => {
    expect(
      existsSync(LIBFAKETIME),
      `libfaketime is missing at ${LIBFAKETIME} (apt-get install faketime)`,
    ).toBe(true)
    const db = `clockguard_${Date.now().toString(36)}`
    const ahead = skewedWorker(db, 2000)
    const serving = await ahead.waitFor((l) => l.msg.startsWith('serving'), 20_000, 'the HTTP server')
    const heldBack = await ahead.waitFor(
      (l) => l.msg.startsWith('clock guard: not campaigning'),
      20_000,
      'the clock guard holding the skewed worker back',
    )
    expect(Math.abs(Number(heldBack.offsetMs) - 2000), 'the measured offset is not the skew').toBeLessThan(
      300,
    )
    expect(heldBack.msg).toContain('ms ahead of the store')

    const near = skewedWorker(db, 200)
    const nearServing = await near.waitFor((l) => l.msg.startsWith('serving'), 20_000, 'the HTTP server')
    await near.waitFor((l) => l.msg === 'elected', 20_000, 'the election of the worker within ttl/6')
    await near.waitFor((l) => l.event === 'pass-end', 20_000, 'a pass on the worker within ttl/6')
    // Several retry periods later the skewed worker still never campaigned, and said so only once.
    await new Promise((r) => setTimeout(r, 4 * 1000))
    expect(
      ahead.lines.some((l) => l.msg === 'elected'),
      'the skewed worker was elected',
    ).toBe(false)
    expect(ahead.lines.filter((l) => l.msg.startsWith('clock guard: not campaigning'))).toHaveLength(1)

    const port = Number(serving.port)
    const readyz = await fetch(`http://127.0.0.1:${port}/readyz`)
    const body = JSON.stringify(await readyz.json())
    expect(readyz.status, 'a worker held back by its clock answered ready').toBe(503)
    expect(body).toContain('clockGuard')
    expect(body).toContain('more than ttl/6')
    expect(Math.abs((await offsetGauge(port)) - 2), 'the gauge does not show the 2 s offset').toBeLessThan(
      0.3,
    )
    const nearPort = Number(nearServing.port)
    expect((await fetch(`http://127.0.0.1:${nearPort}/readyz`)).status).toBe(200)
    expect(Math.abs((await offsetGauge(nearPort)) - 0.2)).toBeLessThan(0.3)
  }, 90_000)

  it('starts a replica 4 s ahead on its slots at the server’s instants, not 4 s early', async () => {
    // TTL 30 s: ttl/6 = 5 s, so the guard lets it campaign, and its ticks follow the server's clock.
    const ahead = skewedWorker(`clockticks_${Date.now().toString(36)}`, 4000, 30_000)
    await ahead.waitFor((l) => l.msg === 'elected', 30_000, 'the election of the worker 4 s ahead')
    const ticked = (l: LogLine) => l.event === 'pass-start' && Number(l.pass) >= 2
    await ahead.waitFor((l) => ticked(l) && Number(l.pass) >= 5, 20_000, 'four ticked passes')
    // Each pass's start on the worker's own (moved) clock, less its slot: 4 s when it waited for the
    // server's instant, about 0 when it started on its own clock (4 s early by the server's).
    const lags = ahead.lines.filter(ticked).map((l) => Number(l.at) - Date.parse(String(l.slot)))
    expect(lags.length).toBeGreaterThanOrEqual(4)
    for (const lag of lags)
      expect(lag, `a slot started ${4000 - lag} ms before the server's instant`).toBeGreaterThanOrEqual(3500)
  }, 90_000)
})
