/**
 * A store outage shorter than the TTL within a term, on the test Mongo: the holder's run ledger
 * (MongoRunLedger) reaches the server through a TCP proxy (test/chaos/tcp-proxy.ts) that blackholes it for
 * a few of an every-second net's slots — claims sent into the blackhole time out on the holder's side and
 * may land when it heals. The lease is kept in memory, so the term is sure to hold throughout: what is
 * under test is the ledger's side. Every slot between the ledger's first and last record must then have
 * one record with an outcome (the chaos checker's accounting): run late, recorded missed, or a claim that
 * landed unanswered recorded aborted — none silently lost, none left "running".
 */
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig, MongoRunLedger } from '../../src/index.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { accountSlots } from '../chaos/checker.js'
import { startTcpProxy } from '../chaos/tcp-proxy.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { campaignOptions } from '../support/term-specs.js'

const NET = 'tick-net'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const mongo = await useTestDatabase('ledger_outage')
const target = new URL(mongoServer().url)
const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) })
const viaProxy = new URL(target.href)
viaProxy.host = `127.0.0.1:${proxy.port}`
viaProxy.searchParams.set('directConnection', 'true')
const proxied = new MongoClient(viaProxy.href, { serverSelectionTimeoutMS: 1_000 })
afterAll(async () => {
  await proxied.close(true)
  await proxy.close()
})

async function until(what: string, probe: () => boolean, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(20)) if (probe()) return
  throw new Error(`${what} did not happen within ${ms} ms`)
}

describe('a ledger blackholed for less than the TTL within a term, on the test Mongo', () => {
  it('leaves no slot of the outage without a record: each is run late, recorded missed or recorded aborted', async () => {
    const collection = 'net_runs_outage'
    await new MongoRunLedger(mongo.db, { collection }).ensureIndexes()
    const ledger = new MongoRunLedger(proxied.db(mongo.db.databaseName), { collection })
    const { net, passes, terms } = recordingNet()
    const env = {
      CATCH_UP: 'all',
      CATCH_UP_WINDOW: '1m',
      CATCH_UP_MAX: '10',
      TTL_MS: '9000',
      RETRY_MS: '1000',
    }
    const variables = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [`LEASECRON_NET_TICK_NET_${k}`, v]),
    )
    const loaded = loadConfig(variables, [net], TEST_LEASES)
    if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
    const stop = new AbortController()
    const done = runNetCampaign(campaignOptions(loaded.config.nets[0]!, { ledger, signal: stop.signal }))
    await until('three passes', () => passes.length >= 3)
    await proxy.setMode({ kind: 'blackhole' })
    const cutAt = Date.now()
    await sleep(5_000) // longer than a claim's bound (TTL/3, 3 s), shorter than the TTL
    await proxy.setMode({ kind: 'pass' })
    const healedAt = Date.now()
    await sleep(8_000)
    stop.abort()
    await done
    const runs = await new MongoRunLedger(mongo.db, { collection }).history(NET, 1000)
    const accounting = accountSlots(runs.map((r) => ({ ...r, outcome: r.outcome ?? null })))
    expect(terms(), 'the holder lost its term: the lease was meant to hold').toBe(1)
    expect(
      accounting.missing,
      `a slot of the outage has no ledger record: silently lost (${JSON.stringify(accounting.outcomes)})`,
    ).toEqual([])
    expect(accounting.unfinished, 'a slot was claimed and left without an end').toEqual([])
    const outage = runs.filter((r) => r.slot.getTime() > cutAt && r.slot.getTime() < healedAt)
    expect(outage.length, 'no slot fell due during the outage: the test proves nothing').toBeGreaterThan(0)
  }, 60_000)
})
