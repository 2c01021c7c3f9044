/**
 * The revalidating forge cache against the sandbox forge (a real HTTP server with GitHub's conditional
 * requests): every GET goes out with validators, a 304 hands back the kept body, a change brings the new
 * one, the store stays inside its bounds, errors are never kept, installations never share entries, and
 * the meter tells 304s and points apart exactly as the sandbox counted them.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryForgeCacheStore } from '../../../src/forge/cache/memory-forge-cache-store.js'
import type { Forge, ForgeCacheSettings } from '../../../src/forge/client/github-app.js'
import { withLane } from '../../../src/forge/lane.js'
import type { SandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../../src/sandbox/sandbox-stats.js'
import { startSandboxHarness } from '../../support/sandbox-harness.js'

const closers: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c.close()
})

const OWNER = 'sandbox-org'
const PULL_ROUTE = 'GET /repos/:owner/:repo/pulls/:number'

async function sandboxAndForge(cache: ForgeCacheSettings = {}, port?: number, installationId?: number) {
  const h = await startSandboxHarness({
    generate: { repos: 1, pullsPerRepo: 6, issuesPerRepo: 0, seed: 5 },
    ...(port === undefined ? {} : { port }),
    ...(installationId === undefined ? {} : { installationId }),
    forge: { retry: { retries: 0 }, cache },
    warm: false,
  })
  closers.push(h)
  return { sandbox: h.sandbox, forge: h.forge }
}

const getPull = (forge: Forge, pull_number: number) =>
  forge.octokit.request<{ head: { sha: string } }>('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
    owner: OWNER,
    repo: 'repo-1',
    pull_number,
  })

const pullStatuses = (sandbox: SandboxForge, status: number) =>
  countRequests(sandbox.stats(), { route: PULL_ROUTE, status })

describe('forge cache: conditional GETs against the sandbox', () => {
  it('revalidates every GET on the wire and answers a 304 with the kept body as a 200', async () => {
    const { sandbox, forge } = await sandboxAndForge()
    const first = await getPull(forge, 1)
    const again = [await getPull(forge, 1), await getPull(forge, 1)]
    // Three calls, three requests on the wire: nothing is ever served without asking the server.
    expect(pullStatuses(sandbox, 200)).toBe(1)
    expect(pullStatuses(sandbox, 304)).toBe(2)
    for (const answer of again) {
      expect(answer.status, 'a revalidated answer must look like a 200 to Octokit').toBe(200)
      expect(answer.data).toEqual(first.data)
      expect(answer.headers['x-ratelimit-remaining'], 'headers come from the 304').toBeDefined()
    }
  })

  it('hands over the new body once the resource changed', async () => {
    const { sandbox, forge } = await sandboxAndForge()
    const before = await getPull(forge, 2)
    const moved = await sandbox.admin.moveHead(OWNER, 'repo-1', 2)
    const after = await getPull(forge, 2)
    expect(after.data.head.sha, 'a pass must see the push, not the kept body').toBe(moved.head.sha)
    expect(after.data.head.sha).not.toBe(before.data.head.sha)
    expect(pullStatuses(sandbox, 200)).toBe(2)
    expect((await getPull(forge, 2)).data.head.sha).toBe(moved.head.sha)
    expect(pullStatuses(sandbox, 304)).toBe(1)
  })

  it('stays within its byte bound, evicting the least recently used entry', async () => {
    const { sandbox: probe, forge: sizing } = await sandboxAndForge()
    await getPull(sizing, 1)
    const one = (await sizing.cache!.size()).bytes
    await probe.close()
    // Room for two pulls' entries, not three.
    const { sandbox, forge } = await sandboxAndForge({ maxBytes: Math.floor(one * 2.5) })
    await getPull(forge, 1)
    await getPull(forge, 2)
    await getPull(forge, 1) // 1 is now the most recently used
    await getPull(forge, 3) // evicts 2
    const size = await forge.cache!.size()
    expect(size.bytes).toBeLessThanOrEqual(Math.floor(one * 2.5))
    expect(size.entries).toBe(2)
    sandbox.resetStats()
    await getPull(forge, 1)
    await getPull(forge, 2)
    expect(pullStatuses(sandbox, 304), 'pull 1 was kept').toBe(1)
    expect(pullStatuses(sandbox, 200), 'pull 2 was evicted, so it went out unconditional').toBe(1)
  })

  it('never keeps an error answer', async () => {
    const { sandbox, forge } = await sandboxAndForge()
    await expect(getPull(forge, 999)).rejects.toMatchObject({ status: 404 })
    await expect(getPull(forge, 999)).rejects.toMatchObject({ status: 404 })
    await sandbox.admin.addFault({
      kind: 'status',
      status: 502,
      path: '/repos/sandbox-org/repo-1/pulls/4',
      times: 1,
    })
    await expect(getPull(forge, 4)).rejects.toMatchObject({ status: 502 })
    expect((await forge.cache!.size()).entries).toBe(0)
    await getPull(forge, 4)
    expect(pullStatuses(sandbox, 304), 'nothing was kept to revalidate').toBe(0)
    expect(pullStatuses(sandbox, 404)).toBe(2)
  })

  it('keeps installations apart even when they share a store and a URL', async () => {
    const shared = new MemoryForgeCacheStore()
    const a = await sandboxAndForge({ shared })
    await getPull(a.forge, 1)
    await getPull(a.forge, 1)
    expect(pullStatuses(a.sandbox, 304)).toBe(1)
    const port = Number(new URL(a.sandbox.url).port)
    await a.forge.close()
    await a.sandbox.close()
    // The same URL and data, another installation: its first GET must not carry A's validators.
    const b = await sandboxAndForge({ shared }, port, a.sandbox.installationId + 1)
    expect(b.sandbox.url).toBe(a.sandbox.url)
    await getPull(b.forge, 1)
    expect(pullStatuses(b.sandbox, 304)).toBe(0)
    expect(pullStatuses(b.sandbox, 200)).toBe(1)
    expect((await shared.size()).entries).toBe(2)
  })

  it('has the meter count 304s and points exactly as the sandbox charged them', async () => {
    const { sandbox, forge } = await sandboxAndForge()
    await withLane('merge-gate-sweeper', async () => {
      for (let i = 0; i < 3; i++) for (const n of [1, 2, 3]) await getPull(forge, n)
    })
    await sandbox.admin.moveHead(OWNER, 'repo-1', 3)
    await withLane('merge-gate-sweeper', () => getPull(forge, 3))
    await forge.octokit.request('GET /rate_limit')
    const stats = sandbox.stats()
    const sweeper = forge.meter.current().lanes.find((l) => l.lane === 'merge-gate-sweeper')!
    expect(sweeper).toEqual({ lane: 'merge-gate-sweeper', requests: 10, notModified: 6, points: 4 })
    expect(forge.meter.current().notModified).toBe(countRequests(stats, { status: 304 }))
    // Ground truth: what the sandbox's budget spent (x-ratelimit-used) is what the meter calls points.
    expect(forge.meter.current().points).toBe((await sandbox.admin.rateLimit()).used)
  })
})
