/**
 * The two examples run as a user would run them: the custom net through the built `leasecron` bin with
 * its TypeScript configuration (no build step, no loader flag), the embedded service as two replicas
 * against the test Mongo. The custom net's own test — what its author writes, with `runOnePass` from
 * `leasecron/testing` — is beside it: examples/custom-net/stale-pulls.test.ts.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, test } from 'vitest'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { type NodeProcess, spawnNodeProcess } from '../support/node-process.js'
import { MAIN } from '../support/worker-process.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const CUSTOM_NET = fileURLToPath(new URL('../../examples/custom-net/worker.config.ts', import.meta.url))
const SERVICE = fileURLToPath(new URL('../../examples/embedded-service/service.ts', import.meta.url))

function bin(args: string[], env: Record<string, string>) {
  return run(process.execPath, [MAIN, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 90_000,
  }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code?: number; stdout?: string; stderr?: string }) => ({
      code: failed.code ?? -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    }),
  )
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>]
    } catch {
      return []
    }
  })
}

describe('examples/custom-net', () => {
  test('runs one pass of the custom net from its TypeScript configuration against the sandbox, with its own option', async () => {
    expect(inject('buildError'), 'dist/ did not build').toBeUndefined()
    const result = await bin(['once', 'stale-pulls', '--config', CUSTOM_NET], {
      LEASECRON_NET_STALE_PULLS_DAYS: '3',
    })
    expect(result.code, `once failed:\n${result.stderr}\n${result.stdout.slice(-2000)}`).toBe(0)
    const counted = jsonLines(result.stdout + result.stderr).find((l) => l.msg === 'stale pulls counted')
    expect(counted, 'the pass did not report its count').toBeDefined()
    expect(counted?.days, 'the net did not receive its own option').toBe(3)
    expect(Number(counted?.repositories), 'the pass saw no sandbox repository').toBeGreaterThan(0)
  }, 120_000)

  test('refuses an out-of-range option of the custom net, naming the variable and what it expects', async () => {
    const result = await bin(['config', '--config', CUSTOM_NET], { LEASECRON_NET_STALE_PULLS_DAYS: '0' })
    expect(result.code).toBe(78)
    expect(result.stderr).toContain('LEASECRON_NET_STALE_PULLS_DAYS')
    expect(result.stderr).toContain('a whole number from 1 to 365')
  }, 60_000)
})

const mongo = await useTestDatabase('examples').catch((error: unknown) => error as Error)
const replicas: NodeProcess[] = []
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop('SIGKILL')))
})

async function health(port: number): Promise<{ owner: string; elected: boolean }> {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`)
  return (await response.json()) as { owner: string; elected: boolean }
}

describe.runIf(!(mongo instanceof Error))('examples/embedded-service', () => {
  test('two replicas serve requests, one refreshes the report, and the other takes over when it stops', async () => {
    if (mongo instanceof Error) throw mongo
    const env = { MONGO_URI: mongoServer().url, MONGO_DB: mongo.db.databaseName, PORT: '0' }
    for (const n of [1, 2]) {
      replicas.push(spawnNodeProcess('--import', ['tsx', SERVICE], env, { label: `service-${n}`, cwd: root }))
    }
    const ports = await Promise.all(
      replicas.map(async (r) => Number((await r.waitFor((l) => l.msg === 'listening', 60_000)).port)),
    )
    const deadline = Date.now() + 30_000
    let states = await Promise.all(ports.map(health))
    while (!states.some((s) => s.elected) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
      states = await Promise.all(ports.map(health))
    }
    expect(
      states.filter((s) => s.elected),
      'exactly one replica should refresh the report',
    ).toHaveLength(1)
    const leader = states.findIndex((s) => s.elected)
    const report = (await (await fetch(`http://127.0.0.1:${ports[leader]}/report`)).json()) as { by: string }
    expect(report.by).toBe(states[leader]?.owner)

    await replicas[leader]?.stop('SIGTERM')
    const other = ports[1 - leader] as number
    const handover = Date.now() + 30_000
    while (!(await health(other)).elected && Date.now() < handover)
      await new Promise((r) => setTimeout(r, 250))
    expect((await health(other)).elected, 'the remaining replica never took over the lease').toBe(true)
  }, 120_000)
})
