/**
 * The shared forge cache's upkeep on real servers: a write at 10,000 entries reads no more than a few
 * documents (the bound is kept by running totals, not by summing the collection), the totals are
 * corrected from the collection after their re-read interval, and the recency index is made once the
 * server is back when it was down at start.
 */
import type { CommandStartedEvent } from 'mongodb'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import type { ForgeCacheEntry } from '../../../src/forge/cache/forge-cache-store.js'
import { MongoForgeCacheStore } from '../../../src/forge/cache/mongo-forge-cache-store.js'
import { startChaosMongo } from '../../chaos/ferret-server.js'
import { mongoServer, useTestDatabase } from '../../support/mongo.js'

const mongo = await useTestDatabase('forge_cache_upkeep')
// A second client on the same database, with the driver's command monitoring on.
const monitored = new MongoClient(mongoServer().url, { monitorCommands: true })
afterAll(() => monitored.close())

const entry = (name: string): ForgeCacheEntry => ({
  key: `GET https://api.github.com/${name} accept=application/vnd.github+json inst=inst:1`,
  etag: `W/"${name}"`,
  headers: { 'content-type': 'application/json', etag: `W/"${name}"` },
  body: Buffer.from(`{"name":"${name}"}`),
})

/** The commands the store sends to `collection` while `work` runs. */
async function commandsDuring(collection: string, work: () => Promise<void>): Promise<CommandStartedEvent[]> {
  const seen: CommandStartedEvent[] = []
  const listen = (event: CommandStartedEvent) => {
    if (event.command[event.commandName] === collection) seen.push(event)
  }
  monitored.on('commandStarted', listen)
  try {
    await work()
  } finally {
    monitored.off('commandStarted', listen)
  }
  return seen
}

/** A read that may return the whole collection: an aggregate, a count, or a find without a limit or key. */
function scans(event: CommandStartedEvent): boolean {
  const { commandName: name, command } = event
  if (name === 'aggregate' || name === 'count' || name === 'distinct') return true
  if (name !== 'find') return false
  const byKey = typeof command.filter?._id === 'string'
  return !byKey && !(typeof command.limit === 'number' && command.limit <= 1000)
}

/** A read of the oldest documents (an eviction step). */
const sortedRead = (event: CommandStartedEvent) =>
  event.commandName === 'find' && event.command.sort !== undefined

describe('MongoForgeCacheStore upkeep', () => {
  it('writes at 10,000 entries without reading the whole collection, evicting once per hundred writes', async () => {
    const collection = 'forge_cache_10k'
    const docs = mongo.db.collection(collection)
    const filler = Array.from({ length: 9_990 }, (_, i) => ({
      _id: `GET filler-${i}`,
      headers: {},
      body: Buffer.alloc(0),
      bytes: 100,
      usedAt: i + 1,
    }))
    for (let i = 0; i < filler.length; i += 1000) await docs.insertMany(filler.slice(i, i + 1000) as never[])
    const store = new MongoForgeCacheStore(monitored.db(mongo.db.databaseName), {
      collection,
      maxEntries: 10_000,
    })
    await store.ensureIndexes()
    await store.set(entry('first')) // the totals' first read: one scan per process start and re-read interval
    const started = performance.now()
    // The 10th write passes the bound (10,001 entries) and evicts down to 9,900.
    const commands = await commandsDuring(collection, async () => {
      for (let i = 0; i < 20; i++) await store.set(entry(`next-${i}`))
    })
    const perWriteMs = (performance.now() - started) / 20
    console.log(
      `forge cache write at 10,000 entries: ${perWriteMs.toFixed(1)} ms on average; ${commands.length} commands`,
    )
    expect(commands.filter(scans), 'a write read the whole collection').toEqual([])
    expect(commands.filter(sortedRead), 'evictions per 20 writes at the bound').toHaveLength(1)
    expect(await docs.countDocuments({}), 'the entry bound no longer holds').toBe(9_910)
    expect(await docs.countDocuments({ _id: { $in: ['GET filler-0', 'GET filler-5'] as never[] } })).toBe(0)
  }, 120_000)

  it('corrects its totals from the collection once their re-read interval passed', async () => {
    let now = 1_000_000
    const clock = () => now
    const options = { collection: 'forge_cache_two', maxEntries: 3, resyncMs: 60_000, clock }
    const one = new MongoForgeCacheStore(mongo.db, options)
    const other = new MongoForgeCacheStore(mongo.db, options)
    await one.set(entry('a'))
    for (const name of ['b', 'c', 'd']) await other.set(entry(name)) // unseen by `one`'s totals
    await one.set(entry('e'))
    // `one` believes it holds 2 entries: another process's writes overshoot until its next re-read.
    expect((await one.size()).entries).toBe(4)
    now += 60_000
    await one.set(entry('f'))
    expect((await one.size()).entries, 'the re-read totals did not bring the bound back').toBe(3)
  })

  it('makes the recency index at the first write after a store that was down at start', async () => {
    const server = await startChaosMongo()
    const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 1_000 })
    try {
      await server.kill()
      const indexErrors: unknown[] = []
      const store = new MongoForgeCacheStore(client.db('upkeep'), {
        onIndexError: (e) => indexErrors.push(e),
      })
      await expect(store.ensureIndexes(), 'the store is down').rejects.toThrow()
      await expect(store.set(entry('while-down'))).rejects.toThrow()
      await server.restart()
      await client.connect() // as the worker's connection loop does until the server answers
      await store.set(entry('back'))
      const names = (await client.db('upkeep').collection('forge_cache').indexes()).map((i) => i.name)
      expect(names, 'eviction would sort the whole collection on every write without it').toContain(
        'usedAt_1',
      )
      expect(indexErrors).toEqual([])
    } finally {
      await client.close()
      await server.stop()
    }
  }, 120_000)
})
