/**
 * The sandbox's data: repositories, pull requests, issues and commit statuses, held in memory and
 * changed only through these methods (the REST routes and the `/_sandbox` mutation routes both call
 * them). Pull requests and issues share one number sequence per repository, as on GitHub.
 *
 * Not a renderer (see `sandbox-shapes.ts` for GitHub's JSON) and not persistent.
 */
import { createSeededRandom, type SeededRandom } from './seeded-random.js'
import type {
  SandboxAuthorAssociation,
  SandboxFixture,
  SandboxFixtureIssue,
  SandboxFixturePull,
  SandboxFixtureStatus,
} from './sandbox-fixture.js'

export type StatusState = 'error' | 'failure' | 'pending' | 'success'
/** GitHub's author association, as the fixture declares it (one list of GitHub's words). */
export type AuthorAssociation = SandboxAuthorAssociation

export interface PullRecord {
  number: number
  id: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  merged: boolean
  draft: boolean
  headSha: string
  headRef: string
  baseRef: string
  user: string
  authorAssociation: AuthorAssociation
  labels: string[]
  createdAt: number
  updatedAt: number
  closedAt: number | null
  mergedAt: number | null
}

export interface IssueRecord {
  number: number
  id: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  stateReason: 'completed' | 'not_planned' | 'reopened' | null
  user: string
  authorAssociation: AuthorAssociation
  labels: string[]
  createdAt: number
  updatedAt: number
  closedAt: number | null
}

export interface StatusRecord {
  id: number
  sha: string
  state: StatusState
  context: string
  description: string | null
  targetUrl: string | null
  createdAt: number
  creator: string
}

export interface RepoRecord {
  id: number
  owner: string
  name: string
  private: boolean
  defaultBranch: string
  createdAt: number
  pulls: Map<number, PullRecord>
  issues: Map<number, IssueRecord>
  /** Every status ever posted, in creation order (the combined status reads the latest per context). */
  statuses: StatusRecord[]
  /** Commits the repository knows: every head a pull ever had, and every sha a status names. */
  commits: Set<string>
  nextNumber: number
}

/** Fields a new pull request may set; the rest default. */
export interface NewPull {
  title?: string
  headSha?: string
  headRef?: string
  draft?: boolean
  user?: string
  authorAssociation?: AuthorAssociation
}

/** Fields a new issue may set; the rest default. */
export interface NewIssue {
  title?: string
  body?: string | null
  state?: 'open' | 'closed'
  user?: string
  authorAssociation?: AuthorAssociation
  labels?: string[]
}

/** Fields an issue update may change. */
export interface IssuePatch {
  title?: string
  state?: 'open' | 'closed'
  labels?: string[]
}

/** A status to post. */
export interface NewStatus {
  state: StatusState
  context?: string
  description?: string | null
  targetUrl?: string | null
  creator?: string
}

/** Thrown by the store for a missing repository, pull, issue or commit; routes answer 404/422. */
export class SandboxNotFoundError extends Error {
  override readonly name = 'SandboxNotFoundError'
  readonly code = 'SANDBOX_NOT_FOUND'
}

/** The in-memory forge data. `clock` stamps every change. */
export class SandboxStore {
  readonly #repos = new Map<string, RepoRecord>()
  readonly #byId = new Map<number, RepoRecord>()
  /** Old `owner/name` (lowercase) → repository id, for the renamed-repository redirect. */
  readonly #formerNames = new Map<string, number>()
  readonly #clock: () => number
  readonly #random: SeededRandom
  #nextId = 1_000_000

  constructor(clock: () => number, seed = 1) {
    this.#clock = clock
    this.#random = createSeededRandom(seed ^ 0x5eed)
  }

