/**
 * The demo's gating runs: given a sandbox fixture (generated repositories and pull requests), plans
 * gating runs consistent with it — and the commit statuses they imply — so `npm start` with no
 * configuration shows the merge-gate sweeper doing real work. For every open, non-draft pull request, in
 * turn:
 *
 *   healthy     running, updated 5 min ago, its pending claim on the head   → left alone
 *   dead        died 20 min ago, its pending claim still on the head        → failure posted, relaunch asked
 *   verdict     succeeded/failed 15 min ago, a real verdict on the head     → settled, never overwritten
 *   head-moved  died 25 min ago on an older head (claim on the old commit)  → settled quietly
 *
 * All four lie inside the shallow window (3-60 min old), so the first pass repairs every dead review and
 * the next posts nothing. Deterministic: the same fixture and options give the same plan.
 *
 * Not the sandbox's generator (it takes the fixture as it is) and not a store: `seedDemoGatingRuns`
 * records the plan in whichever GateRunStore the sweeper uses.
 */
import { createHash } from 'node:crypto'
import type { SandboxFixture, SandboxFixtureStatus } from '../sandbox/sandbox-fixture.js'
import type { GatingRun } from './merge-gate/gate-run.js'
import type { GateRunCallOptions, GateRunStore } from './merge-gate/gate-run-store.js'
import { DEFAULT_GATE_CONTEXT } from './merge-gate/merge-gate-sweeper.js'
import { recordGatingRun } from './merge-gate/record-gating-run.js'

/** The four kinds of demo run. */
export type DemoRunKind = 'healthy' | 'dead' | 'verdict' | 'head-moved'
const KINDS: readonly DemoRunKind[] = ['healthy', 'dead', 'verdict', 'head-moved']

export interface DemoGatingRunOptions {
  /** The instant the demo starts at: runs are dated back from it. */
  now: Date
  /** PUBLIC_URL as the worker will see it; claims and verdicts link `<publicUrl>/runs/<id>` when set. */
  publicUrl?: string | undefined
  /** The gate context of every run; the sweeper's default when absent. */
  gateContext?: string
  /**
   * The installation a repository owner's runs name (`leasecron sandbox --installations N`), so that
   * installation's sweeper settles them; runs name none when absent or when it answers undefined.
   */
  installationOf?: (owner: string) => number | undefined
}

/** A plan: the fixture with the runs' statuses added, and the runs by kind. */
export interface DemoGatingRunPlan {
  fixture: SandboxFixture
  runs: GatingRun[]
  kinds: Record<DemoRunKind, string[]>
}

/**
 * Plans the demo's gating runs over `fixture` (see the module doc). Returns a new fixture — the input is
 * not changed — whose repositories carry the claims and verdicts; start the sandbox with it. Throws
 * RangeError when `now` is not a valid Date.
 */
export function planDemoGatingRuns(
  fixture: SandboxFixture,
  options: DemoGatingRunOptions,
): DemoGatingRunPlan {
  const now = options.now
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new RangeError(`demo seed: now must be a valid Date, got ${String(now)}`)
  }
  const gateContext = options.gateContext ?? DEFAULT_GATE_CONTEXT
  const publicUrl = options.publicUrl?.trim().replace(/\/+$/, '') || undefined
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000)
  const iso = (d: Date) => d.toISOString()
  const runs: GatingRun[] = []
  const kinds: Record<DemoRunKind, string[]> = { healthy: [], dead: [], verdict: [], 'head-moved': [] }
  let turn = 0
  const repos = fixture.repos.map((repo) => {
    const statuses: SandboxFixtureStatus[] = [...repo.statuses]
    for (const pull of repo.pulls) {
      if (pull.state !== 'open' || pull.draft || pull.number === undefined || pull.headSha === undefined)
        continue
      const kind = KINDS[turn++ % KINDS.length]!
      const id = `demo.${repo.owner}.${repo.name}-${pull.number}`.slice(0, 200)
      const targetUrl = publicUrl === undefined ? null : `${publicUrl}/runs/${encodeURIComponent(id)}`
      const status = (sha: string, state: SandboxFixtureStatus['state'], description: string, at: Date) =>
        statuses.push({ sha, state, context: gateContext, description, targetUrl, createdAt: iso(at) })
      const installation = options.installationOf?.(repo.owner)
      const base = {
        id,
        repo: `${repo.owner}/${repo.name}`,
        pull: pull.number,
        headSha: pull.headSha,
        gateContext,
        ...(installation === undefined ? {} : { installation }),
      }
      if (kind === 'healthy') {
        runs.push({ ...base, state: 'running', updatedAt: minutesAgo(5) })
        status(pull.headSha, 'pending', 'review running', minutesAgo(8))
      } else if (kind === 'dead') {
        runs.push({ ...base, state: 'died', reason: 'runner evicted', updatedAt: minutesAgo(20) })
        status(pull.headSha, 'pending', 'review running', minutesAgo(40))
      } else if (kind === 'verdict') {
        const passed = kinds.verdict.length % 2 === 0
        runs.push({ ...base, state: passed ? 'succeeded' : 'failed', updatedAt: minutesAgo(15) })
        status(
          pull.headSha,
          passed ? 'success' : 'failure',
          passed ? 'review passed' : 'review found problems',
          minutesAgo(15),
        )
      } else {
        const oldHead = createHash('sha1').update(`${base.repo}#${pull.number}:before-the-push`).digest('hex')
        runs.push({
          ...base,
          headSha: oldHead,
          state: 'died',
          reason: 'runner evicted',
          updatedAt: minutesAgo(25),
        })
        status(oldHead, 'pending', 'review running', minutesAgo(45))
      }
      kinds[kind].push(id)
    }
    return { ...repo, statuses }
  })
  return { fixture: { ...fixture, repos }, runs, kinds }
}

/**
 * Records every run of `plan` in `store` (validated, as an embedder's would be); resolves their count.
 * `options.signal` bounds every store call.
 */
export async function seedDemoGatingRuns(
  store: GateRunStore,
  plan: DemoGatingRunPlan,
  options?: GateRunCallOptions,
): Promise<number> {
  for (const run of plan.runs) await recordGatingRun(store, run, options)
  return plan.runs.length
}
