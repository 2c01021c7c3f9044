import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { chargedLane, currentLane, LaneNameError, withLane } from '../../src/forge/lane.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.js'

describe('withLane', () => {
  it("returns fn's result, sync or async, and marks async work it starts", async () => {
    expect(withLane('a', () => 42)).toBe(42)
    const seen = await withLane('merge-gate-sweeper', async () => {
      await delay(1)
      const inner = await new Promise<string | undefined>((resolve) =>
        setImmediate(() => resolve(currentLane())),
      )
      const nested = withLane('board-issue-sync', () => currentLane())
      return [inner, nested, currentLane()]
    })
    expect(seen).toEqual(['merge-gate-sweeper', 'board-issue-sync', 'merge-gate-sweeper'])
    expect(currentLane()).toBeUndefined()
  })

  it('refuses a name that cannot be a metric label, naming what was expected', () => {
    expect(() => withLane('Merge Gate', () => 1)).toThrow(LaneNameError)
    expect(() => withLane('', () => 1)).toThrow(/expected 1-63 chars/)
  })

  it('charges token mints to auth and unmarked requests to other', () => {
    expect(chargedLane('/app/installations/7/access_tokens', 'merge-gate-sweeper')).toBe('auth')
    expect(chargedLane('/api/v3/app/installations/7/access_tokens', undefined)).toBe('auth')
    expect(chargedLane('/repos/a/b/pulls/1', undefined)).toBe('other')
    expect(chargedLane('/repos/a/b/pulls/1', 'board-issue-sync')).toBe('board-issue-sync')
  })
})

describe('lanes through the throttling queue', () => {
  let h: SandboxHarness | undefined
  afterEach(async () => {
    await h?.close()
  })

  it('keeps each of 50 concurrent requests from 3 lanes in its own lane', async () => {
    h = await startSandboxHarness({
      generate: { repos: 1, pullsPerRepo: 20, issuesPerRepo: 20, seed: 9 },
      // Latency keeps requests in flight so the plugin's queue (10 at a time) really holds them.
      faults: [{ kind: 'latency', ms: 15, path: '/repos/**' }],
      warm: false,
    })
    const { sandbox, forge } = h
    const { octokit } = forge
    const repo = { owner: 'sandbox-org', repo: 'repo-1' }
    const pull = await octokit.request<{ head: { sha: string } }>(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}',
      {
        ...repo,
        pull_number: 1,
      },
    )
    const sha = pull.data.head.sha
    sandbox.resetStats()
    const before = forge.meter.totals()

    const jobs: Promise<unknown>[] = []
    for (let i = 0; i < 50; i++) {
      const kind = i % 3
      if (kind === 0) {
        jobs.push(
          withLane('merge-gate-sweeper', () =>
            octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
              ...repo,
              pull_number: 1 + (i % 20),
            }),
          ),
        )
      } else if (kind === 1) {
        jobs.push(
          withLane('board-issue-sync', async () => {
            await delay(i % 4)
            return octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
              ...repo,
              issue_number: 21 + (i % 20),
            })
          }),
        )
      } else {
        jobs.push(
          withLane('status-probe', () =>
            octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...repo, ref: sha }),
          ),
        )
      }
    }
    await Promise.all(jobs)

    const lane = (name: string) =>
      forge.meter
        .totals()
        .filter((t) => t.lane === name)
        .reduce((n, t) => n + t.count, 0) -
      before.filter((t) => t.lane === name).reduce((n, t) => n + t.count, 0)
    const stats = sandbox.stats()
    expect(stats.total).toBe(50)
    expect(lane('merge-gate-sweeper')).toBe(17)
    expect(countRequests(stats, { route: 'GET /repos/:owner/:repo/pulls/:number' })).toBe(17)
    expect(lane('board-issue-sync')).toBe(17)
    expect(countRequests(stats, { route: 'GET /repos/:owner/:repo/issues/:number' })).toBe(17)
    expect(lane('status-probe')).toBe(16)
    expect(countRequests(stats, { route: 'GET /repos/:owner/:repo/commits/:ref/status' })).toBe(16)
    expect(lane('other')).toBe(0)
    expect(stats.privateHeaders).toBe(0)
  })
})
