/**
 * The meter's counts against the sandbox's own: every attempt the transport sent — retries, redirect
 * hops, 403s, 5xx, a dropped connection — must be counted once on each side.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createForge, type Forge } from '../../../src/forge/client/github-app.js'
import { withLane } from '../../../src/forge/lane.js'
import type { ForgeMeterTotal } from '../../../src/forge/meter/meter.js'
import { startSandboxForge, type SandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../../src/sandbox/sandbox-stats.js'
import { captureLogs } from '../../support/log-capture.js'
import { asPromRegistry } from '../../../src/forge/meter/prom-registry.js'

let sandbox: SandboxForge | undefined
let forge: Forge | undefined
afterEach(async () => {
  await forge?.close()
  await sandbox?.close()
  forge = undefined
  sandbox = undefined
})

const sum = (totals: ForgeMeterTotal[], match: Partial<ForgeMeterTotal>) =>
  totals
    .filter((t) => (Object.keys(match) as (keyof ForgeMeterTotal)[]).every((k) => t[k] === match[k]))
    .reduce((n, t) => n + t.count, 0)

describe('meter versus sandbox ground truth', () => {
  it('counts every attempt exactly as the sandbox saw it, by lane and status class', async () => {
    // A 1.5 s budget window keeps the primary-limit wait (reset + 1 s, as plugin-throttling waits) short.
    sandbox = await startSandboxForge({
      generate: { repos: 2, pullsPerRepo: 4, issuesPerRepo: 6, seed: 3 },
      rateLimit: { limit: 1000, windowMs: 1500 },
    })
    const logs = captureLogs()
    forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        privateKey: sandbox.privateKey,
        apiUrl: sandbox.url,
      },
      logger: logs.logger,
      retry: { retryBaseDelayMs: 10 },
    })
    const { octokit } = forge
    const owner = 'sandbox-org'

    await sandbox.admin.addFault({
      kind: 'status',
      status: 502,
      path: '/repos/sandbox-org/repo-1/pulls/2',
      times: 2,
    })
    await sandbox.admin.addFault({ kind: 'drop', path: '/repos/sandbox-org/repo-1/pulls/3', times: 1 })
    await sandbox.admin.renameRepo(owner, 'repo-2', { name: 'repo-two' })

    await withLane('merge-gate-sweeper', async () => {
      for (const n of [1, 2, 3]) {
        const { data } = await octokit.request<{ number: number }>(
          'GET /repos/{owner}/{repo}/pulls/{pull_number}',
          {
            owner,
            repo: 'repo-1',
            pull_number: n,
          },
        )
        expect(data.number).toBe(n)
      }
      // The old name answers 301; fetch follows it to /repositories/{id}/pulls/1, a second attempt.
      const moved = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner,
        repo: 'repo-2',
        pull_number: 1,
      })
      expect(moved.url).toMatch(/\/repositories\/\d+\/pulls\/1$/)
    })
    await withLane('board-issue-sync', async () => {
      const page = await octokit.request('GET /repos/{owner}/{repo}/issues', {
        owner,
        repo: 'repo-1',
        state: 'all',
        per_page: 5,
      })
      expect(page.data).toHaveLength(5)
      await sandbox!.admin.setRateLimit({ remaining: 0 })
      const afterLimit = await octokit.request('GET /repos/{owner}/{repo}/issues', {
        owner,
        repo: 'repo-1',
        state: 'all',
        per_page: 5,
        page: 2,
      })
      expect(afterLimit.status).toBe(200)
    })
    const rate = await octokit.request<{ resources: { core: { limit: number } } }>('GET /rate_limit')
    expect(rate.data.resources.core.limit).toBe(1000)

    const stats = sandbox.stats()
    const totals = forge.meter.totals()
    const host = new URL(sandbox.url).host
    expect(totals.every((t) => t.host === host && t.api === 'rest')).toBe(true)

    // The scenario happened as intended on the server side.
    expect(countRequests(stats, { status: 502 })).toBe(2)
    expect(countRequests(stats, { status: 'dropped' })).toBe(1)
    expect(countRequests(stats, { status: 301 })).toBe(1)
    expect(countRequests(stats, { status: 403 })).toBeGreaterThanOrEqual(1)
    expect(stats.privateHeaders).toBe(0)

    // Totals, lanes and status classes agree exactly.
    expect(sum(totals, {})).toBe(stats.total)
    expect(sum(totals, { lane: 'auth' })).toBe(
      countRequests(stats, { route: 'POST /app/installations/:installation_id/access_tokens' }),
    )
    expect(sum(totals, { lane: 'merge-gate-sweeper' })).toBe(
      countRequests(stats, { route: 'GET /repos/:owner/:repo/pulls/:number' }) +
        countRequests(stats, { route: 'GET /repositories/:id/pulls/:number' }),
    )
    expect(sum(totals, { lane: 'board-issue-sync' })).toBe(
      countRequests(stats, { route: 'GET /repos/:owner/:repo/issues' }),
    )
    expect(sum(totals, { lane: 'other' })).toBe(countRequests(stats, { route: 'GET /rate_limit' }))
    expect(sum(totals, { status: 'error' })).toBe(countRequests(stats, { status: 'dropped' }))
    expect(sum(totals, { status: '5xx' })).toBe(2)
    expect(sum(totals, { status: '3xx' })).toBe(1)
    expect(sum(totals, { status: '4xx' })).toBe(countRequests(stats, { status: 403 }))
    expect(sum(totals, { status: '2xx' })).toBe(
      countRequests(stats, { status: 200 }) + countRequests(stats, { status: 201 }),
    )
    expect(sum(totals, { lane: 'merge-gate-sweeper' })).toBe(3 + 2 + 1 + 2)

    // The primary limit was waited out by the throttling plugin, and said so.
    expect(logs.messages('warn').some((m) => m.includes('primary rate limit'))).toBe(true)

    // The same counts reach Prometheus.
    const metric = await asPromRegistry(forge.meter.registry).getSingleMetric('forge_requests_total')!.get()
    const promTotal = metric.values.reduce((n, v) => n + v.value, 0)
    expect(promTotal).toBe(stats.total)
  })

  it('counts a secondary-limit answer and its retry after retry-after', async () => {
    sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 0, seed: 1 } })
    const logs = captureLogs()
    forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        privateKey: sandbox.privateKey,
        apiUrl: sandbox.url,
      },
      logger: logs.logger,
    })
    await sandbox.admin.addFault({
      kind: 'secondary-limit',
      status: 429,
      retryAfter: 1,
      path: '/repos/**',
      times: 1,
    })
    const started = Date.now()
    const { data } = await withLane('merge-gate-sweeper', () =>
      forge!.octokit.request<{ number: number }>('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner: 'sandbox-org',
        repo: 'repo-1',
        pull_number: 1,
      }),
    )
    expect(data.number).toBe(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    const stats = sandbox.stats()
    expect(countRequests(stats, { status: 429 })).toBe(1)
    expect(sum(forge.meter.totals(), { lane: 'merge-gate-sweeper' })).toBe(2)
    expect(sum(forge.meter.totals(), {})).toBe(stats.total)
    expect(logs.messages('warn').filter((m) => m.includes('secondary rate limit'))).toHaveLength(1)
  })
})
