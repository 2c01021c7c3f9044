/**
 * The reconciler against the real sandbox over HTTP, with a real forge client: each branch, checked by the
 * requests the sandbox itself counted and the statuses it holds.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createForge } from '../../../src/forge/client/github-app.js'
import { InstallationTokenError } from '../../../src/forge/installations/installation-token-error.js'
import { withLane } from '../../../src/forge/lane.js'
import type { GatingRun } from '../../../src/nets/merge-gate/gate-run.js'
import { GateRunError } from '../../../src/nets/merge-gate/gate-run-error.js'
import { MemoryGateRunStore } from '../../../src/nets/merge-gate/memory-gate-run-store.js'
import { Reconciler } from '../../../src/nets/merge-gate/reconciler.js'
import { captureLogs } from '../../support/log-capture.js'
import { startSandboxHarness, type SandboxHarness } from '../../support/sandbox-harness.js'

const PULL = 'GET /repos/:owner/:repo/pulls/:number'
const STATUS = 'GET /repos/:owner/:repo/commits/:ref/status'
const POST = 'POST /repos/:owner/:repo/statuses/:sha'
const PUBLIC_URL = 'https://review.example.test'
const CONTEXT = 'review/verdict'
const now = new Date('2026-09-30T15:00:00.000Z')
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000)

let h: SandboxHarness
let store: MemoryGateRunStore
let reconciler: Reconciler
let runs = 0

beforeAll(async () => {
  h = await startSandboxHarness({ fixture: { repos: [{ owner: 'acme', name: 'widgets' }] } })
})
afterAll(async () => {
  await h?.close()
})
beforeEach(() => {
  store = new MemoryGateRunStore()
  reconciler = new Reconciler({
    store,
    publicUrl: PUBLIC_URL,
    staleAfterMs: 30 * 60_000,
    defaultGateContext: CONTEXT,
  })
  h.reset()
})

/** Opens a pull request in the sandbox and records a gating run on its head. */
async function openRun(fields: Partial<GatingRun> = {}, claim = true): Promise<GatingRun> {
  const pull = h.sandbox.store.addPull('acme', 'widgets')
  const run: GatingRun = {
    id: `run-${++runs}`,
    repo: 'acme/widgets',
    pull: pull.number,
    headSha: pull.headSha,
    gateContext: CONTEXT,
    state: 'running',
    updatedAt: minutesAgo(5),
    ...fields,
  }
  await store.record(run)
  if (claim) {
    h.sandbox.store.addStatus('acme', 'widgets', run.headSha, {
      state: 'pending',
      context: run.gateContext ?? CONTEXT,
      description: 'review running',
      targetUrl: `${PUBLIC_URL}/runs/${run.id}`,
    })
  }
  h.reset()
  return run
}

/** The latest status per context on `sha`, as the combined status shows it. */
function gateStatuses(sha: string) {
  const repo = h.sandbox.store.repo('acme', 'widgets')!
  return h.sandbox.store.statusesOf(repo, sha).filter((s) => s.context === CONTEXT)
}

const offer = (run: GatingRun, r = reconciler) =>
  withLane('merge-gate-sweeper', () => r.offer(run, { forge: h.forge.octokit, now }))

