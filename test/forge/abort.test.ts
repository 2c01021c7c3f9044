/**
 * A request whose signal aborts ends at once, whatever the abort's reason: a pass told to stop must not
 * keep a stopping worker busy with retries.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.js'

let h: SandboxHarness | undefined
afterEach(async () => {
  await h?.close()
})

describe('an aborted forge request', () => {
  it.each([
    ['with an Error as its reason', () => new Error('term of lease "x" ended: stopped')],
    ['with no reason', () => undefined],
  ])('rejects as an AbortError without a retry, %s', async (_what, reason) => {
    h = await startSandboxHarness({
      generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 0, seed: 1 },
      faults: [{ kind: 'latency', ms: 5_000, path: '/rate_limit' }],
      // The forge's own retry defaults: the point is that an abort skips them.
      forge: { retry: {} },
      warm: false,
    })
    const { sandbox, forge } = h
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
