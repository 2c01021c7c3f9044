/**
 * The merge-gate sweeper net as the worker drives it — setup, term, passes in the net's lane — over the
 * sandbox with the real reconciler: failures for dead reviews only, nothing twice on the next pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MERGE_GATE_SWEEPER_LEASE } from '../../../src/leases.js'
import { MemoryGateRunStore } from '../../../src/nets/merge-gate/memory-gate-run-store.js'
import {
  createMergeGateSweeper,
  mergeGateSweeper,
  mergeGateSweeperOptions,
} from '../../../src/nets/merge-gate/merge-gate-sweeper.js'
import { recordGatingRun, updateGatingRun } from '../../../src/nets/merge-gate/record-gating-run.js'
import { type PassLogLine, runOnePass } from '../../../src/testing.js'
import { startSandboxHarness, type SandboxHarness } from '../../support/sandbox-harness.js'

const PULL = 'GET /repos/:owner/:repo/pulls/:number'
const STATUS = 'GET /repos/:owner/:repo/commits/:ref/status'
const POST = 'POST /repos/:owner/:repo/statuses/:sha'
const PUBLIC_URL = 'https://review.example.test'
const now = new Date('2026-09-30T15:00:00.000Z')
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000)

let h: SandboxHarness
beforeAll(async () => {
  h = await startSandboxHarness({ fixture: { repos: [{ owner: 'acme', name: 'widgets' }] } })
})
afterAll(async () => {
  await h?.close()
})

/** Parses option values as the worker does from the environment. */
function parseOptions(env: Record<string, string | undefined> = {}) {
  const entries = Object.entries(mergeGateSweeperOptions).map(([key, option]) => [
    key,
    option.schema.parse(env[key]),
  ])
  return Object.fromEntries(entries) as { [K in keyof typeof mergeGateSweeperOptions]: never }
}

describe('the merge-gate sweeper net', () => {
  it('declares its lease, schedule and defaults', () => {
    expect(mergeGateSweeper).toMatchObject({
      name: 'merge-gate-sweeper',
      lease: MERGE_GATE_SWEEPER_LEASE.name,
      schedule: '* * * * *',
    })
    expect(parseOptions()).toEqual({
      LOOKBACK: 3_600_000,
      HORIZON: 192 * 3_600_000,
      DEEP_EVERY: 30,
      GRACE: 180_000,
      STALE_AFTER: 1_800_000,
      GATE_CONTEXT: 'review/verdict',
    })
    expect(() => parseOptions({ LOOKBACK: '60' })).toThrow(/duration with a unit/)
  })

  it('posts failures for dead reviews only, settles the rest, and does nothing twice — all in its lane', async () => {
    const store = new MemoryGateRunStore()
    const net = createMergeGateSweeper({ store })

    const open = (claimFor?: string) => {
      const pull = h.sandbox.store.addPull('acme', 'widgets')
      if (claimFor !== undefined) {
        h.sandbox.store.addStatus('acme', 'widgets', pull.headSha, {
          state: 'pending',
          context: 'review/verdict',
          targetUrl: `${PUBLIC_URL}/runs/${claimFor}`,
        })
      }
      return pull
    }
    const dead = open('dead')
    const healthy = open('healthy')
    const closed = open('closed')
    h.sandbox.store.closePull('acme', 'widgets', closed.number)
    const base = { repo: 'acme/widgets', gateContext: 'review/verdict' } as const
    await recordGatingRun(store, {
      ...base,
      id: 'dead',
      pull: dead.number,
      headSha: dead.headSha,
      state: 'running',
      updatedAt: ago(40),
    })
    await updateGatingRun(store, 'dead', { updatedAt: ago(35), state: 'died', reason: 'runner evicted' })
    await recordGatingRun(store, {
      ...base,
      id: 'healthy',
      pull: healthy.number,
      headSha: healthy.headSha,
      state: 'running',
      updatedAt: ago(10),
    })
    await recordGatingRun(store, {
      ...base,
      id: 'closed',
      pull: closed.number,
      headSha: closed.headSha,
      state: 'died',
      updatedAt: ago(20),
    })
    await recordGatingRun(store, {
      ...base,
      id: 'fresh',
      pull: dead.number,
      headSha: dead.headSha,
      state: 'died',
      updatedAt: ago(1),
    })

    h.reset()
    const first = await runOnePass(net, {
      forge: h.sandbox,
      slot: now,
      now: () => now,
      publicUrl: PUBLIC_URL,
    })
    expect(first.record).toMatchObject({ outcome: 'ok' })
    // dead: pull + status + post; healthy: pull + status; closed: pull; fresh: inside the grace, not offered.
    expect(h.requests()).toEqual({ [PULL]: 3, [STATUS]: 2, [POST]: 1 })
    expect(first.record?.requests, 'the pass’s requests were not charged to its lane').toEqual({
      [net.name]: 6,
    })
    expect(await store.get('dead')).toMatchObject({ relaunchRequestedAt: now, settledAt: now })
    expect(await store.get('closed')).toMatchObject({ settledAt: now })
    expect(logged(first.log, 'info', 'posted the synthetic failure')).toHaveLength(1)
    expect(
      logged(first.log, 'info', 'merge-gate sweep: deep pass offered 3 run(s) over 1 page(s)'),
    ).toHaveLength(1)

    h.reset()
    const next = new Date(now.getTime() + 60_000)
    const second = await runOnePass(net, {
      forge: h.sandbox,
      slot: next,
      now: () => next,
      publicUrl: PUBLIC_URL,
    })
    expect(second.record).toMatchObject({ outcome: 'ok' })
    // dead settled when its failure was posted, so it is not read back; healthy is read again; nothing is posted.
    expect(h.requests(), 'the posted failure was read back, paying a point').toEqual({
      [PULL]: 1,
      [STATUS]: 1,
    })
    expect(await store.get('dead')).toMatchObject({ settledAt: now })
    const repo = h.sandbox.store.repo('acme', 'widgets')!
    expect(h.sandbox.store.statusesOf(repo, dead.headSha).map((s) => s.state)).toEqual(['failure', 'pending'])
    expect(h.sandbox.store.statusesOf(repo, healthy.headSha).map((s) => s.state)).toEqual(['pending'])
  })
})

