import { afterEach, describe, expect, it } from 'vitest'
import {
  type SandboxForge,
  type SandboxForgeOptions,
  startSandboxForge,
} from '../../src/sandbox/sandbox-forge.js'
import type { SandboxFixtureInput } from '../../src/sandbox/sandbox-fixture.js'
import { countPoints, countRequests } from '../../src/sandbox/sandbox-stats.js'
import { call, mintToken } from './sandbox-http.js'

const HEAD = 'c'.repeat(40)
const fixture: SandboxFixtureInput = {
  repos: [
    {
      owner: 'acme',
      name: 'widgets',
      pulls: [{ number: 1, headSha: HEAD, updatedAt: '2026-09-30T10:00:00Z' }],
      issues: [{ number: 2, title: 'Bug', updatedAt: '2026-09-30T11:00:00Z' }],
      statuses: [{ sha: HEAD, state: 'success', context: 'ci/build', createdAt: '2026-09-30T10:00:00Z' }],
    },
  ],
}

let sandbox: SandboxForge | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

async function start(options: SandboxForgeOptions = {}): Promise<{ forge: SandboxForge; token: string }> {
  sandbox = await startSandboxForge({ fixture, ...options })
  return { forge: sandbox, token: await mintToken(sandbox) }
}

describe('sandbox conditional requests', () => {
  it("sends GitHub's weak etag, cache-control and vary on every GET, last-modified on single records", async () => {
    const { forge, token } = await start()
    for (const path of [
      '/repos/acme/widgets/pulls',
      '/repos/acme/widgets/issues',
      `/repos/acme/widgets/commits/${HEAD}/status`,
      `/repos/acme/widgets/commits/${HEAD}/statuses`,
      '/installation/repositories',
      '/rate_limit',
    ]) {
      const answer = await call(forge, token, path)
      expect(answer.status, path).toBe(200)
      expect(answer.headers.get('etag'), path).toMatch(/^W\/"[0-9a-f]{32}"$/)
      expect(answer.headers.get('cache-control'), path).toBe('private, max-age=60, s-maxage=60')
      expect(answer.headers.get('vary'), path).toBe('Accept, Authorization, Cookie, X-GitHub-OTP')
      expect(answer.headers.get('last-modified'), path).toBeNull()
    }
    const pull = await call(forge, token, '/repos/acme/widgets/pulls/1')
    expect(pull.headers.get('last-modified')).toBe('Wed, 30 Sep 2026 10:00:00 GMT')
    const issue = await call(forge, token, '/repos/acme/widgets/issues/2')
    expect(issue.headers.get('last-modified')).toBe('Wed, 30 Sep 2026 11:00:00 GMT')
  })

  it('answers a matching If-None-Match with a bodiless 304 that carries the rate-limit headers and spends nothing', async () => {
    const { forge, token } = await start()
    const first = await call(forge, token, '/repos/acme/widgets/pulls')
    const remaining = Number(first.headers.get('x-ratelimit-remaining'))
    forge.resetStats()
    const again = await call(forge, token, '/repos/acme/widgets/pulls', {
      headers: { 'if-none-match': `W/"0000", ${first.headers.get('etag')}` },
    })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(again.headers.get('cache-control')).toBe('private, max-age=60, s-maxage=60')
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(remaining)
    expect(again.headers.get('x-ratelimit-limit')).toBe('5000')
    const stats = forge.stats()
    expect(stats).toMatchObject({ total: 1, notModified: 1, points: 0 })
    expect(countRequests(stats, { status: 304 })).toBe(1)
  })

  it('answers 200 and spends a point once the record behind an etag changed', async () => {
    const { forge, token } = await start()
    const first = await call(forge, token, '/repos/acme/widgets/pulls/1')
    await forge.admin.moveHead('acme', 'widgets', 1)
    forge.resetStats()
    const again = await call(forge, token, '/repos/acme/widgets/pulls/1', {
      headers: { 'if-none-match': first.headers.get('etag')! },
    })
    expect(again.status).toBe(200)
    expect(again.headers.get('etag')).not.toBe(first.headers.get('etag'))
    expect(forge.stats()).toMatchObject({ total: 1, notModified: 0, points: 1 })
  })

  it('honours If-Modified-Since where last-modified is sent, and lets If-None-Match win when both come', async () => {
    // Near the wall clock: the App JWT that mints the token is checked against the sandbox's clock.
    let now = Math.floor(Date.now() / 1000) * 1000
    const { forge, token } = await start({ clock: () => new Date(now) })
    const first = await call(forge, token, '/repos/acme/widgets/issues/2')
    const since = first.headers.get('last-modified')!
    const unchanged = await call(forge, token, '/repos/acme/widgets/issues/2', {
      headers: { 'if-modified-since': since },
    })
    expect(unchanged.status).toBe(304)
    const stale = await call(forge, token, '/repos/acme/widgets/issues/2', {
      headers: { 'if-modified-since': since, 'if-none-match': 'W/"not-this-one"' },
    })
    expect(stale.status).toBe(200)
    now += 5_000
    await forge.admin.updateIssue('acme', 'widgets', 2, { title: 'Bug, retitled' })
    const changed = await call(forge, token, '/repos/acme/widgets/issues/2', {
      headers: { 'if-modified-since': since },
    })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('last-modified')).toBe(new Date(now).toUTCString())
    const list = await call(forge, token, '/repos/acme/widgets/issues', {
      headers: { 'if-modified-since': since },
    })
    expect(list.status).toBe(200)
  })

  it('ties an etag to the token by default, so a rotated token pays once for each URL', async () => {
    const { forge, token } = await start()
    const first = await call(forge, token, '/repos/acme/widgets/pulls')
    const rotated = await mintToken(forge)
    forge.resetStats()
    const after = await call(forge, rotated, '/repos/acme/widgets/pulls', {
      headers: { 'if-none-match': first.headers.get('etag')! },
    })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(first.headers.get('etag'))
    expect(forge.stats().points).toBe(1)
  })

  it('keeps an etag across a token rotation with etagPerToken: false', async () => {
    const { forge, token } = await start({ etagPerToken: false })
    const first = await call(forge, token, '/repos/acme/widgets/pulls')
    const rotated = await mintToken(forge)
    const after = await call(forge, rotated, '/repos/acme/widgets/pulls', {
      headers: { 'if-none-match': first.headers.get('etag')! },
    })
    expect(after.status).toBe(304)
  })

  it('counts budget points apart from requests: GET /rate_limit and 304s are free, errors are paid', async () => {
    const { forge, token } = await start()
    const first = await call(forge, token, '/repos/acme/widgets')
    forge.resetStats()
    await call(forge, token, '/repos/acme/widgets', {
      headers: { 'if-none-match': first.headers.get('etag')! },
    })
    await call(forge, token, '/rate_limit')
    await call(forge, token, '/repos/acme/widgets/pulls/99')
    await call(forge, token, '/repos/acme/widgets')
    const stats = forge.stats()
    expect(stats).toMatchObject({ total: 4, notModified: 1, points: 2 })
    expect(countPoints(stats, { route: 'GET /rate_limit' })).toBe(0)
    expect(countPoints(stats, { status: 404 })).toBe(1)
    const limit = await forge.admin.rateLimit()
    expect(limit.used).toBe(3)
  })
})
