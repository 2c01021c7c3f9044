import { afterEach, describe, expect, it } from 'vitest'
import { SandboxError } from '../../src/sandbox/sandbox-error.js'
import { isLoopback, startSandboxForge, type SandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { generateAppKeyPair } from '../../src/sandbox/sandbox-keys.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { appJwt, call, mintToken } from './sandbox-http.js'

let sandbox: SandboxForge | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

const mintPath = (sb: SandboxForge) => `/app/installations/${sb.installationId}/access_tokens`

describe('sandbox App auth', () => {
  it("mints an installation token with GitHub's shape for a valid RS256 JWT", async () => {
    sandbox = await startSandboxForge()
    const answer = await call(sandbox, undefined, mintPath(sandbox), {
      method: 'POST',
      headers: { authorization: `Bearer ${appJwt(sandbox)}` },
    })
    expect(answer.status).toBe(201)
    expect(answer.json).toMatchObject({ repository_selection: 'all', permissions: { statuses: 'write' } })
    expect(answer.json.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/)
    expect(Date.parse(answer.json.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000)
    const app = await call(sandbox, undefined, '/app', {
      headers: { authorization: `Bearer ${appJwt(sandbox)}` },
    })
    expect(app.json).toMatchObject({ id: sandbox.appId })
  })

  it('refuses a JWT signed by another key, for another App, expired, too long-lived or issued in the future', async () => {
    sandbox = await startSandboxForge()
    const now = Math.floor(Date.now() / 1000)
    const bad = [
      appJwt(sandbox, {}, generateAppKeyPair().privateKey),
      appJwt(sandbox, { iss: sandbox.appId + 1 }),
      appJwt(sandbox, { iat: now - 700, exp: now - 100 }),
      appJwt(sandbox, { iat: now, exp: now + 3600 }),
      appJwt(sandbox, { iat: now + 600, exp: now + 900 }),
      'not.a.jwt',
    ]
    for (const jwt of bad) {
      const answer = await call(sandbox, undefined, mintPath(sandbox), {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}` },
      })
      expect(answer.status).toBe(401)
      expect(typeof answer.json.message).toBe('string')
    }
    const wrongInstallation = await call(sandbox, undefined, `/app/installations/1/access_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appJwt(sandbox)}` },
    })
    expect(wrongInstallation.status).toBe(404)
    expect(countRequests(sandbox.stats(), { installation: 'anonymous', status: 401 })).toBe(6)
  })

  it('requires an installation token on API routes, and a JWT on App routes', async () => {
    sandbox = await startSandboxForge()
    expect((await call(sandbox, undefined, '/rate_limit')).status).toBe(401)
    expect(
      (
        await call(sandbox, undefined, '/rate_limit', {
          headers: { authorization: `Bearer ${appJwt(sandbox)}` },
        })
      ).status,
    ).toBe(401)
    const token = await mintToken(sandbox)
    expect((await call(sandbox, token, '/rate_limit')).status).toBe(200)
    expect((await call(sandbox, token, mintPath(sandbox), { method: 'POST' })).status).toBe(401)
  })

  it('expires installation tokens on its clock', async () => {
    let now = Date.now()
    sandbox = await startSandboxForge({ clock: () => new Date(now), tokenTtlMs: 60_000 })
    const token = await mintToken(sandbox)
    expect((await call(sandbox, token, '/rate_limit')).status).toBe(200)
    now += 61_000
    const expired = await call(sandbox, token, '/rate_limit')
    expect(expired.status).toBe(401)
    expect(expired.json.message).toBe('Bad credentials')
  })
})

describe('sandbox binding', () => {
  it('refuses a non-loopback address unless told otherwise', async () => {
    await expect(startSandboxForge({ host: '0.0.0.0' })).rejects.toMatchObject({
      name: 'SandboxError',
      code: 'SANDBOX_NON_LOOPBACK',
    })
    await expect(startSandboxForge({ host: '10.1.2.3' })).rejects.toBeInstanceOf(SandboxError)
    expect(isLoopback('127.0.0.1')).toBe(true)
    expect(isLoopback('127.8.9.10')).toBe(true)
    expect(isLoopback('localhost')).toBe(true)
    expect(isLoopback('[::1]')).toBe(true)
    expect(isLoopback('::')).toBe(false)
    expect(isLoopback('128.0.0.1')).toBe(false)
  })

  it('listens on 127.0.0.1 and a free port by default', async () => {
    sandbox = await startSandboxForge()
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })
})