  /** Adds every repository of a validated fixture; numbers left out are assigned in order. */
  seed(fixture: SandboxFixture): void {
    const now = this.#clock()
    for (const r of fixture.repos) {
      const repo = this.addRepo(r.owner, r.name, {
        id: r.id,
        private: r.private,
        defaultBranch: r.defaultBranch,
      })
      for (const former of r.formerNames) this.#formerNames.set(former.toLowerCase(), repo.id)
      const taken = new Set(
        [...r.pulls, ...r.issues].flatMap((x) => (x.number === undefined ? [] : [x.number])),
      )
      const nextFree = () => {
        while (taken.has(repo.nextNumber)) repo.nextNumber++
        taken.add(repo.nextNumber)
        return repo.nextNumber++
      }
      for (const p of r.pulls) this.#seedPull(repo, p, p.number ?? nextFree(), now)
      for (const i of r.issues) this.#seedIssue(repo, i, i.number ?? nextFree(), now)
      for (const s of r.statuses) this.#seedStatus(repo, s, now)
      repo.statuses.sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)
      repo.nextNumber = Math.max(repo.nextNumber, ...[...taken].map((n) => n + 1))
    }
  }

  #seedPull(repo: RepoRecord, p: SandboxFixturePull, number: number, now: number): void {
    const updatedAt = at(p.updatedAt, now)
    const closedAt = p.state === 'closed' ? at(p.closedAt, updatedAt) : null
    const headSha = p.headSha ?? this.#random.hex(40)
    repo.pulls.set(number, {
      number,
      id: this.#nextId++,
      title: p.title,
      body: p.body,
      state: p.state,
      merged: p.state === 'closed' && p.merged,
      draft: p.draft,
      headSha,
      headRef: p.headRef ?? `branch-${number}`,
      baseRef: p.baseRef,
      user: p.user,
      authorAssociation: p.authorAssociation,
      labels: [...p.labels],
      createdAt: at(p.createdAt, updatedAt),
      updatedAt,
      closedAt,
      mergedAt: p.state === 'closed' && p.merged ? closedAt : null,
    })
    repo.commits.add(headSha)
  }

  #seedIssue(repo: RepoRecord, i: SandboxFixtureIssue, number: number, now: number): void {
    const updatedAt = at(i.updatedAt, now)
    repo.issues.set(number, {
      number,
      id: this.#nextId++,
      title: i.title,
      body: i.body,
      state: i.state,
      stateReason: i.stateReason ?? (i.state === 'closed' ? 'completed' : null),
      user: i.user,
      authorAssociation: i.authorAssociation,
      labels: [...i.labels],
      createdAt: at(i.createdAt, updatedAt),
      updatedAt,
      closedAt: i.state === 'closed' ? at(i.closedAt, updatedAt) : null,
    })
  }

  #seedStatus(repo: RepoRecord, s: SandboxFixtureStatus, now: number): void {
    repo.commits.add(s.sha)
    repo.statuses.push({
      id: this.#nextId++,
      sha: s.sha,
      state: s.state,
      context: s.context,
      description: s.description,
      targetUrl: s.targetUrl,
      createdAt: at(s.createdAt, now),
      creator: 'sandbox-ci[bot]',
    })
  }

  /** Creates an empty repository (or returns the existing one of that name). */
  addRepo(
    owner: string,
    name: string,
    options: { id?: number; private?: boolean; defaultBranch?: string } = {},
  ) {
    const existing = this.#repos.get(key(owner, name))
    if (existing !== undefined) return existing
    const repo: RepoRecord = {
      id: options.id ?? this.#nextId++,
      owner,
      name,
      private: options.private ?? false,
      defaultBranch: options.defaultBranch ?? 'main',
      createdAt: this.#clock(),
      pulls: new Map(),
      issues: new Map(),
      statuses: [],
      commits: new Set(),
      nextNumber: 1,
    }
    this.#repos.set(key(owner, name), repo)
    this.#byId.set(repo.id, repo)
    return repo
  }

  /** All repositories, by id. */
  repos(): RepoRecord[] {
    return [...this.#byId.values()].sort((a, b) => a.id - b.id)
  }

  /** The repository named `owner/name` (case-insensitive, as GitHub), or undefined. */
  repo(owner: string, name: string): RepoRecord | undefined {
    return this.#repos.get(key(owner, name))
  }

  /** The repository with `id`, or undefined. */
  repoById(id: number): RepoRecord | undefined {
    return this.#byId.get(id)
  }

  /** The id a former `owner/name` now redirects to, or undefined. */
  renamedTo(owner: string, name: string): number | undefined {
    return this.#formerNames.get(key(owner, name))
  }

  /** Renames a repository; its old name redirects from now on. */
  rename(owner: string, name: string, to: { owner?: string; name: string }): RepoRecord {
    const repo = this.#mustRepo(owner, name)
    this.#repos.delete(key(repo.owner, repo.name))
    this.#formerNames.set(key(repo.owner, repo.name), repo.id)
    repo.owner = to.owner ?? repo.owner
    repo.name = to.name
    this.#repos.set(key(repo.owner, repo.name), repo)
    this.#formerNames.delete(key(repo.owner, repo.name))
    return repo
  }

  /** Opens a pull request with a fresh number and (unless given) a fresh head. */
  addPull(owner: string, name: string, fields: NewPull = {}): PullRecord {
    const repo = this.#mustRepo(owner, name)
    const now = this.#clock()
    const number = repo.nextNumber++
    const pull: PullRecord = {
      number,
      id: this.#nextId++,
      title: fields.title ?? `Pull request ${number}`,
      body: null,
      state: 'open',
      merged: false,
      draft: fields.draft ?? false,
      headSha: fields.headSha ?? this.#random.hex(40),
      headRef: fields.headRef ?? `branch-${number}`,
      baseRef: repo.defaultBranch,
      user: fields.user ?? 'octocat',
      authorAssociation: fields.authorAssociation ?? 'MEMBER',
      labels: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      mergedAt: null,
    }
    repo.pulls.set(number, pull)
    repo.commits.add(pull.headSha)
    return pull
  }

  /** Moves a pull request's head to `sha` (a fresh one when absent), as a push does. */
  moveHead(owner: string, name: string, number: number, sha?: string): PullRecord {
    const repo = this.#mustRepo(owner, name)
    const pull = this.#mustPull(repo, number)
    pull.headSha = sha ?? this.#random.hex(40)
    pull.updatedAt = this.#clock()
    repo.commits.add(pull.headSha)
    return pull
  }

  /** Closes a pull request, merging it when `merged`. */
  closePull(owner: string, name: string, number: number, merged = false): PullRecord {
    const pull = this.#mustPull(this.#mustRepo(owner, name), number)
    const now = this.#clock()
    pull.state = 'closed'
    pull.merged = merged
    pull.closedAt = now
    pull.mergedAt = merged ? now : null
    pull.updatedAt = now
    return pull
  }

  /** Files an issue with a fresh number. */
  addIssue(owner: string, name: string, fields: NewIssue = {}): IssueRecord {
    const repo = this.#mustRepo(owner, name)
    const now = this.#clock()
    const number = repo.nextNumber++
    const closed = fields.state === 'closed'
    const issue: IssueRecord = {
      number,
      id: this.#nextId++,
      title: fields.title ?? `Issue ${number}`,
      body: fields.body ?? null,
      state: closed ? 'closed' : 'open',
      stateReason: closed ? 'completed' : null,
      user: fields.user ?? 'octocat',
      authorAssociation: fields.authorAssociation ?? 'NONE',
      labels: [...(fields.labels ?? [])],
      createdAt: now,
      updatedAt: now,
      closedAt: closed ? now : null,
    }
    repo.issues.set(number, issue)
    return issue
  }

  /** Changes an issue's title, state or labels, touching updatedAt. */
  updateIssue(owner: string, name: string, number: number, patch: IssuePatch): IssueRecord {
    const repo = this.#mustRepo(owner, name)
    const issue = repo.issues.get(number)
    if (issue === undefined) throw new SandboxNotFoundError(`sandbox: no issue ${owner}/${name}#${number}`)
    const now = this.#clock()
    if (patch.title !== undefined) issue.title = patch.title
    if (patch.labels !== undefined) issue.labels = [...patch.labels]
    if (patch.state !== undefined && patch.state !== issue.state) {
      issue.state = patch.state
      issue.closedAt = patch.state === 'closed' ? now : null
      issue.stateReason = patch.state === 'closed' ? 'completed' : 'reopened'
    }
    issue.updatedAt = now
    return issue
  }

  /**
   * Marks a pull request or issue as changed (a comment, an edit): a later `updatedAt`, at least a
   * second past the last one so its JSON and etag change even under a frozen clock.
   */
  touch(repo: RepoRecord, number: number): PullRecord | IssueRecord {
    const record = repo.pulls.get(number) ?? repo.issues.get(number)
    if (record === undefined)
      throw new SandboxNotFoundError(`sandbox: no pull request or issue ${repo.owner}/${repo.name}#${number}`)
    record.updatedAt = Math.max(this.#clock(), Math.floor(record.updatedAt / 1000) * 1000 + 1000)
    return record
  }

  /** Posts a commit status; throws SandboxNotFoundError when the repository does not know the commit. */
  addStatus(owner: string, name: string, sha: string, status: NewStatus): StatusRecord {
    const repo = this.#mustRepo(owner, name)
    return this.addStatusTo(repo, sha, status)
  }

  /** `addStatus` for a repository already resolved (routes reached through `/repositories/{id}`). */
  addStatusTo(repo: RepoRecord, sha: string, status: NewStatus): StatusRecord {
    if (!repo.commits.has(sha)) throw new SandboxNotFoundError(`No commit found for SHA: ${sha}`)
    const record: StatusRecord = {
      id: this.#nextId++,
      sha,
      state: status.state,
      context: status.context ?? 'default',
      description: status.description ?? null,
      targetUrl: status.targetUrl ?? null,
      createdAt: this.#clock(),
      creator: status.creator ?? 'leasecron-sandbox[bot]',
    }
    repo.statuses.push(record)
    return record
  }

  /** Resolves a ref (a known sha, or a pull's head branch) to a sha, or undefined. */
  resolveRef(repo: RepoRecord, ref: string): string | undefined {
    if (repo.commits.has(ref)) return ref
    for (const pull of repo.pulls.values()) if (pull.headRef === ref) return pull.headSha
    return undefined
  }

  /** Every status of `sha`, newest first, as GitHub lists them. */
  statusesOf(repo: RepoRecord, sha: string): StatusRecord[] {
    return repo.statuses.filter((s) => s.sha === sha).reverse()
  }

  /**
   * The combined status of `sha`, computed as GitHub does: the latest status per context; `failure` if
   * any is error or failure, else `pending` if any is pending or there are none, else `success`.
   */
  combinedStatus(repo: RepoRecord, sha: string): { state: StatusState; statuses: StatusRecord[] } {
    const latest = new Map<string, StatusRecord>()
    for (const s of repo.statuses) if (s.sha === sha) latest.set(s.context, s)
    const statuses = [...latest.values()].sort((a, b) => a.id - b.id)
    let state: StatusState = 'success'
    if (statuses.some((s) => s.state === 'error' || s.state === 'failure')) state = 'failure'
    else if (statuses.length === 0 || statuses.some((s) => s.state === 'pending')) state = 'pending'
    return { state, statuses }
  }

  #mustRepo(owner: string, name: string): RepoRecord {
    const repo = this.repo(owner, name)
    if (repo === undefined) throw new SandboxNotFoundError(`sandbox: no repository ${owner}/${name}`)
    return repo
  }

  #mustPull(repo: RepoRecord, number: number): PullRecord {
    const pull = repo.pulls.get(number)
    if (pull === undefined)
      throw new SandboxNotFoundError(`sandbox: no pull request ${repo.owner}/${repo.name}#${number}`)
    return pull
  }
}

/** A fixture's ISO time in ms, or `fallback` when it left the time out. */
function at(iso: string | null | undefined, fallback: number): number {
  return iso == null ? fallback : Date.parse(iso)
}

function key(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase()
}
