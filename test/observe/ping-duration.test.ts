/**
 * A pass that succeeded outside its net's MIN_DURATION or MAX_DURATION pings `/fail` with why (slot-pass.ts
 * durationFault), through `once` on the in-memory runtime and a real local ping server; within them it pings
 * success.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import { durationFault } from '../../src/term/slot-pass.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const received: { path: string; body: string }[] = []
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  let body = ''
  request.on('data', (chunk: Buffer) => (body += chunk.toString()))
  request.on('end', () => {
    received.push({ path: new URL(request.url ?? '/', 'http://localhost').pathname, body })
    response.end('OK')
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const pingUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`
const opened: PassRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** One `once` of a net whose pass takes `passMs`, with `env`'s bounds; the pings its pass sent. */
async function onceWith(passMs: number, env: Record<string, string>) {
  const recording = recordingNet({ passMs: () => passMs })
  const loaded = loadConfig(
    { LEASECRON_FORGE: 'sandbox', LEASECRON_NET_TICK_NET_PING_URL: pingUrl, ...env },
    [recording.net],
    TEST_LEASES,
    { needsForge: false },
  )
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  const runtime = await openRuntime({ config: loaded.config, log })
  opened.push(runtime)
  received.length = 0
  const net = loaded.config.nets[0]!
  const slot = new Date(Math.floor(Date.now() / 1000) * 1000)
  const signal = new AbortController().signal
  const result = await runOnceOnRuntime({
    runtime,
    config: loaded.config,
    net,
    slot,
    owner: ownerId('pinged'),
    log,
    signal,
  })
  return { result, pings: [...received] }
}

describe('the ping of a pass outside its duration bounds', () => {
  it('pings /fail saying it was slow when a success took longer than MAX_DURATION', async () => {
    const { result, pings } = await onceWith(300, { LEASECRON_NET_TICK_NET_MAX_DURATION: '100ms' })
    expect(result.outcome, 'the pass itself still succeeded').toBe('ran')
    expect(pings.map((p) => p.path)).toEqual(['/check/start', '/check/fail'])
    expect(pings[1]!.body).toMatch(/^slow: the pass took \d+ ms, longer than MAX_DURATION \(100ms\)$/)
  })

  it('pings /fail saying it was too fast when a success took less than MIN_DURATION', async () => {
    const { pings } = await onceWith(0, { LEASECRON_NET_TICK_NET_MIN_DURATION: '1m' })
    expect(pings.map((p) => p.path)).toEqual(['/check/start', '/check/fail'])
    expect(pings[1]!.body).toMatch(/^too fast: the pass took \d+ ms, sooner than MIN_DURATION \(1m\)$/)
  })

  it('pings success within the bounds', async () => {
    const { pings } = await onceWith(0, { LEASECRON_NET_TICK_NET_MAX_DURATION: '1m' })
    expect(pings.map((p) => p.path)).toEqual(['/check/start', '/check'])
  })
})

describe('durationFault', () => {
  it('judges only successes, and a duration equal to a bound is within it', () => {
    const bounds = { minMs: 1_000, maxMs: 60_000 }
    expect(durationFault('ok', 60_000, bounds)).toBeUndefined()
    expect(durationFault('ok', 1_000, bounds)).toBeUndefined()
    expect(durationFault('failed', 90_000, bounds), 'a failure pings its own /fail').toBeUndefined()
    expect(durationFault('ok', 60_001, bounds)).toContain('slow')
    expect(durationFault('ok', 999, bounds)).toContain('too fast')
    expect(durationFault('ok', 999_999, undefined)).toBeUndefined()
  })
})
