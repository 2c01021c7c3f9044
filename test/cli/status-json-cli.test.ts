/**
 * `leasecron status --json` prints the status snapshot read from the store: run against the test Mongo
 * while a real worker holds the lease and records runs there.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import type { StatusSnapshot } from '../../src/status/status-snapshot.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { mongoServer } from '../support/mongo.js'
import statusNets from '../worker/status/fixtures/status-nets.js'

const NETS = fileURLToPath(new URL('../worker/status/fixtures/status-nets.ts', import.meta.url))
let worker: Worker | undefined
afterAll(async () => {
  await worker?.stop()
})

async function statusJson(env: Record<string, string>): Promise<{ code: number; snapshot: StatusSnapshot }> {
  const out: string[] = []
  const code = await main(['status', '--json', '--config', NETS], {
    out: (l) => out.push(l),
    err: (l) => out.push(l),
    env,
  })
  return { code, snapshot: JSON.parse(out.join('\n')) as StatusSnapshot }
}

describe('leasecron status --json', () => {
  it('prints the holder, the ledger’s runs and the installation’s forge hours from Mongo, with no replica', async () => {
    const mongo = mongoServer()
    const env = {
      MONGO_URI: mongo.url,
      MONGO_DB: `cli_status_${Date.now().toString(36)}`,
      LEASECRON_FORGE: 'sandbox',
    }
    worker = createWorker({
      ...statusNets,
      env: { ...env, PORT: '0', LOG_LEVEL: 'silent' },
      sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 5 } },
    })
    await worker.start()
    const owner = worker.owner
    let result = await statusJson(env)
    await expect
      .poll(
        async () => {
          result = await statusJson(env)
          const net = result.snapshot.nets[0]
          // The installation token's `auth` lane is counted before the pass's own request is, so wait
          // for the net's lane itself, not for any lane.
          const lanes = result.snapshot.forge.lanes.map((l) => l.lane)
          return Boolean(net?.runs?.some((r) => r.outcome === 'ok') && lanes.includes('status-tick'))
        },
        { timeout: 40_000, interval: 2_000 },
      )
      .toBe(true)
    const { code, snapshot } = result
    expect(code).toBe(0)
    expect(snapshot.replica, 'the CLI claimed to be a replica').toBeNull()
    expect(snapshot.store).toMatchObject({ kind: 'mongo', answering: true })
    expect(snapshot.nets[0]?.holder).toMatchObject({ owner, thisReplica: false })
    expect(snapshot.nets[0]?.runs?.[0]?.owner).toBe(owner)
    expect(snapshot.nets[0]?.skippedTicks).toBeNull()
    expect(snapshot.forge.scope).toBe('installation')
    expect(snapshot.forge.lanes.map((l) => l.lane)).toContain('status-tick')
    expect(snapshot.forge.rateLimits).toBeNull()
  }, 90_000)

  it('says there is no shared store to ask without MONGO_URI, neither answering nor not, and exits 0', async () => {
    const { code, snapshot } = await statusJson({ LEASECRON_FORGE: 'sandbox' })
    expect(code, 'a worker on its embedded defaults made `status --json` fail').toBe(0)
    expect(
      snapshot.store,
      'the CLI reported its own empty memory store as the workers’ store, answering',
    ).toEqual({ kind: 'memory', serverVersion: null, answering: null })
    expect(snapshot.notes[0]).toMatch(/^no MONGO_URI: .* ask a worker \(GET \/status\)$/)
  })
})
