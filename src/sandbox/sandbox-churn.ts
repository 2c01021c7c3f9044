/**
 * Churn: changes a stated fraction of the sandbox's pull requests, commit statuses and issues, chosen
 * by a seed, so a benchmark can run its passes at a stated churn and get the same changes for the
 * same seed. A touched pull request or issue gets a later `updated_at` (as a comment or an edit
 * would); a touched head commit gets its latest status re-reported with the same state (as a CI
 * re-run would), so verdicts and the nets' work do not change — only the answers' etags do.
 *
 * Not random per run and not a timer (the sandbox's `churn` option calls this once a period).
 */
import { createSeededRandom } from './seeded-random.js'
import type { PullRecord, RepoRecord, SandboxStore } from './sandbox-store.js'

/** What churns. */
export type SandboxChurnKind = 'pulls' | 'statuses' | 'issues'

/** A churn request as validated (sandbox-churn-schema.ts checks the admin route's and the option's). */
export interface SandboxChurn {
  /** The share of each kind's candidates to change, 0…1 (rounded to whole records). */
  fraction: number
  /** Chooses which records change; the same seed over the same data changes the same records. */
  seed: number
  /** The kinds to churn, at least one. */
  kinds: SandboxChurnKind[]
}

/** A churn request as written: `kinds` is all three when absent. (Typed by hand: no zod in the public types.) */
export type SandboxChurnInput = Omit<SandboxChurn, 'kinds'> & { kinds?: SandboxChurnKind[] }

/** What one churn changed: `owner/name#number` for records, `owner/name@sha` for head commits. */
export interface SandboxChurnResult {
  pulls: string[]
  statuses: string[]
  issues: string[]
}

/**
 * Changes `fraction` of each kind's candidates: open pull requests, the head commits of open pull
 * requests that have a status, and open issues — in a stable order (repository id, number) from
 * which the seed picks. Returns what changed.
 */
export function churnSandbox(store: SandboxStore, input: SandboxChurn): SandboxChurnResult {
  const result: SandboxChurnResult = { pulls: [], statuses: [], issues: [] }
  const salt: Record<SandboxChurnKind, number> = { pulls: 0x70, statuses: 0x57, issues: 0x15 }
  for (const kind of input.kinds) {
    const candidates = candidatesOf(store, kind)
    const chosen = pick(candidates, Math.round(input.fraction * candidates.length), input.seed ^ salt[kind])
    for (const { repo, pull, number } of chosen) result[kind].push(change(store, kind, repo, pull, number))
  }
  return result
}

interface Candidate {
  repo: RepoRecord
  number: number
  pull?: PullRecord
}

function candidatesOf(store: SandboxStore, kind: SandboxChurnKind): Candidate[] {
  const out: Candidate[] = []
  for (const repo of store.repos()) {
    if (kind === 'issues') {
      for (const issue of repo.issues.values())
        if (issue.state === 'open') out.push({ repo, number: issue.number })
      continue
    }
    for (const pull of repo.pulls.values()) {
      if (pull.state !== 'open') continue
      if (kind === 'statuses' && !repo.statuses.some((s) => s.sha === pull.headSha)) continue
      out.push({ repo, number: pull.number, pull })
    }
  }
  return out.sort((a, b) => a.repo.id - b.repo.id || a.number - b.number)
}

/** `count` distinct items chosen by a seeded partial Fisher–Yates shuffle, in candidate order. */
function pick<T>(items: T[], count: number, seed: number): T[] {
  const random = createSeededRandom(seed)
  const order = items.map((_, i) => i)
  for (let i = 0; i < count; i++) {
    const j = random.int(i, order.length - 1)
    ;[order[i], order[j]] = [order[j] as number, order[i] as number]
  }
  return order
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((i) => items[i] as T)
}

function change(
  store: SandboxStore,
  kind: SandboxChurnKind,
  repo: RepoRecord,
  pull: PullRecord | undefined,
  number: number,
): string {
  const full = `${repo.owner}/${repo.name}`
  if (kind !== 'statuses' || pull === undefined) {
    store.touch(repo, number)
    return `${full}#${number}`
  }
  const latest = store.statusesOf(repo, pull.headSha)[0]
  if (latest !== undefined) {
    store.addStatusTo(repo, pull.headSha, {
      state: latest.state,
      context: latest.context,
      description: latest.description,
      targetUrl: latest.targetUrl,
      creator: latest.creator,
    })
  }
  return `${full}@${pull.headSha}`
}
