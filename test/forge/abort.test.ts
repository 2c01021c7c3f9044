/**
 * A request whose signal aborts ends at once, whatever the abort's reason: a pass told to stop must not
 * keep a stopping worker busy with retries.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createForge, type Forge } from '../../src/forge/github-app.js'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox/sandbox-forge.js'

let sandbox: SandboxForge | undefined
let forge: Forge | undefined
afterEach(async () => {
  await forge?.close()
  await sandbox?.close()
})

describe('an aborted forge request', () => {
  it.each([
    ['with an Error as its reason', () => new Error('term of lease "x" ended: stopped')],
    ['with no reason', () => undefined],
  ])('rejects as an AbortError without a retry, %s', async (_what, reason) => {
    sandbox = await startSandboxForge({
      generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 0, seed: 1 },
      faults: [{ kind: 'latency', ms: 5_000, path: '/rate_limit' }],
    })
    forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        privateKey: sandbox.privateKey,
        apiUrl: sandbox.url,
      },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    })
    // Mint the token first, so the aborted request is the only one left to count.
    await forge.octokit.request('GET /repos/{owner}/{repo}', { owner: 'sandbox-org', repo: 'repo-1' })
    const stop = new AbortController()
    setTimeout(() => stop.abort(reason()), 100)
    const started = Date.now()
    const error = await forge.octokit
      .request('GET /rate_limit', { request: { signal: stop.signal } })
      .catch((e: unknown) => e)
    expect((error as Error).name).toBe('AbortError')
    expect(Date.now() - started, 'the aborted request was retried').toBeLessThan(2_000)
    const attempts = sandbox
      .stats()
      .entries.filter((e) => e.route === 'GET /rate_limit')
      .reduce((n, e) => n + e.count, 0)
    expect(attempts, 'the aborted request was sent again').toBeLessThanOrEqual(1)
  })
})
