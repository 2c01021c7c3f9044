/**
 * Crafted documents written through the real driver into the test Mongo — a lease whose fence is markup,
 * runs whose outcome, fence and request counts are markup, forge hours whose figures are markup, a run
 * with a 2 MB error — served by a real worker: `GET /` shows none of it as markup, and neither `/` nor
 * `/status` serves the whole error. The net is disabled, so no campaign rewrites the lease meanwhile.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet } from '../../../src/index.js'
import { netEnvPrefix } from '../../../src/config/variables.js'
import { hourStart } from '../../../src/forge/meter/forge-hour-store.js'
import { createWorker, type Worker } from '../../../src/worker/worker.js'
import { mongoServer, useTestDatabase } from '../../support/mongo.js'
import { expectNoLiveMarkup, PAYLOADS } from './fixtures/hostile.js'

const lease = defineLease('hostile-net', 'escaping test net')
const net = defineNet({
  name: 'hostile-net',
  lease: lease.name,
  schedule: '0 * * * *',
  description: 'escaping test net',
  options: {},
  setup: () => ({}),
  term: () => async () => {},
})
const [SCRIPT, IMG, SVG, BREAKOUT] = PAYLOADS
const test = await useTestDatabase('status_hostile')
const workers: Worker[] = []
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()))
})

async function writeHostileDocuments(now: Date): Promise<void> {
  const { db } = test
  await db.collection('leases').insertOne({
    _id: lease.name as never,
    owner: 'crafted-owner',
    token: 'crafted-token',
    fence: IMG,
    expiresAt: new Date(now.getTime() + 3_600_000),
    renewedAt: now,
  })
  const slot = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000)
  const run = (minutesAgo: number, fields: Record<string, unknown>) => ({
    _id: `${net.name}@${slot(minutesAgo).toISOString()}` as never,
    net: net.name,
    slot: slot(minutesAgo),
    owner: 'crafted-owner',
    startedAt: slot(minutesAgo),
    finishedAt: slot(minutesAgo - 0.5),
    ...fields,
  })
  await db
    .collection('net_runs')
    .insertMany([
      run(2, { fence: SVG, outcome: BREAKOUT, error: null, requests: { lane: SCRIPT } }),
      run(3, { fence: 1, outcome: `"><script>window.__pwned=5</script>`, error: null, requests: null }),
      run(4, { fence: 1, outcome: 'failed', error: 'e'.repeat(2_000_000), requests: { lane: 1 } }),
    ])
  const hour = new Date(hourStart(now.getTime()))
  await db.collection('forge_hours').insertOne({
    _id: `crafted|${hour.toISOString()}|crafted-lane` as never,
    owner: 'crafted',
    hour,
    lane: 'crafted-lane',
    requests: SCRIPT,
    notModified: IMG,
    points: SVG,
  })
}

describe('the status page over crafted store documents', () => {
  it('serves none of their markup live and neither view serves a 2 MB error whole', async () => {
    await writeHostileDocuments(new Date())
    const worker = createWorker({
      nets: [net],
      leases: [lease],
      env: {
        PORT: '0',
        LEASECRON_FORGE: 'sandbox',
        LOG_LEVEL: 'silent',
        MONGO_URI: mongoServer().url,
        MONGO_DB: test.db.databaseName,
        [`${netEnvPrefix(net.name)}ENABLED`]: 'false',
      },
      sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 3 } },
    })
    workers.push(worker)
    await worker.start()
    const base = `http://127.0.0.1:${worker.port}`
    // The first snapshot may be taken before the worker's connection is up: wait for the stored runs (the
    // well-formed failed one at least: a store that parses its documents may skip the others).
    let html = ''
    await expect
      .poll(
        async () => {
          html = await (await fetch(`${base}/`)).text()
          return html.includes('crafted-owner')
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(true)
    expectNoLiveMarkup(html)
    expect(html).not.toContain('window.__pwned=5</script>')
    expect(html.length, 'the page serves the whole stored error').toBeLessThan(200_000)
    const status = await (await fetch(`${base}/status`)).text()
    expect(status.length, '/status serves the whole stored error').toBeLessThan(200_000)
    expect(status).toContain('…(1999500 more)')
  }, 60_000)
})
