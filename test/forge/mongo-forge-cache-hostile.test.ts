/**
 * The shared forge cache against documents it did not write: a zip bomb (261 KB of zlib holding 256 MiB
 * of zeros) and malformed `forge_cache` documents, written through the real driver into the run's test
 * Mongo. Each must be a miss — dropped, told once, never a crash and never inflated past the bound.
 */
import { createDeflate, deflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { type ForgeCacheDrop, MongoForgeCacheStore } from '../../src/forge/mongo-forge-cache-store.js'
import { useTestDatabase } from '../support/mongo.js'

const mongo = await useTestDatabase('forge_cache_hostile')
const MiB = 1024 * 1024
let n = 0

/** `size` zero bytes deflated, fed 1 MiB at a time so the test itself never holds them. */
async function deflatedZeros(size: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 })
  const parts: Buffer[] = []
  deflate.on('data', (chunk: Buffer) => parts.push(chunk))
  const zeros = Buffer.alloc(MiB)
  for (let written = 0; written < size; written += MiB) {
    if (!deflate.write(zeros)) await new Promise((r) => deflate.once('drain', r))
  }
  await new Promise<void>((resolve) => deflate.end(resolve))
  return Buffer.concat(parts)
}

function storeOn(options: { maxBytes?: number } = {}) {
  const collection = `forge_cache_hostile_${++n}`
  const drops: ForgeCacheDrop[] = []
  const store = new MongoForgeCacheStore(mongo.db, { ...options, collection, onDrop: (d) => drops.push(d) })
  return { store, drops, docs: mongo.db.collection<{ _id: string } & Record<string, unknown>>(collection) }
}

const KEY = 'GET https://api.github.com/repos/o/r/pulls/1 accept=application/vnd.github+json inst=inst:1'
const good = {
  _id: KEY,
  etag: 'W/"1"',
  headers: { 'content-type': 'application/json', etag: 'W/"1"' },
  body: deflateSync(Buffer.from('{"number":1}')),
  bytes: 500,
  usedAt: 1,
}

/** Peak resident memory so far, in MiB (the high-water mark: a transient allocation shows too). */
const peakRssMiB = () => process.resourceUsage().maxRSS / 1024

describe('MongoForgeCacheStore given a zip bomb', () => {
  for (const [label, maxBytes, claimed, allowedGrowthMiB] of [
    ['a 4 MiB cache', 4 * MiB, 1_000, 32],
    ['the default 64 MiB cache, the document claiming 256 MiB', undefined, 256 * MiB, 128],
  ] as const) {
    it(`drops it as a miss in ${label} without inflating past the bound`, async () => {
      const { store, drops, docs } = storeOn(maxBytes === undefined ? {} : { maxBytes })
      const bomb = await deflatedZeros(256 * MiB)
      expect(bomb.byteLength, 'the bomb is the size of the one found').toBeLessThan(300_000)
      await docs.insertOne({ ...good, body: bomb, bytes: claimed })
      const before = peakRssMiB()
      expect(await store.get(KEY), 'a body past the bound must be a miss').toBeUndefined()
      const grown = peakRssMiB() - before
      console.log(`zip bomb in ${label}: peak RSS grew ${grown.toFixed(1)} MiB`)
      expect(grown, 'reading one cache entry grew the worker past its bound (256 Mi pod limit)').toBeLessThan(
        allowedGrowthMiB,
      )
      expect(drops).toEqual([{ key: KEY, reason: expect.stringMatching(/inflates past/) }])
      expect(store.dropped).toBe(1)
      expect(await docs.countDocuments({ _id: KEY }), 'the bomb stays to be read again').toBe(0)
      expect(await store.get(KEY)).toBeUndefined()
      expect(drops, 'a dropped document is told once').toHaveLength(1)
    })
  }
})

describe('MongoForgeCacheStore given malformed documents', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['headers that are a string', { headers: 'content-type: text/html' }, /headers/],
    ['a header value that is a number', { headers: { 'x-ratelimit-remaining': 5 } }, /headers/],
    ['a body that is a string', { body: 'eJzLSM3JyVcozy/KSQEAGgQEXQ==' }, /body/],
    ['no body', { body: undefined }, /body/],
    ['a body that is not zlib data', { body: Buffer.from('not deflated at all') }, /not zlib/],
    ['a charge that is a string', { bytes: '500' }, /bytes/],
    ['an etag that is an object', { etag: { weak: true } }, /etag/],
    ['headers larger than the cache', { headers: { big: 'x'.repeat(5000) } }, /exceed/],
  ]
  for (const [what, change, reason] of cases) {
    it(`answers a document with ${what} as a miss and drops it`, async () => {
      const { store, drops, docs } = storeOn({ maxBytes: 4096 })
      const doc: { _id: string } & Record<string, unknown> = { ...good, ...change, _id: KEY }
      for (const [name, value] of Object.entries(doc)) if (value === undefined) delete doc[name]
      await docs.insertOne(doc)
      await expect(
        store.get(KEY),
        'a malformed document must be a miss, not a crash',
      ).resolves.toBeUndefined()
      expect(drops).toEqual([{ key: KEY, reason: expect.stringMatching(reason) }])
      expect(await docs.countDocuments({}), 'the malformed document was not dropped').toBe(0)
    })
  }

  it('still evicts within its bounds when stored charges are malformed', async () => {
    const { store, docs } = storeOn({ maxBytes: 4096 })
    await docs.insertMany([
      { ...good, _id: 'GET a', bytes: 'many', usedAt: 1 },
      { ...good, _id: 'GET b', bytes: 3000, usedAt: 2 },
    ])
    const entry = { key: 'GET c', etag: 'W/"c"', headers: {}, body: Buffer.alloc(2000) }
    await store.set(entry)
    expect((await store.get('GET c'))?.body.equals(entry.body)).toBe(true)
    expect(await docs.countDocuments({ _id: 'GET b' }), 'b was the least recently used valid entry').toBe(0)
    const size = await store.size()
    expect(Number.isFinite(size.bytes) && size.bytes <= 4096, `size ${JSON.stringify(size)}`).toBe(true)
  })
})
