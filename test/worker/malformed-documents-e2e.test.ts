/**
 * Malformed documents written through the real driver into the test Mongo, read by a real worker and by
 * the CLI: a lease that cannot be elected on is shown corrupt and never crashes its campaign; once fixed,
 * the net is elected within one retry without a restart. A malformed run is skipped, never a 500 or exit 1.
 */
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import type { StatusSnapshot } from '../../src/status/status-snapshot.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import statusNets, { statusLease } from './status/fixtures/status-nets.js'
import { mongoServer } from '../support/mongo.js'

const NETS = fileURLToPath(new URL('./status/fixtures/status-nets.ts', import.meta.url))
const RETRY_MS = 1_000
let worker: Worker | undefined
let client: MongoClient | undefined
afterAll(async () => {
  await worker?.stop()
  await client
    ?.db(DB)
    .dropDatabase()
    .catch(() => undefined)
  await client?.close()
})
const DB = `malformed_${Date.now().toString(36)}`

async function cli(args: string[], env: Record<string, string>) {
  const out: string[] = []
  const err: string[] = []
  const code = await main([...args, '--config', NETS], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('malformed store documents under a real worker', () => {
  it('keeps the net campaigning on a corrupt lease, shows it, and elects within one retry once fixed', async () => {
    const mongo = mongoServer()
    client = await new MongoClient(mongo.url).connect()
    const db = client.db(DB)
    const leases = db.collection<Record<string, unknown> & { _id: string }>('leases')
    const t = new Date()
    // Held by nobody provable: the expiry is text, and the fence cannot be given a successor.
    await leases.insertOne({
      _id: statusLease.name,
      owner: 'someone-else',
      token: 'x',
      fence: 'seven',
      expiresAt: 'tomorrow',
      renewedAt: t,
    })
    await db.collection<Record<string, unknown> & { _id: string }>('net_runs').insertOne({
      _id: `status-tick@${t.toISOString()}`,
      net: 'status-tick',
      slot: 'yesterday',
      owner: 'someone-else',
      fence: 1,
      startedAt: t,
    })
    const env = { MONGO_URI: mongo.url, MONGO_DB: DB, LEASECRON_FORGE: 'sandbox' }
    worker = createWorker({
      ...statusNets,
      env: {
        ...env,
        PORT: '0',
        LOG_LEVEL: 'silent',
        LEASECRON_NET_STATUS_TICK_TTL_MS: '6000',
        LEASECRON_NET_STATUS_TICK_RETRY_MS: String(RETRY_MS),
      },
      sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 5 } },
    })
    await worker.start()
    const base = `http://127.0.0.1:${worker.port}`
    await sleep(5 * RETRY_MS)

    expect((await leases.findOne({}))?.fence, 'a term was granted a fence it cannot prove').toBe('seven')
    expect((await fetch(`${base}/healthz`)).status, 'the campaign died on a corrupt lease').toBe(200)
    const status = await fetch(`${base}/status`)
    expect(status.status, 'a malformed document broke /status').toBe(200)
    const net = ((await status.json()) as StatusSnapshot).nets[0]
    expect(net?.leaseCorrupt, 'the corrupt lease was not shown').toMatch(/fence: expected number/)
    expect(net?.runs, 'a malformed run reached the snapshot').toEqual([])
    expect((await fetch(`${base}/`)).status, 'a malformed document broke the page').toBe(200)
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toContain('leasecron_store_bad_documents_total{collection="leases"} 1')
    expect(metrics).toContain('leasecron_store_bad_documents_total{collection="net_runs"} 1')

    const history = await cli(['history', 'status-tick', '--json'], env)
    expect(history.code, `history failed on a malformed run: ${history.err}`).toBe(0)
    expect(history.err).toContain('malformed net_runs document')
    const snapshot = await cli(['status', '--json'], env)
    expect(snapshot.code, `status --json failed: ${snapshot.err}`).toBe(0)
    expect((JSON.parse(snapshot.out) as StatusSnapshot).nets[0]?.leaseCorrupt).toMatch(/fence/)

    // The operator fixes the fence; the expiry is still text, so the lease is free.
    await leases.updateOne({ _id: statusLease.name }, { $set: { fence: 7 } })
    const fixedAt = Date.now()
    await expect
      .poll(async () => (await leases.findOne({}))?.owner, { timeout: 10_000, interval: 50 })
      .toBe(worker.owner)
    const electedInMs = Date.now() - fixedAt
    const lease = await leases.findOne({})
    expect(lease?.fence).toBe(8)
    expect(lease?.expiresAt, 'the new term did not write a valid expiry').toBeInstanceOf(Date)
    // One retry pause (up to +20% jitter) plus a generous allowance for a loaded machine.
    expect(electedInMs, 'the fixed lease was not elected within one retry').toBeLessThan(
      RETRY_MS * 1.2 + 1_000,
    )
  }, 60_000)
})
