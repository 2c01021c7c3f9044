/**
 * Discovery for GITHUB_INSTALLATION_IDS=all against the sandbox's real `GET /app/installations`: every
 * page read by following `Link: rel="next"`, suspended installations left out, and each request counted by
 * the sandbox (the App's JWT, never an installation's budget).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createAppForge } from '../../../src/forge/client/github-app.js'
import { discoverInstallations } from '../../../src/forge/installations/installation-discovery.js'
import { createForgeMeter } from '../../../src/forge/meter/meter.js'
import { type SandboxForge, startSandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import { captureLogs } from '../../support/log-capture.js'

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

  it('keeps only installations with a positive integer id, each once, and names the others in one warning', async () => {
    const listing = [12, '34:evil', 12, -5, 1.5, null].map((id) => ({ id }))
    const rest = [
      {},
      { id: 'NaN' },
      { id: 2 ** 53 },
      null,
      'x',
      { id: 77, suspended_at: '2026-01-01T00:00:00Z' },
    ]
    const forge = await hostileApp([...listing, ...rest])
    const { logger, matching } = captureLogs()
    expect(await discoverInstallations(forge.octokit, undefined, logger)).toEqual([12])
    const [warning, ...more] = matching('warn', 'not an installation with a positive integer id')
    expect(more, 'one warning for the listing').toEqual([])
    expect(warning?.fields.rejectedCount).toBe(10)
    expect(warning?.fields.rejected).toEqual([
      '{"id":"34:evil"}',
      '12 (listed twice)',
      '{"id":-5}',
      '{"id":1.5}',
      '{"id":null}',
      '{}',
      '{"id":"NaN"}',
      '{"id":"9007199254740992n"}',
      'null',
      '"x"',
    ])
  })

  it('refuses a listing with no installation left, and an answer that is not a list, with typed errors', async () => {
    for (const [body, text] of [
      [[], 'listed no installation that is not suspended'],
      [[{ id: -1 }, { id: '7' }], '(2 entries left out as not an installation)'],
      [{ installations: [{ id: 1 }] }, 'expected a list of installations'],
    ] as const) {
      const forge = await hostileApp(body)
      await expect(discoverInstallations(forge.octokit)).rejects.toMatchObject({
        name: 'InstallationDiscoveryError',
        code: 'FORGE_INSTALLATION_DISCOVERY',
        message: expect.stringContaining(text),
      })
    }
  })
})

/**
 * The App's client on a real local HTTP server whose GET /app/installations answers `body` (one page): a
 * listing the sandbox would never serve (its installations are checked when added). The App's key is a
 * sandbox's, so the client signs its JWT as it does against GitHub.
 */
async function hostileApp(body: unknown) {
  const keys = await startSandboxForge()
  closes.push(() => keys.close())
  const server = createServer((request, response) => {
    const route = request.url?.split('?')[0]
    response.writeHead(route === '/app/installations' ? 200 : 404, { 'content-type': 'application/json' })
    response.end(JSON.stringify(route === '/app/installations' ? body : { message: 'Not Found' }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closes.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return appClient({ ...keys, url: `http://127.0.0.1:${port}` })
}
