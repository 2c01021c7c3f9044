/**
 * Generates a deterministic sandbox fixture — repositories, pull requests in every state, commit
 * statuses and issues from authors of every association — from a seed, for tests, benchmarks and the
 * zero-config `npm start`. Not random per run: the same options give the same fixture.
 */
import { createSeededRandom, type SeededRandom } from './seeded-random.js'
import type {
  SandboxFixture,
  SandboxFixtureIssue,
  SandboxFixturePull,
  SandboxFixtureStatus,
} from './sandbox-fixture.js'

/** What to generate. */
export interface SandboxGeneratorOptions {
  repos: number
  pullsPerRepo: number
  issuesPerRepo: number
  seed: number
  /** The owner of every generated repository; `sandbox-org` by default. */
  owner?: string
  /** The instant generated times lead up to; 2026-09-30T12:00:00Z by default so output is stable. */
  now?: Date
}

const HOUR = 3_600_000
const AUTHORS = [
  { user: 'octocat', association: 'OWNER' },
  { user: 'mona', association: 'MEMBER' },
  { user: 'hubot', association: 'COLLABORATOR' },
  { user: 'drive-by', association: 'CONTRIBUTOR' },
  { user: 'newcomer', association: 'FIRST_TIME_CONTRIBUTOR' },
  { user: 'stranger', association: 'NONE' },
] as const
const LABELS = ['bug', 'enhancement', 'documentation', 'good first issue', 'question']
const CHECKS = ['ci/build', 'ci/test']

/**
 * Builds the fixture: repo-1…repo-N; each repo's pulls numbered 1…pullsPerRepo (about 70% open, 15%
 * merged, 15% closed, 10% drafts) with CI statuses on most heads, then issues numbered after them (about
 * 65% open), all updated within the 192 hours before `now`. Throws RangeError on negative counts.
 */
export function generateSandboxFixture(options: SandboxGeneratorOptions): SandboxFixture {
  for (const field of ['repos', 'pullsPerRepo', 'issuesPerRepo'] as const) {
    const n = options[field]
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(`sandbox generator: ${field} must be a non-negative integer, got ${String(n)}`)
    }
  }
  const random = createSeededRandom(options.seed)
  const now = (options.now ?? new Date('2026-09-30T12:00:00Z')).getTime()
  const repos: SandboxFixture['repos'] = []
  // One stream in a fixed order (a repo's pulls with their statuses, then its issues), so a seed
  // always yields the same fixture.
  for (let r = 1; r <= options.repos; r++) {
    const { pulls, statuses } = generatePulls(random, r, options.pullsPerRepo, now)
    const issues = generateIssues(random, r, options, now)
    repos.push({
      owner: options.owner ?? 'sandbox-org',
      name: `repo-${r}`,
      id: 100_000 + r,
      private: false,
      defaultBranch: 'main',
      formerNames: [],
      pulls,
      issues,
      statuses,
    })
  }
  return { repos }
}

function generatePulls(random: SeededRandom, r: number, count: number, now: number) {
  const pulls: SandboxFixturePull[] = []
  const statuses: SandboxFixtureStatus[] = []
  for (let n = 1; n <= count; n++) {
    const author = random.pick(AUTHORS)
    const updated = now - random.int(1, 192 * HOUR)
    const created = updated - random.int(0, 72 * HOUR)
    const roll = random.next()
    const state = roll < 0.7 ? 'open' : 'closed'
    const merged = roll >= 0.7 && roll < 0.85
    const headSha = random.hex(40)
    pulls.push({
      number: n,
      title: `Change ${r}.${n}`,
      body: null,
      state,
      merged,
      draft: state === 'open' && random.next() < 0.1,
      headSha,
      headRef: `feature/${r}-${n}`,
      baseRef: 'main',
      user: author.user,
      authorAssociation: author.association,
      labels: [],
      createdAt: iso(created),
      updatedAt: iso(updated),
      closedAt: state === 'closed' ? iso(updated) : null,
    })
    statuses.push(...generateStatuses(random, headSha, updated))
  }
  return { pulls, statuses }
}

/** CI statuses on a head: each check reported with probability 0.8. */
function generateStatuses(random: SeededRandom, sha: string, updated: number): SandboxFixtureStatus[] {
  const statuses: SandboxFixtureStatus[] = []
  for (const context of CHECKS) {
    if (random.next() >= 0.8) continue
    statuses.push({
      sha,
      state: random.pick(['success', 'success', 'success', 'failure', 'pending'] as const),
      context,
      description: `${context} finished`,
      targetUrl: null,
      createdAt: iso(updated - random.int(0, HOUR)),
    })
  }
  return statuses
}

function generateIssues(random: SeededRandom, r: number, options: SandboxGeneratorOptions, now: number) {
  const issues: SandboxFixtureIssue[] = []
  for (let i = 1; i <= options.issuesPerRepo; i++) {
    const author = random.pick(AUTHORS)
    const updated = now - random.int(1, 192 * HOUR)
    const open = random.next() < 0.65
    const labels = LABELS.filter(() => random.next() < 0.25)
    issues.push({
      number: options.pullsPerRepo + i,
      title: `Issue ${r}.${i}`,
      body: null,
      state: open ? 'open' : 'closed',
      stateReason: open ? null : 'completed',
      user: author.user,
      authorAssociation: author.association,
      labels,
      createdAt: iso(updated - random.int(0, 240 * HOUR)),
      updatedAt: iso(updated),
      closedAt: open ? null : iso(updated),
    })
  }
  return issues
}

function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}