describe('reconciler: the pull request first', () => {
  it('settles a run whose pull request was closed, after one read', async () => {
    const run = await openRun({ state: 'died' })
    h.sandbox.store.closePull('acme', 'widgets', run.pull)
    expect(await offer(run)).toBe('settled-pull-closed')
    expect(h.requests()).toEqual({ [PULL]: 1 })
    expect((await store.get(run.id))?.settledAt).toEqual(now)
    expect(gateStatuses(run.headSha).map((s) => s.state)).toEqual(['pending'])
  })

  it('settles nothing when the App has no token for its installation (a wrong id answers the mint 404)', async () => {
    const run = await openRun({ state: 'died' })
    const sandbox = h.sandbox
    const config = {
      appId: sandbox.appId,
      installationId: 999,
      privateKey: sandbox.privateKey,
      apiUrl: sandbox.url,
    }
    const wrong = createForge({ config, logger: captureLogs().logger })
    try {
      const offered = withLane('merge-gate-sweeper', () =>
        reconciler.offer(run, { forge: wrong.octokit, now }),
      )
      const error = await offered.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, 'a refused token mint was read as "the pull request is gone"').toBeInstanceOf(Error)
      const cause = (error as Error).cause
      expect(cause).toBeInstanceOf(InstallationTokenError)
      expect(cause).toMatchObject({ code: 'FORGE_INSTALLATION_TOKEN', installationId: 999, mintStatus: 404 })
      expect((cause as { status?: unknown }).status, 'the mint’s 404 passed for the pull’s').toBeUndefined()
      expect((cause as Error).message).toMatch(/installation 999: .*404 \(not an installation of this App/)
      expect(
        (await store.get(run.id))?.settledAt,
        'the run was settled without its pull being read',
      ).toBeUndefined()
    } finally {
      await wrong.close()
    }
  })

  it('settles a run whose pull request was merged', async () => {
    const run = await openRun({ state: 'died' })
    h.sandbox.store.closePull('acme', 'widgets', run.pull, true)
    expect(await offer(run)).toBe('settled-pull-merged')
    expect(h.requests()).toEqual({ [PULL]: 1 })
  })

  it('settles a run whose head moved, and posts nothing on the old head', async () => {
    const run = await openRun({ state: 'died' })
    h.sandbox.store.moveHead('acme', 'widgets', run.pull)
    expect(await offer(run)).toBe('settled-head-moved')
    expect(h.requests()).toEqual({ [PULL]: 1 })
    expect(gateStatuses(run.headSha).map((s) => s.state)).toEqual(['pending'])
    expect((await store.get(run.id))?.relaunchRequestedAt).toBeUndefined()
  })

  it('settles a run whose pull request does not exist', async () => {
    const run = await openRun({ state: 'died', pull: 9999 }, false)
    expect(await offer(run)).toBe('settled-pull-gone')
    expect(h.requests()).toEqual({ [PULL]: 1 })
  })

  it('sends nothing for a run already settled', async () => {
    const run = await openRun({ state: 'died', settledAt: minutesAgo(1) })
    expect(await offer(run)).toBe('already-settled')
    expect(h.requests()).toEqual({})
  })
})

describe('reconciler: a real verdict', () => {
  for (const state of ['success', 'failure', 'error'] as const) {
    it(`settles on a real ${state} verdict and never overwrites it, though the run is dead`, async () => {
      const run = await openRun({ state: 'died' })
      h.sandbox.store.addStatus('acme', 'widgets', run.headSha, {
        state,
        context: CONTEXT,
        description: 'the review said so',
        targetUrl: `${PUBLIC_URL}/runs/${run.id}`,
      })
      h.reset()
      expect(await offer(run)).toBe('settled-verdict')
      expect(h.requests()).toEqual({ [PULL]: 1, [STATUS]: 1 })
      expect(gateStatuses(run.headSha)[0]).toMatchObject({ state, description: 'the review said so' })
      expect(await store.get(run.id)).toMatchObject({ settledAt: now, relaunchRequestedAt: undefined })
    })
  }

  it("counts another run's pending status on the context as a verdict that is not this run's", async () => {
    const run = await openRun({ state: 'died' }, false)
    h.sandbox.store.addStatus('acme', 'widgets', run.headSha, {
      state: 'pending',
      context: CONTEXT,
      targetUrl: `${PUBLIC_URL}/runs/someone-else`,
    })
    h.reset()
    expect(await offer(run)).toBe('settled-verdict')
    expect(h.requests()).toEqual({ [PULL]: 1, [STATUS]: 1 })
  })
})