describe('a merge-gate sweep pass in the run ledger', () => {
  // The harness's forge does not retry, so one armed fault fails one offer.
  /** Two dead runs on their own pulls, so each offer reads its own pull. */
  async function twoDeadRuns(store: MemoryGateRunStore): Promise<number[]> {
    const pulls: number[] = []
    for (const id of ['first', 'second']) {
      const pull = h.sandbox.store.addPull('acme', 'widgets')
      await recordGatingRun(store, {
        id,
        repo: 'acme/widgets',
        gateContext: 'review/verdict',
        pull: pull.number,
        headSha: pull.headSha,
        state: 'died',
        updatedAt: ago(20),
      })
      pulls.push(pull.number)
    }
    return pulls
  }

  it('is recorded failed, with the first failure as its cause, when every offer of the pass failed', async () => {
    const store = new MemoryGateRunStore()
    await twoDeadRuns(store)
    const fault = await h.sandbox.admin.addFault({
      kind: 'status',
      status: 502,
      method: 'GET',
      path: '/repos/acme/widgets/pulls/*',
    })
    try {
      const run = await runOnePass(createMergeGateSweeper({ store }), {
        forge: h.forge,
        slot: now,
        now: () => now,
        publicUrl: PUBLIC_URL,
      })
      expect(run.outcome, 'a pass that settled nothing reads as a success to status and alerts').toBe(
        'failed',
      )
      expect(run.record).toMatchObject({ outcome: 'failed' })
      expect(run.record?.error).toMatch(/merge-gate sweeper: sweep .*all 2 offer\(s\) of the pass failed/)
      expect(run.record?.error, 'the ledger does not say why the offers failed').toMatch(/502/)
      expect((await store.get('first'))?.settledAt, 'a failed offer settled its run').toBeUndefined()
    } finally {
      await h.sandbox.admin.clearFaults(fault)
    }
  })

  it('is recorded ok when some offers went through, the failed ones logged to be offered again', async () => {
    const store = new MemoryGateRunStore()
    const [first] = await twoDeadRuns(store)
    // On the first run's pull only: the second run's offer goes through.
    const fault = await h.sandbox.admin.addFault({
      kind: 'status',
      status: 502,
      method: 'GET',
      path: `/repos/acme/widgets/pulls/${first}`,
    })
    try {
      const run = await runOnePass(createMergeGateSweeper({ store }), {
        forge: h.forge,
        slot: now,
        now: () => now,
        publicUrl: PUBLIC_URL,
      })
      expect(run.record, 'a pass that settled a run was recorded as failed').toMatchObject({ outcome: 'ok' })
      expect(logged(run.log, 'warn', 'an offer failed')).toHaveLength(1)
      expect((await store.get('first'))?.settledAt, 'a failed offer settled its run').toBeUndefined()
      expect((await store.get('second'))?.settledAt, 'the offer that went through settled nothing').toEqual(
        now,
      )
    } finally {
      await h.sandbox.admin.clearFaults(fault)
    }
  })
})

/** The lines of `level` whose message contains `text`. */
function logged(lines: PassLogLine[], level: string, text: string): PassLogLine[] {
  return lines.filter((l) => l.level === level && l.msg.includes(text))
}
