/**
 * `/status` and the page by installation, on a real worker acting as two installations of the sandbox
 * forge (GITHUB_INSTALLATION_IDS=101,202, in memory): every net entry names its installation, the
 * snapshot summarizes each installation (holders per replica, runs by outcome, budget left from its
 * rate-limit figures), `?installation=202` narrows the JSON and the page to that installation, and a
 * filter that is no installation id is answered 400 with a JSON error naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet, type PassContext } from '../../../src/index.js'
import { type SandboxForge, startSandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import type { StatusSnapshot } from '../../../src/status/status-snapshot.js'
import { createWorker, type Worker } from '../../../src/worker/worker.js'

const LEASE = defineLease('repo-counter', 'counts its installation’s repositories')
const counter = defineNet({
  name: 'repo-counter',
  lease: LEASE.name,
  scope: 'installation',
  schedule: '* * * * * *',
  description: 'counts the installation’s repositories',
  options: {},
  setup: () => undefined,
  term: () => async (ctx: PassContext) => {
    await ctx.forge.request('GET /installation/repositories', { request: { signal: ctx.signal } })
  },
})

let sandbox: SandboxForge
let worker: Worker
let base: string
beforeAll(async () => {
  sandbox = await startSandboxForge({
    fixture: {
      repos: [
        { owner: 'org-a', name: 'one', id: 701 },
        { owner: 'org-b', name: 'two', id: 702 },
      ],
    },
    installations: [
      { id: 101, account: 'org-a' },
      { id: 202, account: 'org-b' },
    ],
  })
  worker = createWorker({
    nets: [counter],
    leases: [LEASE],
    env: {
      LEASECRON_FORGE: 'github',
      GITHUB_APP_ID: String(sandbox.appId),
      GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
      GITHUB_INSTALLATION_IDS: '101,202',
      GITHUB_API_URL: sandbox.url,
      LOG_LEVEL: 'silent',
      PORT: '0',
    },
  })
  await worker.start()
  base = `http://127.0.0.1:${worker.port}`
})
afterAll(async () => {
  await worker?.stop()
  await sandbox?.close()
})

async function status(query = ''): Promise<StatusSnapshot> {
  const answer = await fetch(`${base}/status${query}`)
  expect(answer.status, `GET /status${query} did not answer 200`).toBe(200)
  return (await answer.json()) as StatusSnapshot
}

describe('/status and the page by installation', () => {
  it('name the installation on every net and summarize each one’s holders, runs and budget', async () => {
    let snapshot = await status()
    await expect
      .poll(
        async () => {
          snapshot = await status()
          return snapshot.installations.every((i) => (i.runs?.ok ?? 0) > 0 && i.budget !== null)
            ? snapshot.installations.length
            : 0
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(2)
    expect(snapshot.nets.map((n) => [n.name, n.installation])).toEqual([
      ['repo-counter:101', 101],
      ['repo-counter:202', 202],
    ])
    expect(snapshot.installationFilter).toBeNull()
    for (const summary of snapshot.installations) {
      expect(summary.nets).toEqual([`repo-counter:${summary.installation}`])
      expect(summary.holders, 'the one replica is not shown holding the installation’s lease').toEqual([
        { owner: worker.owner, leases: 1, thisReplica: true },
      ])
      expect(summary.unheld).toBe(0)
      expect(summary.budget!.remaining, 'the budget left is above its limit').toBeLessThanOrEqual(
        summary.budget!.limit,
      )
      expect(summary.budget!.limit).toBeGreaterThan(0)
    }
  }, 45_000)

  it('narrow the JSON and the page to one installation with ?installation=', async () => {
    const narrowed = await status('?installation=202')
    expect(narrowed.installationFilter).toBe(202)
    expect(narrowed.nets.map((n) => n.name)).toEqual(['repo-counter:202'])
    expect(narrowed.installations.map((i) => i.installation)).toEqual([202])
    expect(narrowed.forge.rateLimits?.every((l) => l.installation === 202)).toBe(true)
    expect(narrowed.forge.lanes.every((l) => l.lane === 'repo-counter.202')).toBe(true)
    const page = await fetch(`${base}/?installation=202`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Showing installation 202 only')
    expect(html).toContain('data-net="repo-counter:202"')
    expect(html, 'the narrowed page shows the other installation’s net').not.toContain(
      'data-net="repo-counter:101"',
    )
    const unknown = await status('?installation=303')
    expect(unknown.nets).toEqual([])
    expect(unknown.notes.join(' ')).toContain('no net here acts as installation 303')
  })

  it('answer a filter that is no installation id with 400 and a JSON error naming it', async () => {
    for (const query of ['?installation=org-b', '?installation=-1', '?installation=1&installation=2']) {
      for (const path of ['/status', '/']) {
        const answer = await fetch(`${base}${path}${query}`)
        expect(answer.status, `${path}${query} was not refused`).toBe(400)
        expect(answer.headers.get('content-type')).toBe('application/json')
        const body = (await answer.json()) as { error: { code: string; message: string } }
        expect(body.error.code).toBe('bad-filter')
        expect(body.error.message).toContain('expected one installation id')
      }
    }
  })
})