describe('reconciler: a dead review', () => {
  it('posts the synthetic failure over its own pending claim and asks for a relaunch', async () => {
    const run = await openRun({ state: 'died', reason: 'runner evicted' })
    expect(await offer(run)).toBe('posted-failure')
    expect(h.requests()).toEqual({ [PULL]: 1, [STATUS]: 1, [POST]: 1 })
    expect(gateStatuses(run.headSha)[0]).toMatchObject({
      state: 'failure',
      context: CONTEXT,
      description: 'review died (runner evicted) — push again to re-run',
      targetUrl: `${PUBLIC_URL}/runs/${run.id}`,
    })
    expect(await store.get(run.id), 'the posted failure is the verdict: the run is settled').toMatchObject({
      relaunchRequestedAt: now,
      settledAt: now,
    })
  })

  it('sends nothing on a second offer of the run it posted for: its failure is not read back', async () => {
    const run = await openRun({ state: 'failed' })
    expect(await offer(run)).toBe('posted-failure')
    h.reset()
    expect(await offer((await store.get(run.id))!)).toBe('already-settled')
    expect(h.requests(), 'reading back our own failure pays a rate-limit point for nothing').toEqual({})
    expect(gateStatuses(run.headSha).map((s) => s.state)).toEqual(['failure', 'pending'])
  })

  it('posts when the gate context has no status at all', async () => {
    const run = await openRun({ state: 'failed' }, false)
    expect(await offer(run)).toBe('posted-failure')
    expect(gateStatuses(run.headSha).map((s) => s.description)).toEqual([
      'review died (failed) — push again to re-run',
    ])
  })

  it('counts a running run silent for exactly staleAfter as dead, and one minute less as healthy', async () => {
    const healthy = await openRun({ state: 'running', updatedAt: minutesAgo(29) })
    expect(await offer(healthy)).toBe('healthy')
    expect(h.requests()).toEqual({ [PULL]: 1, [STATUS]: 1 })
    expect(await store.get(healthy.id)).toMatchObject({
      settledAt: undefined,
      relaunchRequestedAt: undefined,
    })

    const stale = await openRun({ state: 'running', updatedAt: minutesAgo(30) })
    expect(await offer(stale)).toBe('posted-failure')
    expect(gateStatuses(stale.headSha)[0]?.description).toBe(
      'review died (no word from the review for 30 min) — push again to re-run',
    )
  })

  it('does nothing for a succeeded run whose verdict is not posted yet: that verdict is the review’s', async () => {
    const run = await openRun({ state: 'succeeded' })
    expect(await offer(run)).toBe('healthy')
    expect(h.requests()).toEqual({ [PULL]: 1, [STATUS]: 1 })
  })

  it('clips a long reason to 60 characters, keeping the description within GitHub’s 140', async () => {
    const run = await openRun({ state: 'died', reason: `out of memory ${'x'.repeat(200)}` })
    expect(await offer(run)).toBe('posted-failure')
    const description = gateStatuses(run.headSha)[0]!.description!
    expect(description).toBe(`review died (out of memory ${'x'.repeat(45)}…) — push again to re-run`)
    expect(description.length).toBeLessThanOrEqual(140)
  })

  it('uses the default gate context for a run that names none', async () => {
    const other = new Reconciler({
      store,
      publicUrl: PUBLIC_URL,
      staleAfterMs: 30 * 60_000,
      defaultGateContext: 'ci/gate',
    })
    const run = await openRun({ state: 'died', gateContext: undefined }, false)
    expect(await offer(run, other)).toBe('posted-failure')
    const repo = h.sandbox.store.repo('acme', 'widgets')!
    expect(h.sandbox.store.statusesOf(repo, run.headSha).map((s) => s.context)).toEqual(['ci/gate'])
  })

  it('without PUBLIC_URL, takes a pending status with no target as the claim and posts no target', async () => {
    const bare = new Reconciler({ store, staleAfterMs: 30 * 60_000, defaultGateContext: CONTEXT })
    const run = await openRun({ state: 'died' }, false)
    h.sandbox.store.addStatus('acme', 'widgets', run.headSha, { state: 'pending', context: CONTEXT })
    h.reset()
    expect(await offer(run, bare)).toBe('posted-failure')
    expect(gateStatuses(run.headSha)[0]).toMatchObject({ state: 'failure', targetUrl: null })
  })

  it('marks the relaunch without posting again when an earlier offer posted but did not get to mark', async () => {
    const run = await openRun({ state: 'died' })
    h.sandbox.store.addStatus('acme', 'widgets', run.headSha, {
      state: 'failure',
      context: CONTEXT,
      description: 'review died (died) — push again to re-run',
      targetUrl: `${PUBLIC_URL}/runs/${run.id}`,
    })
    h.reset()
    expect(await offer(run)).toBe('settled-verdict')
    expect(h.requests()).toEqual({ [PULL]: 1, [STATUS]: 1 })
    expect(await store.get(run.id)).toMatchObject({ relaunchRequestedAt: now, settledAt: now })
  })

  it('leaves the same end state when two reconcilers offer the same run concurrently', async () => {
    const run = await openRun({ state: 'died', reason: 'oom' })
    const second = new Reconciler({
      store,
      publicUrl: PUBLIC_URL,
      staleAfterMs: 30 * 60_000,
      defaultGateContext: CONTEXT,
    })
    const secondForge = h.secondForge()
    await secondForge.octokit.request('GET /rate_limit')
    h.reset()
    const outcomes = await Promise.all([
      offer(run),
      withLane('merge-gate-sweeper', () => second.offer(run, { forge: secondForge.octokit, now })),
    ])
    // Both read the pending claim before either wrote, or one saw the other's failure: either way the
    // gate ends failed with the one description, and the run marked once.
    expect(outcomes).toContain('posted-failure')
    const posts = h.requests()[POST] ?? 0
    expect(posts).toBeGreaterThanOrEqual(1)
    expect(posts).toBeLessThanOrEqual(2)
    const latest = gateStatuses(run.headSha)[0]
    expect(latest).toMatchObject({
      state: 'failure',
      description: 'review died (oom) — push again to re-run',
    })
    expect((await store.get(run.id))?.relaunchRequestedAt).toEqual(now)
    // Settled by whichever posted: the next offer, by either, sends nothing.
    expect((await store.get(run.id))?.settledAt).toEqual(now)
    h.reset()
    expect(await offer((await store.get(run.id))!)).toBe('already-settled')
    expect(h.requests()).toEqual({})
  })
})

