/**
 * The demo seed over a generated sandbox: the sweeper's first pass posts failures for the dead reviews
 * only; the next posts nothing.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { withLane } from '../../src/forge/lane.js'
import { planDemoGatingRuns, seedDemoGatingRuns } from '../../src/nets/demo-seed.js'
import { MemoryGateRunStore } from '../../src/nets/merge-gate/memory-gate-run-store.js'
import {
  createMergeGateSweeper,
  mergeGateSweeperOptions,
} from '../../src/nets/merge-gate/merge-gate-sweeper.js'
import { generateSandboxFixture } from '../../src/sandbox/sandbox-generator.js'
import { captureNetLog } from './support/net-log.js'
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
    const log = captureNetLog()
    const options = Object.fromEntries(
      Object.entries(mergeGateSweeperOptions).map(([k, o]) => [k, o.schema.parse(undefined)]),
    ) as never
    const resources = await net.setup({
      options,
      db: undefined,
      log: log.log,
      publicUrl: PUBLIC_URL,
      now: () => now,
    })
    const pass = net.term(resources, { options, log: log.log })
    const run = (n: number, at: Date) =>
      withLane(net.name, () =>
        pass({
          signal: new AbortController().signal,
          log: log.log,
          forge: h!.forge.octokit,
          pass: n,
          fence: 1,
          slot: at,
          startedAt: at,
          now: () => at,
        }),
      )
    h.reset()
    await run(1, now)
    expect(h.requests()[POST]).toBe(plan.kinds.dead.length)
    for (const id of plan.kinds.dead) expect((await store.get(id))?.relaunchRequestedAt).toEqual(now)
    for (const id of [...plan.kinds.verdict, ...plan.kinds['head-moved']])
      expect((await store.get(id))?.settledAt).toEqual(now)
    for (const id of plan.kinds.healthy)
      expect(await store.get(id)).toMatchObject({ settledAt: undefined, relaunchRequestedAt: undefined })

    h.reset()
    await run(2, new Date(now.getTime() + 60_000))
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
