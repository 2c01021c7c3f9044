/**
 * The shared forge cache against documents it did not write: a zip bomb (261 KB of zlib holding 256 MiB
 * of zeros, a complete stream) and malformed `forge_cache` documents, written through the real driver into
 * the run's test Mongo. Each must be a miss — dropped, told once, never a crash and never inflated past
 * the bound. The bomb is read in a fresh process per case, whose peak memory is measured from that read's
 * own baseline (fixtures/read-forge-cache-entry.ts).
 */
import { fileURLToPath } from 'node:url'
import { createDeflate, deflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import {
  type ForgeCacheDrop,
  MongoForgeCacheStore,
} from '../../../src/forge/cache/mongo-forge-cache-store.js'
import { mongoServer, useTestDatabase } from '../../support/mongo.js'
import { spawnNodeProcess } from '../../support/node-process.js'

const mongo = await useTestDatabase('forge_cache_hostile')
const MiB = 1024 * 1024
let n = 0

/**
 * `size` zero bytes deflated into one complete zlib stream, fed 1 MiB at a time so the test itself never
 * holds them. Every compressed byte is in: the stream's 'end' (not the writable side's finish, after which
 * the last chunks may still be on their way) is awaited.
 */
async function deflatedZeros(size: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 })
  const parts: Buffer[] = []
  deflate.on('data', (chunk: Buffer) => parts.push(chunk))
  const ended = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve)
    deflate.once('error', reject)
  })
  const zeros = Buffer.alloc(MiB)
  for (let written = 0; written < size; written += MiB) {
    if (!deflate.write(zeros)) await new Promise((r) => deflate.once('drain', r))
  }
  deflate.end()
  await ended
  return Buffer.concat(parts)
}

/**
 * The Adler-32 of `size` zero bytes, the last 4 bytes of a complete zlib stream of them: its low half is
 * 1 and its high half the sum of those 1s, modulo 65521.
 */
const adler32OfZeros = (size: number) => ((size % 65521) * 0x10000 + 1) >>> 0

function storeOn(options: { maxBytes?: number } = {}) {
  const collection = `forge_cache_hostile_${++n}`
  const drops: ForgeCacheDrop[] = []
  const store = new MongoForgeCacheStore(mongo.db, { ...options, collection, onDrop: (d) => drops.push(d) })
  const docs = mongo.db.collection<{ _id: string } & Record<string, unknown>>(collection)
  return { store, drops, docs, collection }
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

const BOMB_BYTES = 256 * MiB
/** A good entry the child reads first, so its baseline has the driver's and the store's paths loaded. */
const WARM_KEY = `${KEY} warm`

const FIXTURE = fileURLToPath(new URL('../fixtures/read-forge-cache-entry.ts', import.meta.url))

interface ChildRead {
  warm: boolean
  miss: boolean
  grownMiB: number
  measuredBy: string
  drops: ForgeCacheDrop[]
}

/**
 * Reads `key` from `collection` in a fresh process (fixtures/read-forge-cache-entry.ts): its peak memory
 * grows from that read's own baseline, not from this process's earlier peak.
 */
async function readInChild(
  collection: string,
  key: string,
  maxBytes: number | undefined,
): Promise<ChildRead> {
  const env = {
    ...{ MONGO_URL: mongoServer().url, MONGO_DB: mongo.db.databaseName, COLLECTION: collection },
    ...{ KEY: key, WARM_KEY, ...(maxBytes === undefined ? {} : { MAX_BYTES: String(maxBytes) }) },
  }
  const child = spawnNodeProcess<Partial<ChildRead>>('--import', ['tsx', FIXTURE], env, {
    label: 'cache-read',
  })
  try {
    const line = await child.waitFor((l) => typeof l.grownMiB === 'number', 60_000, 'the read’s line')
    return line as ChildRead
  } finally {
    await child.stop('SIGKILL')
  }
}

describe('MongoForgeCacheStore given a zip bomb', () => {
  for (const [label, maxBytes, claimed, allowedGrowthMiB] of [
    ['a 4 MiB cache', 4 * MiB, 1_000, 32],
    ['the default 64 MiB cache, the document claiming 256 MiB', undefined, 256 * MiB, 128],
  ] as const) {
    it(`drops it as a miss in ${label} without inflating past the bound`, { timeout: 90_000 }, async () => {
      const { store, drops, docs, collection } = storeOn(maxBytes === undefined ? {} : { maxBytes })
      const bomb = await deflatedZeros(BOMB_BYTES)
      expect(bomb.byteLength, 'the bomb is the size of the one found').toBeLessThan(300_000)
      expect(bomb.readUInt32BE(bomb.byteLength - 4), 'the bomb’s zlib stream is cut short').toBe(
        adler32OfZeros(BOMB_BYTES),
      )
      await docs.insertMany([
        { ...good, _id: WARM_KEY },
        { ...good, body: bomb, bytes: claimed },
      ])
      const read = await readInChild(collection, KEY, maxBytes)
      console.log(`zip bomb in ${label}: peak RSS grew ${read.grownMiB.toFixed(1)} MiB (${read.measuredBy})`)
      expect(read.warm, 'the good entry did not read back: the baseline is not warm').toBe(true)
      expect(read.miss, 'a body past the bound must be a miss').toBe(true)
      expect(read.drops).toEqual([
        {
          key: KEY,
          reason: expect.stringMatching(/^body inflates past the \d+ bytes left within the cache's bound$/),
        },
      ])
      expect(
        read.grownMiB,
        'reading one cache entry grew the worker past its bound (256 Mi pod limit)',
      ).toBeLessThan(allowedGrowthMiB)
      expect(await docs.countDocuments({ _id: KEY }), 'the bomb stays to be read again').toBe(0)
      expect(await store.get(KEY)).toBeUndefined()
      expect(drops, 'the dropped bomb was read and told again').toEqual([])
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