describe('reconciler: failures and lanes', () => {
  it('charges every request of an offer to the lane it runs in', async () => {
    const before = laneCount('merge-gate-sweeper')
    const run = await openRun({ state: 'died' })
    await offer(run)
    expect(laneCount('merge-gate-sweeper') - before).toBe(3)
  })

  it('rejects GATE_RUN_OFFER_FAILED naming the step, with the forge error as cause, and marks nothing', async () => {
    const run = await openRun({ state: 'died' })
    await h.sandbox.admin.addFault({
      kind: 'status',
      status: 500,
      path: '/repos/acme/widgets/commits/*/status',
      times: 1,
    })
    const error = await offer(run).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GateRunError)
    expect(error).toMatchObject({ code: 'GATE_RUN_OFFER_FAILED', operation: 'read-status', runId: run.id })
    expect((error as Error).cause).toMatchObject({ status: 500 })
    expect(await store.get(run.id)).toMatchObject({ settledAt: undefined, relaunchRequestedAt: undefined })
    expect(gateStatuses(run.headSha).map((s) => s.state)).toEqual(['pending'])
  })

  it('refuses a bad configuration', () => {
    expect(() => new Reconciler({ store, staleAfterMs: 0, defaultGateContext: CONTEXT })).toThrow(
      /staleAfterMs/,
    )
    expect(() => new Reconciler({ store, staleAfterMs: 1000, defaultGateContext: ' ' })).toThrow(
      /defaultGateContext/,
    )
  })
})

function laneCount(lane: string): number {
  return h.forge.meter
    .totals()
    .filter((t) => t.lane === lane)
    .reduce((sum, t) => sum + t.count, 0)
}
