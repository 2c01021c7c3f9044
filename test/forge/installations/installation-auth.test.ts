import { afterEach, describe, expect, it } from 'vitest'
import { ForgeConfigError } from '../../../src/forge/forge-config-error.js'
import { createForge, type Forge } from '../../../src/forge/client/github-app.js'
import { withLane } from '../../../src/forge/lane.js'
import { startSandboxForge, type SandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import { generateAppKeyPair } from '../../../src/sandbox/sandbox-keys.js'
import { countRequests } from '../../../src/sandbox/sandbox-stats.js'
import { captureLogs } from '../../support/log-capture.js'

const MINT = 'POST /app/installations/:installation_id/access_tokens'
const PULL = 'GET /repos/:owner/:repo/pulls/:number'

let sandbox: SandboxForge | undefined
let forge: Forge | undefined
afterEach(async () => {
  await forge?.close()
  await sandbox?.close()
  forge = undefined
  sandbox = undefined
})

function forgeFor(sb: SandboxForge, privateKey = sb.privateKey) {
  const logs = captureLogs()
  forge = createForge({
    config: { appId: sb.appId, installationId: sb.installationId, privateKey, apiUrl: sb.url },
    logger: logs.logger,
    retry: { retryBaseDelayMs: 10 },
  })
  return { forge, logs }
}

describe('installation auth against the sandbox', () => {
  for (const format of ['pkcs1', 'pkcs8'] as const) {
    it(`mints one installation token with a ${format} key and uses it for every request`, async () => {
      sandbox = await startSandboxForge({
        keyFormat: format,
        generate: { repos: 1, pullsPerRepo: 3, issuesPerRepo: 0, seed: 1 },
      })
      expect(sandbox.privateKey).toContain(format === 'pkcs1' ? 'BEGIN RSA PRIVATE KEY' : 'BEGIN PRIVATE KEY')
      const { forge } = forgeFor(sandbox)
      const numbers = await withLane('merge-gate-sweeper', () =>
        Promise.all(
          [1, 2, 3].map(async (n) => {
            const { data } = await forge.octokit.request<{ number: number }>(
              'GET /repos/{owner}/{repo}/pulls/{pull_number}',
              {
                owner: 'sandbox-org',
                repo: 'repo-1',
                pull_number: n,
              },
            )
            return data.number
          }),
        ),
      )
      expect(numbers).toEqual([1, 2, 3])
      const stats = sandbox.stats()
      expect(countRequests(stats, { installation: 'app', route: MINT, status: 201 })).toBe(1)
      expect(
        countRequests(stats, { installation: String(sandbox.installationId), route: PULL, status: 200 }),
      ).toBe(3)
      expect(stats.total).toBe(4)
      const lanes = Object.fromEntries(forge.meter.totals().map((t) => [t.lane, t.count]))
      expect(lanes).toEqual({ auth: 1, 'merge-gate-sweeper': 3 })
    })
  }

  it('fails before any request when the key is malformed', async () => {
    sandbox = await startSandboxForge()
    const lines = sandbox.privateKey.trim().split('\n')
    const truncated = [...lines.slice(0, 5), lines.at(-1)].join('\n')
    expect(() => forgeFor(sandbox!, truncated)).toThrow(ForgeConfigError)
    expect(() => forgeFor(sandbox!, 'hello')).toThrow(/config\.privateKey: expected a PEM RSA private key/)
    expect(sandbox.stats().total).toBe(0)
  })

  it("is refused by GitHub's rules when the key is another App's: 401 on the mint, no retry", async () => {
    sandbox = await startSandboxForge()
    const { forge } = forgeFor(sandbox, generateAppKeyPair('pkcs8').privateKey)
    // The mint's refusal, not the request's: no `status` a net could read as its own resource's answer.
    await expect(forge.octokit.request('GET /rate_limit')).rejects.toMatchObject({
      name: 'InstallationTokenError',
      code: 'FORGE_INSTALLATION_TOKEN',
      mintStatus: 401,
      cause: { status: 401 },
    })
    const stats = sandbox.stats()
    expect(stats.total).toBe(1)
    expect(countRequests(stats, { route: MINT, status: 401 })).toBe(1)
    expect(forge.meter.totals()).toEqual([
      { host: new URL(sandbox.url).host, api: 'rest', lane: 'auth', status: '4xx', count: 1 },
    ])
  })

  it('refuses a request without a valid installation token (the sandbox checks every request)', async () => {
    sandbox = await startSandboxForge()
    const response = await fetch(`${sandbox.url}/rate_limit`, {
      headers: { authorization: 'token ghs_notissued' },
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ message: 'Bad credentials' })
  })
})
