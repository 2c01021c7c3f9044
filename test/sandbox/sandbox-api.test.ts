import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox/sandbox-forge.js'
import type { SandboxFixtureInput } from '../../src/sandbox/sandbox-fixture.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { call, mintToken } from './sandbox-http.js'

const HEAD = 'a'.repeat(40)
const OTHER = 'b'.repeat(40)
const fixture: SandboxFixtureInput = {
  repos: [
    {
      owner: 'acme',
      name: 'widgets',
      id: 501,
      formerNames: ['acme/gadgets'],
      pulls: [
        {
          number: 1,
          title: 'Open one',
          headSha: HEAD,
          headRef: 'feat-1',
          updatedAt: '2026-09-30T10:00:00Z',
          createdAt: '2026-09-29T10:00:00Z',
        },
        {
          number: 2,
          title: 'Merged',
          state: 'closed',
          merged: true,
          headSha: OTHER,
          updatedAt: '2026-09-30T09:00:00Z',
          createdAt: '2026-09-28T10:00:00Z',
        },
        {
          number: 3,
          title: 'Draft',
          draft: true,
          updatedAt: '2026-09-30T08:00:00Z',
          createdAt: '2026-09-27T10:00:00Z',
        },
      ],
      issues: [
        {
          number: 4,
          title: 'Bug',
          labels: ['bug'],
          user: 'stranger',
          authorAssociation: 'NONE',
          updatedAt: '2026-09-30T11:00:00Z',
          createdAt: '2026-09-20T00:00:00Z',
        },
        {
          number: 5,
          title: 'Done',
          state: 'closed',
          user: 'mona',
          authorAssociation: 'MEMBER',
          updatedAt: '2026-09-25T11:00:00Z',
          createdAt: '2026-09-19T00:00:00Z',
        },
        {
          number: 6,
          title: 'Idea',
          labels: ['enhancement', 'bug'],
          updatedAt: '2026-09-30T12:00:00Z',
          createdAt: '2026-09-21T00:00:00Z',
        },
      ],
      statuses: [
        { sha: HEAD, state: 'pending', context: 'ci/build', createdAt: '2026-09-30T10:00:00Z' },
        { sha: HEAD, state: 'success', context: 'ci/build', createdAt: '2026-09-30T10:05:00Z' },
        { sha: HEAD, state: 'success', context: 'ci/test', createdAt: '2026-09-30T10:06:00Z' },
      ],
    },
    { owner: 'acme', name: 'empty' },
  ],
}

let sandbox: SandboxForge
let token: string
beforeAll(async () => {
  sandbox = await startSandboxForge({ fixture, rateLimit: { limit: 5000 } })
  token = await mintToken(sandbox)
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.admin.clearFaults()
  await sandbox.admin.setRateLimit({ remaining: 5000, limit: 5000 })
})

