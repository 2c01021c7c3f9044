/**
 * Watermarked lists in the shared forge cache (watermark-parameter.ts), against the sandbox forge and the
 * Mongo cache store on the test server: a list read at a moving `since` keeps one document, its latest
 * position's, instead of one per URL ever asked; the current position still revalidates as a free 304,
 * in this process and in a successor's that has only the shared store; requests without the mark are
 * cached by their whole URL as before.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Forge } from '../../../src/forge/client/github-app.js'
import { MongoForgeCacheStore } from '../../../src/forge/cache/mongo-forge-cache-store.js'
import { watermarkHeader } from '../../../src/forge/cache/watermark-parameter.js'
import { countRequests } from '../../../src/sandbox/sandbox-stats.js'
import { useTestDatabase } from '../../support/mongo.js'
import { startSandboxHarness } from '../../support/sandbox-harness.js'

const mongo = await useTestDatabase('forge_cache_watermark')
const closers: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c.close()
})

const ISSUES = 'GET /repos/:owner/:repo/issues'

async function harness(collection: string) {
  const shared = new MongoForgeCacheStore(mongo.db, { collection })
  const h = await startSandboxHarness({
    generate: { repos: 1, pullsPerRepo: 0, issuesPerRepo: 3, seed: 7 },
    forge: { retry: { retries: 0 }, cache: { shared } },
  })
  closers.push(h)
  // Only the issue lists count: the harness's warm-up read (GET /rate_limit) is kept too.
  const issueLists = { _id: { $regex: '/issues' } }
  return {
    ...h,
    documents: () => mongo.db.collection<{ _id: string }>(collection).countDocuments(issueLists),
  }
}

/** The board sync's read: the issue list at `since`, marked as a watermark unless `marked` is false. */
const listAt = (forge: Forge, since: string, marked = true) =>
  forge.octokit.request('GET /repos/{owner}/{repo}/issues', {
    owner: 'sandbox-org',
    repo: 'repo-1',
    state: 'all',
    per_page: 100,
    since,
    ...(marked ? { headers: watermarkHeader('since') } : {}),
  })

/** Writes started by the forge's cache reach the store before the count (the cache writes behind). */
const settled = () => new Promise((resolve) => setTimeout(resolve, 200))

describe('forge cache: a list read at a moving watermark', () => {
  it('keeps one shared document per list, the latest position, however often the watermark moved', async () => {
    const { forge, documents } = await harness('forge_cache_marked')
    for (const day of ['01', '02', '03', '04']) await listAt(forge, `2026-01-${day}T00:00:00Z`)
    await settled()
    expect(
      await documents(),
      'each moved watermark would leave a URL never asked again in the shared cache',
    ).toBe(1)
  })

  it('still answers the current position with a free 304, and the shared document names that position', async () => {
    const { forge, sandbox } = await harness('forge_cache_revalidate')
    const first = await listAt(forge, '2026-01-01T00:00:00Z')
    const again = await listAt(forge, '2026-01-01T00:00:00Z')
    expect(again.data, 'the replayed list must be the one the server sent').toEqual(first.data)
    expect(countRequests(sandbox.stats(), { route: ISSUES, status: 200 })).toBe(1)
    expect(
      countRequests(sandbox.stats(), { route: ISSUES, status: 304 }),
      'a quiet list at an unchanged watermark must cost no point',
    ).toBe(1)
    await settled()
    const stored = await mongo.db
      .collection<{ _id: string; position?: string }>('forge_cache_revalidate')
      .findOne({ _id: { $regex: '/issues' } })
    // A successor reading the shared store revalidates this position and no other.
    expect(stored?.position).toBe('2026-01-01T00:00:00Z')
    expect(stored?._id, 'the key leaves the moving position out').not.toContain('since=')
  })

  it('asks a moved position unconditionally and never replays another position’s answer', async () => {
    const { forge, sandbox } = await harness('forge_cache_moved')
    await listAt(forge, '2026-01-01T00:00:00Z')
    await listAt(forge, '2099-01-01T00:00:00Z')
    // The second position's answer is the server's own (no validators sent, so no 304 to replay).
    expect(countRequests(sandbox.stats(), { route: ISSUES, status: 200 })).toBe(2)
    expect(countRequests(sandbox.stats(), { route: ISSUES, status: 304 })).toBe(0)
  })

  it('keeps requests without the mark by their whole URL, as before', async () => {
    const { forge, documents } = await harness('forge_cache_unmarked')
    for (const day of ['01', '02', '03']) await listAt(forge, `2026-01-${day}T00:00:00Z`, false)
    await settled()
    expect(await documents()).toBe(3)
  })
})
