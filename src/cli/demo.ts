/**
 * The zero-configuration demo: with no GitHub App and no Mongo, `npm start` runs both nets against a
 * sandbox forge seeded with repositories, pull requests and issues, and a gate-run store seeded with
 * gating runs that match them (healthy, dead with a pending claim, with a real verdict, head moved), so
 * the log shows real work: failures posted for dead reviews only, cards created, nothing done twice.
 *
 * Not used with MONGO_URI (gating runs then come from the review system) or with a real GitHub App.
 */
import { planDemoGatingRuns, seedDemoGatingRuns } from '../nets/demo-seed.js'
import { MemoryGateRunStore } from '../nets/merge-gate/memory-gate-run-store.js'
import { createMergeGateSweeper, MERGE_GATE_SWEEPER } from '../nets/merge-gate/merge-gate-sweeper.js'
import type { NetDefinition } from '../nets/net.js'
import type { SandboxForgeOptions } from '../sandbox/sandbox-forge.js'
import { generateSandboxFixture } from '../sandbox/sandbox-generator.js'
import { DEMO_SANDBOX_DATA } from '../worker/local-sandbox.js'

export interface Demo {
  nets: NetDefinition[]
  sandbox: SandboxForgeOptions
  /** How many gating runs were seeded, by kind, for the start-up log. */
  seeded: Record<string, number>
}

/** Seeds the demo and returns the nets (the sweeper bound to the seeded store) and the sandbox's data. */
export async function prepareDemo(
  nets: readonly NetDefinition[],
  now: Date,
  publicUrl: string | undefined,
): Promise<Demo> {
  const fixture = generateSandboxFixture({ ...DEMO_SANDBOX_DATA })
  const plan = planDemoGatingRuns(fixture, { now, ...(publicUrl ? { publicUrl } : {}) })
  const store = new MemoryGateRunStore()
  await seedDemoGatingRuns(store, plan)
  return {
    nets: nets.map((n) => (n.name === MERGE_GATE_SWEEPER ? createMergeGateSweeper({ store }) : n)),
    sandbox: { fixture: plan.fixture },
    seeded: Object.fromEntries(Object.entries(plan.kinds).map(([kind, ids]) => [kind, ids.length])),
  }
}