describe('sandbox REST: pulls and issues', () => {
  it("serves one pull with GitHub's detail fields", async () => {
    const answer = await call(sandbox, token, '/repos/acme/widgets/pulls/2')
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({
      number: 2,
      state: 'closed',
      merged: true,
      draft: false,
      head: { sha: OTHER, repo: { full_name: 'acme/widgets' } },
      updated_at: '2026-09-30T09:00:00Z',
      user: { login: 'octocat' },
    })
    expect(answer.json.merged_at).not.toBeNull()
    expect((await call(sandbox, token, '/repos/acme/widgets/pulls/99')).status).toBe(404)
    expect((await call(sandbox, token, '/repos/acme/nope/pulls/1')).status).toBe(404)
  })

  it('lists pulls by state, newest first, paged with Link headers', async () => {
    const open = await call(sandbox, token, '/repos/acme/widgets/pulls')
    expect(open.json.map((p: { number: number }) => p.number)).toEqual([1, 3])
    expect(open.json[0].merged).toBeUndefined()
    const first = await call(sandbox, token, '/repos/acme/widgets/pulls?state=all&per_page=2')
    expect(first.json.map((p: { number: number }) => p.number)).toEqual([1, 2])
    const link = first.headers.get('link')!
    expect(link).toContain('rel="next"')
    expect(link).toContain('rel="last"')
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!
    const second = await call(sandbox, token, new URL(next).pathname + new URL(next).search)
    expect(second.json.map((p: { number: number }) => p.number)).toEqual([3])
    expect(second.headers.get('link')).toContain('rel="prev"')
    expect(second.headers.get('link')).not.toContain('rel="next"')
    expect((await call(sandbox, token, '/repos/acme/widgets/pulls?state=weird')).status).toBe(422)
  })

  it('lists issues with pull requests marked, filtered by since and labels', async () => {
    const all = await call(sandbox, token, '/repos/acme/widgets/issues?state=all&sort=updated&per_page=100')
    expect(all.json.map((i: { number: number }) => i.number)).toEqual([6, 4, 1, 2, 3, 5])
    const bug = all.json.find((i: { number: number }) => i.number === 4)
    expect(bug).toMatchObject({
      state: 'open',
      title: 'Bug',
      user: { login: 'stranger' },
      author_association: 'NONE',
      labels: [{ name: 'bug' }],
      updated_at: '2026-09-30T11:00:00Z',
    })
    expect(bug.html_url).toMatch(/\/acme\/widgets\/issues\/4$/)
    expect(bug.pull_request).toBeUndefined()
    expect(all.json.find((i: { number: number }) => i.number === 1).pull_request).toBeDefined()

    const since = await call(
      sandbox,
      token,
      '/repos/acme/widgets/issues?state=all&since=2026-09-30T10:30:00Z',
    )
    expect(since.json.map((i: { number: number }) => i.number).sort()).toEqual([4, 6])
    const open = await call(sandbox, token, '/repos/acme/widgets/issues')
    // Sorted by creation, newest first: the pulls were opened after the issues.
    expect(open.json.map((i: { number: number }) => i.number)).toEqual([1, 3, 6, 4])
    const labelled = await call(sandbox, token, '/repos/acme/widgets/issues?labels=bug,enhancement')
    expect(labelled.json.map((i: { number: number }) => i.number)).toEqual([6])
    expect((await call(sandbox, token, '/repos/acme/widgets/issues?since=yesterday')).status).toBe(422)
    const paged = await call(sandbox, token, '/repos/acme/widgets/issues?state=all&per_page=4&page=2')
    expect(paged.json).toHaveLength(2)
  })

  it('lists the repositories the installation can access', async () => {
    const answer = await call(sandbox, token, '/installation/repositories')
    expect(answer.json.total_count).toBe(2)
    expect(answer.json.repositories.map((r: { full_name: string }) => r.full_name)).toContain('acme/widgets')
  })
})

describe('sandbox REST: commit statuses', () => {
  it('computes the combined status from the latest status per context', async () => {
    const answer = await call(sandbox, token, `/repos/acme/widgets/commits/${HEAD}/status`)
    expect(answer.json.state).toBe('success')
    expect(answer.json.total_count).toBe(2)
    expect(answer.json.statuses.map((s: { context: string }) => s.context).sort()).toEqual([
      'ci/build',
      'ci/test',
    ])
    const byBranch = await call(sandbox, token, '/repos/acme/widgets/commits/feat-1/status')
    expect(byBranch.json.sha).toBe(HEAD)
    const none = await call(sandbox, token, `/repos/acme/widgets/commits/${OTHER}/status`)
    expect(none.json).toMatchObject({ state: 'pending', total_count: 0, statuses: [] })
    expect((await call(sandbox, token, `/repos/acme/widgets/commits/${'c'.repeat(40)}/status`)).status).toBe(
      422,
    )
  })

  it('creates statuses, and a failure anywhere fails the combined status', async () => {
    const created = await call(sandbox, token, `/repos/acme/widgets/statuses/${OTHER}`, {
      method: 'POST',
      body: {
        state: 'failure',
        context: 'review/gate',
        description: 'review died',
        target_url: 'https://x.example/runs/1',
      },
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      state: 'failure',
      context: 'review/gate',
      description: 'review died',
      target_url: 'https://x.example/runs/1',
    })
    await call(sandbox, token, `/repos/acme/widgets/statuses/${OTHER}`, {
      method: 'POST',
      body: { state: 'success', context: 'ci/build' },
    })
    const combined = await call(sandbox, token, `/repos/acme/widgets/commits/${OTHER}/status`)
    expect(combined.json.state).toBe('failure')
    const bad = await call(sandbox, token, `/repos/acme/widgets/statuses/${OTHER}`, {
      method: 'POST',
      body: { state: 'green' },
    })
    expect(bad.status).toBe(422)
    expect(bad.json.message).toBe('Validation Failed')
    expect(
      (
        await call(sandbox, token, `/repos/acme/widgets/statuses/${'d'.repeat(40)}`, {
          method: 'POST',
          body: { state: 'success' },
        })
      ).status,
    ).toBe(422)
    const listed = await call(sandbox, token, `/repos/acme/widgets/commits/${OTHER}/statuses`)
    expect(listed.json[0].context).toBe('ci/build')
  })
})

