/**
 * Discovery for GITHUB_INSTALLATION_IDS=all against the sandbox's real `GET /app/installations`: every
 * page read by following `Link: rel="next"`, suspended installations left out, and each request counted by
 * the sandbox (the App's JWT, never an installation's budget).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createAppForge } from '../../src/forge/github-app.js'
import { discoverInstallations } from '../../src/forge/installation-discovery.js'
import { createForgeMeter } from '../../src/forge/meter.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { captureLogs } from '../support/log-capture.js'

let sandbox: SandboxForge | undefined
const closes: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closes.splice(0)) await close()
  await sandbox?.close()
})

function appClient(sb: SandboxForge) {
  const { logger } = captureLogs()
  const forge = createAppForge({
    app: { appId: sb.appId, privateKey: sb.privateKey, apiUrl: sb.url },
    logger,
    meter: createForgeMeter({ logger }),
    retry: { retries: 0, retryBaseDelayMs: 1, rateLimitRetries: 0 },
  })
  closes.push(() => forge.close())
  return forge
}

const pageRequests = (sb: SandboxForge) =>
  sb.requestLog().entries.filter((e) => e.method === 'GET' && e.url.split('?')[0] === '/app/installations')
    .length

describe('discovering the App’s installations', () => {
  it('reads every page of 100, follows Link rel="next", and leaves suspended installations out', async () => {
    const installations = Array.from({ length: 250 }, (_, i) => ({
      id: 1_000 + i,
      account: `org-${i}`,
      suspended: i % 100 === 7,
    }))
    sandbox = await startSandboxForge({ installations })
    const ids = await discoverInstallations(appClient(sandbox).octokit)
    const expected = installations.filter((i) => !i.suspended).map((i) => i.id)
    expect(ids).toEqual(expected)
    expect(ids, 'a suspended installation was discovered').not.toContain(1_007)
    expect(pageRequests(sandbox), 'pages of 100: 250 installations are three requests').toBe(3)
  })

  it('sees an installation added, suspended or removed at the next listing', async () => {
    sandbox = await startSandboxForge({
      installations: [
        { id: 11, account: 'a' },
        { id: 22, account: 'b' },
      ],
    })
    const app = appClient(sandbox)
    expect(await discoverInstallations(app.octokit)).toEqual([11, 22])
    sandbox.installations.add({ id: 33, account: 'c' })
    sandbox.installations.suspend(11, true)
    sandbox.installations.remove(22)
    expect(await discoverInstallations(app.octokit)).toEqual([33])
  })

  it('fails with a typed error naming the route when the App cannot list (a bad key)', async () => {
    sandbox = await startSandboxForge({ installations: [{ id: 11, account: 'a' }] })
    const other = await startSandboxForge()
    closes.push(() => other.close())
    const { logger } = captureLogs()
    const forge = createAppForge({
      app: { appId: sandbox.appId, privateKey: other.privateKey, apiUrl: sandbox.url },
      logger,
      meter: createForgeMeter({ logger }),
      retry: { retries: 0, retryBaseDelayMs: 1, rateLimitRetries: 0 },
    })
    closes.push(() => forge.close())
    await expect(discoverInstallations(forge.octokit)).rejects.toMatchObject({
      name: 'InstallationDiscoveryError',
      code: 'FORGE_INSTALLATION_DISCOVERY',
      message: expect.stringContaining('GET /app/installations, page 1'),
      cause: expect.objectContaining({ status: 401 }),
    })
  })
})
