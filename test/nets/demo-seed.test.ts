/**
 * The demo seed over a generated sandbox: the sweeper's first pass posts failures for the dead reviews
 * only; the next posts nothing.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { planDemoGatingRuns, seedDemoGatingRuns } from '../../src/nets/demo-seed.js'
import { MemoryGateRunStore } from '../../src/nets/merge-gate/memory-gate-run-store.js'
import { createMergeGateSweeper } from '../../src/nets/merge-gate/merge-gate-sweeper.js'
import { generateSandboxFixture } from '../../src/sandbox/sandbox-generator.js'
import { runOnePass } from '../../src/testing.js'
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.js'

const POST = 'POST /repos/:owner/:repo/statuses/:sha'
const PUBLIC_URL = 'http://localhost:8080'
let h: SandboxHarness | undefined
afterAll(async () => {
  await h?.close()
})

describe('demo seed', () => {
  it('plans consistent runs of every kind, deterministically, without changing the input', () => {
    const fixture = generateSandboxFixture({ repos: 2, pullsPerRepo: 12, issuesPerRepo: 3, seed: 7 })
    const before = JSON.stringify(fixture)
    const now = new Date('2026-09-30T12:00:00.000Z')
    const plan = planDemoGatingRuns(fixture, { now, publicUrl: PUBLIC_URL })
    expect(JSON.stringify(fixture)).toBe(before)
    expect(plan).toEqual(planDemoGatingRuns(fixture, { now, publicUrl: PUBLIC_URL }))
    for (const kind of ['healthy', 'dead', 'verdict', 'head-moved'] as const)
      expect(plan.kinds[kind].length).toBeGreaterThan(0)
    expect(() => planDemoGatingRuns(fixture, { now: new Date(Number.NaN) })).toThrow(RangeError)
  })

  it('makes the sweeper repair each dead review exactly once', async () => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000)
    const generated = generateSandboxFixture({ repos: 2, pullsPerRepo: 16, issuesPerRepo: 0, seed: 3, now })
    const plan = planDemoGatingRuns(generated, { now, publicUrl: PUBLIC_URL })
    h = await startSandboxHarness({ fixture: plan.fixture })
    const store = new MemoryGateRunStore()
    expect(await seedDemoGatingRuns(store, plan)).toBe(plan.runs.length)

    const net = createMergeGateSweeper({ store })
    const run = (at: Date) =>
      runOnePass(net, { forge: h!.sandbox, slot: at, now: () => at, publicUrl: PUBLIC_URL })
    h.reset()
    expect((await run(now)).record).toMatchObject({ outcome: 'ok' })
    expect(h.requests()[POST]).toBe(plan.kinds.dead.length)
    for (const id of plan.kinds.dead) expect((await store.get(id))?.relaunchRequestedAt).toEqual(now)
    for (const id of [...plan.kinds.verdict, ...plan.kinds['head-moved']])
      expect((await store.get(id))?.settledAt).toEqual(now)
    for (const id of plan.kinds.healthy)
      expect(await store.get(id)).toMatchObject({ settledAt: undefined, relaunchRequestedAt: undefined })

    h.reset()
    expect((await run(new Date(now.getTime() + 60_000))).record).toMatchObject({ outcome: 'ok' })
    expect(h.requests()[POST]).toBeUndefined()
    for (const id of plan.kinds.dead) {
      const gating = (await store.get(id))!
      const repo = h.sandbox.store.repo(...(gating.repo.split('/') as [string, string]))!
      const failures = h.sandbox.store
        .statusesOf(repo, gating.headSha)
        .filter((s) => s.state === 'failure' && s.context === 'review/verdict')
      expect(failures).toHaveLength(1)
    }
  })
})