describe('sandbox REST: budget, ETags, redirects', () => {
  it('sends x-ratelimit headers, spends the budget and answers 403 once it is spent', async () => {
    await sandbox.admin.setRateLimit({ remaining: 2 })
    const first = await call(sandbox, token, '/repos/acme/widgets')
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1')
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000')
    expect(first.headers.get('x-ratelimit-resource')).toBe('core')
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000)
    await call(sandbox, token, '/repos/acme/widgets')
    const spent = await call(sandbox, token, '/repos/acme/widgets')
    expect(spent.status).toBe(403)
    expect(spent.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(spent.json.message).toMatch(/^API rate limit exceeded for installation ID/)
    const rate = await call(sandbox, token, '/rate_limit')
    expect(rate.status).toBe(200)
    expect(rate.json.resources.core).toMatchObject({ remaining: 0, limit: 5000 })
  })

  it('answers a matching If-None-Match with 304 without spending the budget', async () => {
    const first = await call(sandbox, token, '/repos/acme/widgets/pulls/1')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^W\/"[0-9a-f]+"$/)
    const remaining = Number(first.headers.get('x-ratelimit-remaining'))
    const again = await call(sandbox, token, '/repos/acme/widgets/pulls/1', {
      headers: { 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(remaining)
    await sandbox.admin.moveHead('acme', 'widgets', 3)
    const other = await call(sandbox, token, '/repos/acme/widgets/pulls/3', {
      headers: { 'if-none-match': etag },
    })
    expect(other.status).toBe(200)
  })

  it('redirects a renamed repository: 301 for reads, 307 for writes, to /repositories/{id}', async () => {
    const read = await call(sandbox, token, '/repos/acme/gadgets/pulls/1?x=1')
    expect(read.status).toBe(301)
    expect(read.headers.get('location')).toBe(`${sandbox.url}/repositories/501/pulls/1?x=1`)
    const write = await call(sandbox, token, `/repos/acme/gadgets/statuses/${HEAD}`, {
      method: 'POST',
      body: { state: 'success' },
    })
    expect(write.status).toBe(307)
    const followed = await call(sandbox, token, '/repositories/501/pulls/1')
    expect(followed.json.number).toBe(1)
    const stats = sandbox.stats()
    expect(
      countRequests(stats, { route: 'GET /repos/:owner/:repo/pulls/:number', status: 301 }),
    ).toBeGreaterThanOrEqual(1)
    expect(
      countRequests(stats, { route: 'GET /repositories/:id/pulls/:number', status: 200 }),
    ).toBeGreaterThanOrEqual(1)
  })
})

describe('sandbox faults', () => {
  it('answers a 5xx for the next N matches, then behaves', async () => {
    await sandbox.admin.addFault({ kind: 'status', status: 503, path: '/repos/acme/*/pulls/*', times: 2 })
    expect((await call(sandbox, token, '/repos/acme/widgets/pulls/1')).status).toBe(503)
    expect((await call(sandbox, token, '/repos/acme/widgets/issues')).status).toBe(200)
    expect((await call(sandbox, token, '/repos/acme/widgets/pulls/3')).status).toBe(503)
    expect((await call(sandbox, token, '/repos/acme/widgets/pulls/1')).status).toBe(200)
    expect(await sandbox.admin.listFaults()).toEqual([])
  })

  it('adds latency, only for the method named', async () => {
    await sandbox.admin.addFault({ kind: 'latency', ms: 150, path: '/repos/**', method: 'get' })
    const started = performance.now()
    await call(sandbox, token, '/repos/acme/widgets')
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('sends malformed JSON, a truncated body, or drops the connection', async () => {
    await sandbox.admin.addFault({ kind: 'malformed', path: '/repos/acme/widgets', times: 1 })
    const malformed = await call(sandbox, token, '/repos/acme/widgets')
    expect(malformed.status).toBe(200)
    expect(() => JSON.parse(malformed.text)).toThrow()

    await sandbox.admin.addFault({ kind: 'truncated', path: '/repos/acme/widgets', times: 1 })
    await expect(call(sandbox, token, '/repos/acme/widgets')).rejects.toThrow()

    await sandbox.admin.addFault({ kind: 'drop', path: '/repos/acme/widgets', times: 1 })
    await expect(call(sandbox, token, '/repos/acme/widgets')).rejects.toThrow()
    expect((await call(sandbox, token, '/repos/acme/widgets')).status).toBe(200)
  })

  it('answers a secondary rate limit with retry-after', async () => {
    await sandbox.admin.addFault({ kind: 'secondary-limit', path: '/repos/**', retryAfter: 1, times: 1 })
    const limited = await call(sandbox, token, '/repos/acme/widgets')
    expect(limited.status).toBe(403)
    expect(limited.headers.get('retry-after')).toBe('1')
    expect(limited.json.message).toMatch(/secondary rate limit/)
  })

  it('rejects a malformed fault naming the field', async () => {
    await expect(
      sandbox.admin.addFault({ kind: 'latency', path: 'no-slash', ms: 1 } as never),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('path'),
    })
  })
})

describe('sandbox stats and mutations', () => {
  it('counts by installation, method, route template and status; never counts admin routes; resets', async () => {
    await sandbox.admin.resetStats()
    await call(sandbox, token, '/repos/acme/widgets/pulls/1')
    await call(sandbox, token, '/repos/acme/widgets/pulls/2')
    await call(sandbox, token, '/repos/acme/widgets/pulls/99')
    await call(sandbox, token, '/nowhere')
    await call(sandbox, token, '/repos/acme/widgets', { headers: { 'x-leasecron-lane': 'leaked' } })
    const stats = await sandbox.admin.stats()
    expect(stats.total).toBe(5)
    expect(stats.privateHeaders).toBe(1)
    expect(stats.entries).toContainEqual({
      installation: String(sandbox.installationId),
      method: 'GET',
      route: 'GET /repos/:owner/:repo/pulls/:number',
      status: 200,
      count: 2,
      points: 2,
    })
    expect(countRequests(stats, { status: 404 })).toBe(2)
    expect(countRequests(stats, { route: 'GET (unmatched)' })).toBe(1)
    expect(sandbox.stats()).toEqual(stats)
    await sandbox.admin.resetStats()
    expect(sandbox.stats().total).toBe(0)
  })

  it('moves heads, closes and merges pulls, files and closes issues, posts verdicts', async () => {
    const moved = await sandbox.admin.moveHead('acme', 'widgets', 1, 'e'.repeat(40))
    expect(moved.head.sha).toBe('e'.repeat(40))
    expect(Date.parse(moved.updated_at)).toBeGreaterThan(Date.parse('2026-09-30T10:00:00Z'))
    expect((await call(sandbox, token, '/repos/acme/widgets/pulls/1')).json.head.sha).toBe('e'.repeat(40))

    const pull = await sandbox.admin.addPull('acme', 'empty', { title: 'New' })
    expect(pull).toMatchObject({ number: 1, state: 'open', merged: false })
    expect(await sandbox.admin.mergePull('acme', 'empty', 1)).toMatchObject({ state: 'closed', merged: true })
    const second = await sandbox.admin.addPull('acme', 'empty')
    expect(await sandbox.admin.closePull('acme', 'empty', second.number)).toMatchObject({
      state: 'closed',
      merged: false,
    })

    const issue = await sandbox.admin.addIssue('acme', 'empty', {
      title: 'Hello',
      authorAssociation: 'COLLABORATOR',
      labels: ['x'],
    })
    expect(issue.number).toBe(3)
    const listed = await call(sandbox, token, '/repos/acme/empty/issues')
    expect(listed.json.map((i: { number: number }) => i.number)).toEqual([3])
    expect(listed.json[0].author_association).toBe('COLLABORATOR')
    expect(
      await sandbox.admin.updateIssue('acme', 'empty', 3, { labels: ['y'], title: 'Renamed' }),
    ).toMatchObject({
      title: 'Renamed',
      labels: [{ name: 'y' }],
    })
    expect(await sandbox.admin.closeIssue('acme', 'empty', 3)).toMatchObject({ state: 'closed' })

    const verdict = await sandbox.admin.postVerdict('acme', 'widgets', HEAD, {
      state: 'success',
      context: 'review/gate',
    })
    expect(verdict).toMatchObject({ state: 'success', context: 'review/gate' })
    expect((await sandbox.admin.statuses('acme', 'widgets', HEAD))[0]!.id).toBe(verdict.id)

    await expect(sandbox.admin.closeIssue('acme', 'empty', 77)).rejects.toMatchObject({ status: 404 })
    await expect(sandbox.admin.moveHead('acme', 'widgets', 1, 'not-a-sha')).rejects.toMatchObject({
      status: 422,
    })
  })
})
