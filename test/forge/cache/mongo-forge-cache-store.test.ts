import { describe, expect, it } from 'vitest'
import { MongoForgeCacheStore } from '../../../src/forge/cache/mongo-forge-cache-store.js'
import { createForge } from '../../../src/forge/client/github-app.js'
import { sandboxForgeConfig, startSandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../../src/sandbox/sandbox-stats.js'
import { useTestDatabase } from '../../support/mongo.js'
import { forgeCacheStoreConformance } from './forge-cache-store-conformance.js'
import { captureLogs } from '../../support/log-capture.js'

const mongo = await useTestDatabase('forge_cache')
let n = 0

forgeCacheStoreConformance('MongoForgeCacheStore', async (bounds) => {
  n++
  const store = new MongoForgeCacheStore(mongo.db, { ...bounds, collection: `forge_cache_${n}` })
  await store.ensureIndexes()
  return store
})

describe('MongoForgeCacheStore on the run’s real server', () => {
  it('stores bodies zlib-compressed in forge_cache by default, with no TTL index', async () => {
    const store = new MongoForgeCacheStore(mongo.db)
    await store.ensureIndexes()
    const body = Buffer.from(JSON.stringify({ text: 'y'.repeat(5000) }))
    await store.set({ key: 'GET k', etag: 'W/"1"', headers: { etag: 'W/"1"' }, body })
    const doc = await mongo.db.collection('forge_cache').findOne({ _id: 'GET k' as never })
    expect(doc!.body.buffer.byteLength).toBeLessThan(body.byteLength / 10)
    expect((await store.get('GET k'))!.body.equals(body)).toBe(true)
    const indexes = await mongo.db.collection('forge_cache').indexes()
    expect(indexes.some((i) => i.expireAfterSeconds !== undefined)).toBe(false)
  })

  it('starts a new process warm: its first GET of a known URL is a free 304', async () => {
    const sandbox = await startSandboxForge({
      generate: { repos: 1, pullsPerRepo: 2, issuesPerRepo: 0, seed: 2 },
    })
    const shared = new MongoForgeCacheStore(mongo.db, { collection: 'forge_cache_warm' })
    await shared.ensureIndexes()
    const params = { owner: 'sandbox-org', repo: 'repo-1', pull_number: 1 }
    try {
      for (const round of [1, 2]) {
        // A fresh forge each round: a new process with an empty memory tier.
        const logs = captureLogs()
        const forge = createForge({
          config: sandboxForgeConfig(sandbox),
          logger: logs.logger,
          cache: { shared },
        })
        await forge.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', params)
        await forge.close()
        expect(logs.messages('warn'), 'no cache store call may fail').toEqual([])
        const route = 'GET /repos/:owner/:repo/pulls/:number'
        expect(countRequests(sandbox.stats(), { route, status: 304 }), `after round ${round}`).toBe(round - 1)
      }
    } finally {
      await sandbox.close()
    }
  })
})
