import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  type SandboxForge,
  type SandboxForgeOptions,
  startSandboxForge,
} from '../../src/sandbox/sandbox-forge.js'
import { call, mintToken } from './sandbox-http.js'

const generate = { repos: 3, pullsPerRepo: 20, issuesPerRepo: 20, seed: 7 }
const started: SandboxForge[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const s of started.splice(0)) await s.close()
})

async function start(options: SandboxForgeOptions = {}): Promise<SandboxForge> {
  const sandbox = await startSandboxForge({ generate, ...options })
  started.push(sandbox)
  return sandbox
}

function candidates(sandbox: SandboxForge) {
  const repos = sandbox.store.repos()
  const openPulls = repos.flatMap((r) =>
    [...r.pulls.values()].filter((p) => p.state === 'open').map((p) => ({ r, p })),
  )
  return {
    pulls: openPulls.length,
    statuses: openPulls.filter(({ r, p }) => r.statuses.some((s) => s.sha === p.headSha)).length,
    issues: repos.flatMap((r) => [...r.issues.values()].filter((i) => i.state === 'open')).length,
  }
}

describe('sandbox churn', () => {
  it('changes the stated fraction of open pulls, head statuses and open issues', async () => {
    const sandbox = await start()
    const before = candidates(sandbox)
    expect(before.pulls).toBeGreaterThan(20)
    const changed = await sandbox.admin.churn({ fraction: 0.25, seed: 1 })
    expect(changed.pulls).toHaveLength(Math.round(before.pulls * 0.25))
    expect(changed.statuses).toHaveLength(Math.round(before.statuses * 0.25))
    expect(changed.issues).toHaveLength(Math.round(before.issues * 0.25))
    expect(new Set(changed.pulls).size).toBe(changed.pulls.length)
    expect(await sandbox.admin.churn({ fraction: 0, seed: 1 })).toEqual({
      pulls: [],
      statuses: [],
      issues: [],
    })
    expect((await sandbox.admin.churn({ fraction: 1, seed: 1, kinds: ['issues'] })).issues).toHaveLength(
      before.issues,
    )
  })

  it('chooses the same records for the same seed over the same data, and others for another seed', async () => {
    const a = await start()
    const b = await start()
    const first = await a.admin.churn({ fraction: 0.1, seed: 42 })
    expect(await b.admin.churn({ fraction: 0.1, seed: 42 })).toEqual(first)
    expect(await a.admin.churn({ fraction: 0.1, seed: 43 })).not.toEqual(first)
  })

  it('changes the etag of what it touched and of nothing else, and keeps every verdict', async () => {
    const sandbox = await start()
    const token = await mintToken(sandbox)
    const pulls = [...sandbox.store.repos()[0]!.pulls.values()].filter((p) => p.state === 'open')
    const paths = pulls.flatMap((p) => [
      `/repos/sandbox-org/repo-1/pulls/${p.number}`,
      `/repos/sandbox-org/repo-1/commits/${p.headSha}/status`,
    ])
    const before = new Map<string, { etag: string; state: unknown }>()
    for (const path of paths) {
      const answer = await call(sandbox, token, path)
      before.set(path, { etag: answer.headers.get('etag')!, state: answer.json.state })
    }
    const changed = await sandbox.admin.churn({ fraction: 0.5, seed: 3, kinds: ['pulls', 'statuses'] })
    for (const p of pulls) {
      const pullPath = `/repos/sandbox-org/repo-1/pulls/${p.number}`
      const statusPath = `/repos/sandbox-org/repo-1/commits/${p.headSha}/status`
      for (const [path, touched] of [
        [pullPath, changed.pulls.includes(`sandbox-org/repo-1#${p.number}`)],
        [statusPath, changed.statuses.includes(`sandbox-org/repo-1@${p.headSha}`)],
      ] as const) {
        const again = await call(sandbox, token, path, {
          headers: { 'if-none-match': before.get(path)!.etag },
        })
        expect(again.status, `${path} answered ${again.status}: churn touched the wrong records`).toBe(
          touched ? 200 : 304,
        )
        if (touched)
          expect(again.json.state, `${path}: churn must not change a verdict`).toBe(before.get(path)!.state)
      }
    }
  })

  it('refuses a fraction outside 0…1, naming the field', async () => {
    const sandbox = await start()
    await expect(sandbox.admin.churn({ fraction: 1.5, seed: 1 })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('fraction'),
    })
    await expect(startSandboxForge({ churn: { fraction: -1, seed: 1 } })).rejects.toMatchObject({
      code: 'SANDBOX_OPTIONS_INVALID',
    })
  })

  it('churns on its own timer with the churn option, once a period', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const sandbox = await start({ churn: { fraction: 1, seed: 5, kinds: ['issues'], everyMs: 60_000 } })
    const stamps = () =>
      sandbox.store
        .repos()
        .flatMap((r) => [...r.issues.values()].filter((i) => i.state === 'open').map((i) => i.updatedAt))
    const before = stamps()
    vi.advanceTimersByTime(59_999)
    expect(stamps()).toEqual(before)
    vi.advanceTimersByTime(1)
    const after = stamps()
    for (const [i, stamp] of after.entries()) expect(stamp).toBeGreaterThan(before[i]!)
  })
})
