/**
 * The status routes on a real worker's HTTP port: `/status` answers JSON whatever LEASECRON_STATUS_PAGE
 * says, `/` serves the page unless it is off, nothing but GET/HEAD is accepted, and no secret (the Mongo
 * connection string) appears in what they serve.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet } from '../../../src/index.js'
import { createWorker, type Worker } from '../../../src/worker/worker.js'
import { mongoServer } from '../../support/mongo.js'

const lease = defineLease('routes-net', 'status routes test net')
const net = defineNet({
  name: 'routes-net',
  lease: lease.name,
  schedule: '*/5 * * * * *',
  description: 'status routes test net',
  options: {},
  setup: () => ({}),
  term: () => async () => {},
})
const workers: Worker[] = []
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()))
})

async function start(env: Record<string, string>): Promise<string> {
  const worker = createWorker({
    nets: [net],
    leases: [lease],
    env: { PORT: '0', LEASECRON_FORGE: 'sandbox', LOG_LEVEL: 'silent', ...env },
    sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 2 } },
  })
  workers.push(worker)
  await worker.start()
  return `http://127.0.0.1:${worker.port}`
}

describe('the status routes', () => {
  it('turn the page off with LEASECRON_STATUS_PAGE=false while /status still answers, and refuse writes', async () => {
    const base = await start({ LEASECRON_STATUS_PAGE: 'false' })
    const page = await fetch(`${base}/`)
    expect(page.status, 'the page answered although it is off').toBe(404)
    expect(await page.text()).toContain('LEASECRON_STATUS_PAGE=false')
    const json = await fetch(`${base}/status`)
    expect(json.status).toBe(200)
    expect(json.headers.get('content-type')).toBe('application/json')
    const snapshot = (await json.json()) as { schema: number; nets: { name: string }[] }
    expect(snapshot.schema).toBe(1)
    expect(snapshot.nets.map((n) => n.name)).toEqual(['routes-net'])
    expect((await fetch(`${base}/status`, { method: 'POST' })).status).toBe(405)
  })

  it('serve the page as HTML by default and never show the Mongo connection string', async () => {
    const mongo = mongoServer()
    const uri = mongo.url
    const base = await start({ MONGO_URI: uri, MONGO_DB: `routes_${Date.now().toString(36)}` })
    const page = await fetch(`${base}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await page.text()
    const json = await (await fetch(`${base}/status`)).text()
    const host = new URL(uri).host
    expect(html, 'the page shows the Mongo address').not.toContain(host)
    expect(json, '/status shows the Mongo address').not.toContain(host)
    expect(JSON.parse(json).store.kind).toBe('mongo')
  })
})
