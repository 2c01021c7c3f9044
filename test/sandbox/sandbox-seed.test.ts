import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { generateSandboxFixture } from '../../src/sandbox/sandbox-generator.js'
import { call, mintToken } from './sandbox-http.js'

let sandbox: SandboxForge | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

describe('sandbox generator', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const options = { repos: 3, pullsPerRepo: 10, issuesPerRepo: 12, seed: 42 }
    const a = generateSandboxFixture(options)
    expect(generateSandboxFixture(options)).toEqual(a)
    expect(generateSandboxFixture({ ...options, seed: 43 })).not.toEqual(a)
    expect(a.repos).toHaveLength(3)
    expect(a.repos[0]!.pulls).toHaveLength(10)
    expect(a.repos[0]!.issues).toHaveLength(12)
    const pulls = a.repos.flatMap((r) => r.pulls)
    expect(pulls.some((p) => p.state === 'open')).toBe(true)
    expect(pulls.some((p) => p.merged)).toBe(true)
    expect(pulls.some((p) => p.state === 'closed' && !p.merged)).toBe(true)
    const associations = new Set(a.repos.flatMap((r) => r.issues.map((i) => i.authorAssociation)))
    expect(associations.size).toBeGreaterThan(2)
  })

  it('refuses negative counts naming the option', () => {
    expect(() => generateSandboxFixture({ repos: -1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })).toThrow(
      /repos must be/,
    )
  })

  it('seeds a sandbox the API then serves, numbers shared by pulls and issues', async () => {
    sandbox = await startSandboxForge({ generate: { repos: 2, pullsPerRepo: 3, issuesPerRepo: 4, seed: 8 } })
    const token = await mintToken(sandbox)
    const repos = await call(sandbox, token, '/installation/repositories')
    expect(repos.json.repositories.map((r: { full_name: string }) => r.full_name)).toEqual([
      'sandbox-org/repo-1',
      'sandbox-org/repo-2',
    ])
    const issues = await call(sandbox, token, '/repos/sandbox-org/repo-2/issues?state=all&per_page=100')
    const numbers = issues.json.map((i: { number: number }) => i.number).sort((x: number, y: number) => x - y)
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(issues.json.filter((i: { pull_request?: unknown }) => i.pull_request !== undefined)).toHaveLength(
      3,
    )
  })
})

describe('sandbox fixtures', () => {
  it('seeds from a JSON file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-fixture-'))
    const file = join(dir, 'fixture.json')
    writeFileSync(
      file,
      JSON.stringify({ repos: [{ owner: 'o', name: 'r', issues: [{ title: 'from file' }] }] }),
    )
    sandbox = await startSandboxForge({ fixture: file })
    const token = await mintToken(sandbox)
    const issue = await call(sandbox, token, '/repos/o/r/issues/1')
    expect(issue.json).toMatchObject({ title: 'from file', state: 'open', number: 1 })
  })

  it('refuses an invalid fixture, naming the field and the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-fixture-'))
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify({ repos: [{ owner: 'o', name: 'r', pulls: [{ state: 'merged' }] }] }))
    await expect(startSandboxForge({ fixture: file })).rejects.toMatchObject({
      code: 'SANDBOX_FIXTURE_INVALID',
      message: expect.stringMatching(/bad\.json.*repos\.0\.pulls\.0\.state/),
    })
    writeFileSync(file, '{ not json')
    await expect(startSandboxForge({ fixture: file })).rejects.toMatchObject({
      code: 'SANDBOX_FIXTURE_INVALID',
    })
  })
})
