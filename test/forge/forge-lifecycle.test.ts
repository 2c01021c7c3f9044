/**
 * The forge as the worker uses it: the hourly line and the stop flush through real requests with a fixed
 * meter clock, the rate-limit gauges and low-budget warning, and no secret in any line it logged.
 */
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { createForge, type Forge } from '../../src/forge/client/github-app.js'
import { withLane } from '../../src/forge/lane.js'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { captureLogs } from '../support/log-capture.js'

let sandbox: SandboxForge | undefined
let forge: Forge | undefined
afterEach(async () => {
  await forge?.close()
  await sandbox?.close()
  forge = undefined
  sandbox = undefined
})

const pullParams = { owner: 'sandbox-org', repo: 'repo-1', pull_number: 1 }

describe('forge lifecycle', () => {
  it('logs the hour on roll-over and flushes the partial hour on close, once', async () => {
    sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 0, seed: 1 } })
    let now = new Date('2026-09-30T14:20:05Z')
    const logs = captureLogs()
    forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        privateKey: sandbox.privateKey,
        apiUrl: sandbox.url,
      },
      logger: logs.logger,
      meterClock: () => now,
    })
    const host = new URL(sandbox.url).host
    now = new Date('2026-09-30T14:31:00Z')
    await withLane('merge-gate-sweeper', async () => {
      await forge!.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', pullParams)
      await forge!.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', pullParams)
    })
    expect(logs.messages('info')).toEqual([])

    now = new Date('2026-09-30T15:02:00Z')
    await withLane('merge-gate-sweeper', () =>
      forge!.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', pullParams),
    )
    expect(logs.messages('info')).toEqual([
      `forge HTTP: 3 requests (1 not modified, 1 points) in the hour ending 2026-09-30T15:00Z (counted from 14:20:05Z) — ${host} rest merge-gate-sweeper=2, ${host} rest auth=1`,
    ])

    now = new Date('2026-09-30T15:40:00Z')
    await forge.close()
    await forge.close()
    forge.meter.flush()
    expect(logs.messages('info')).toHaveLength(2)
    expect(logs.messages('info')[1]).toBe(
      `forge HTTP: 1 requests (1 not modified, 0 points) in the hour ending 2026-09-30T16:00Z (until 15:40:00Z, stopping) — ${host} rest merge-gate-sweeper=1`,
    )
  })

  it('keeps rate-limit gauges and warns once under 10% of the budget, then once on recovery', async () => {
    sandbox = await startSandboxForge({
      generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 0, seed: 1 },
      rateLimit: { limit: 20 },
    })
    const logs = captureLogs()
    const registry = new Registry()
    forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        privateKey: sandbox.privateKey,
        apiUrl: sandbox.url,
      },
      logger: logs.logger,
      registry,
      // Repeating one GET must spend the budget here: unconditional, as without the cache.
      cache: { enabled: false },
    })
    const host = new URL(sandbox.url).host
    const gauge = async (name: string) =>
      (await registry.getSingleMetric(name)!.get()).values.find(
        (v) => v.labels.host === host && v.labels.resource === 'core',
      )?.value
    const get = () => forge!.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', pullParams)

    for (let i = 0; i < 18; i++) await get()
    expect(await gauge('forge_ratelimit_remaining')).toBe(2)
    expect(await gauge('forge_ratelimit_limit')).toBe(20)
    expect(await gauge('forge_ratelimit_reset_seconds')).toBe((await sandbox.admin.rateLimit()).reset)
    expect(logs.lines.filter((l) => l.fields.event === 'forge_rate_limit_low')).toHaveLength(0)

    await get()
    await get()
    expect(await gauge('forge_ratelimit_remaining')).toBe(0)
    const low = logs.lines.filter((l) => l.fields.event === 'forge_rate_limit_low')
    expect(low).toHaveLength(1)
    expect(low[0]).toMatchObject({
      level: 'warn',
      fields: { remaining: 1, limit: 20, resource: 'core', host },
    })

    await sandbox.admin.setRateLimit({ remaining: 20 })
    await get()
    expect(await gauge('forge_ratelimit_remaining')).toBe(19)
    const recovered = logs.lines.filter((l) => l.fields.event === 'forge_rate_limit_recovered')
    expect(recovered).toHaveLength(1)
    await get()
    expect(logs.lines.filter((l) => l.fields.event === 'forge_rate_limit_recovered')).toHaveLength(1)
  })

  it('never logs the private key or an installation token, whatever goes wrong', async () => {
    sandbox = await startSandboxForge({
      generate: { repos: 1, pullsPerRepo: 2, issuesPerRepo: 2, seed: 5 },
      rateLimit: { limit: 1000, windowMs: 1500 },
    })
    const logs = captureLogs()
    let now = new Date('2026-09-30T10:59:00Z')
    forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        // Literal \n, as pasted into an env file.
        privateKey: sandbox.privateKey.replace(/\n/g, '\\n'),
        apiUrl: sandbox.url,
      },
      logger: logs.logger,
      meterClock: () => now,
      retry: { retries: 1, retryBaseDelayMs: 10 },
    })
    const { octokit } = forge
    await sandbox.admin.addFault({
      kind: 'secondary-limit',
      retryAfter: 1,
      path: '/repos/sandbox-org/repo-1/pulls/1',
      times: 1,
    })
    await sandbox.admin.addFault({ kind: 'status', status: 500, path: '/repos/sandbox-org/repo-1/pulls/2' })
    await withLane('merge-gate-sweeper', async () => {
      await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', pullParams)
      await expect(
        octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...pullParams, pull_number: 2 }),
      ).rejects.toMatchObject({ status: 500 })
      await expect(
        octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...pullParams, pull_number: 99 }),
      ).rejects.toMatchObject({ status: 404 })
      await sandbox!.admin.setRateLimit({ remaining: 1 })
      await octokit.request('GET /repos/{owner}/{repo}/issues', { owner: 'sandbox-org', repo: 'repo-1' })
    })
    now = new Date('2026-09-30T11:00:30Z')
    await octokit.request('GET /rate_limit')
    await forge.close()

    const tokens = sandbox.issuedTokens()
    expect(tokens.length).toBeGreaterThan(0)
    const keyLines = sandbox.privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))
    const lines = logs.serialized()
    // The run did log: a secondary limit, a low budget, the hour line and the stop flush.
    expect(lines.length).toBeGreaterThanOrEqual(4)
    for (const line of lines) {
      for (const token of tokens) expect(line).not.toContain(token)
      for (const keyLine of keyLines) expect(line).not.toContain(keyLine.slice(0, 24))
      expect(line).not.toMatch(/PRIVATE KEY|ghs_|eyJ[A-Za-z0-9_-]{10,}/)
    }
  })
})
