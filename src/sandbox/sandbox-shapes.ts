/**
 * GitHub's JSON shapes for the sandbox's records: the fields GitHub's REST API returns for
 * repositories, pull requests, issues and statuses (a faithful subset; URLs point at the sandbox).
 * Not the data (see `sandbox-store.ts`); pure functions of a record and the sandbox's base URL.
 */
import type { IssueRecord, PullRecord, RepoRecord, StatusRecord, StatusState } from './sandbox-store.js'

/** GitHub's timestamp format: ISO 8601, whole seconds, `Z`. */
export function githubTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

function userShape(login: string, base: string) {
  const bot = login.endsWith('[bot]')
  return {
    login,
    id: stableId(login),
    node_id: `U_${stableId(login).toString(36)}`,
    avatar_url: `${base}/_avatars/${encodeURIComponent(login)}`,
    url: `${base}/users/${encodeURIComponent(login)}`,
    html_url: `${base}/${encodeURIComponent(login)}`,
    type: bot ? 'Bot' : 'User',
    site_admin: false,
  }
}

/** A repository as in `GET /repos/{owner}/{repo}` and `GET /installation/repositories`. */
export function repoShape(repo: RepoRecord, base: string) {
  const full = `${repo.owner}/${repo.name}`
  return {
    id: repo.id,
    node_id: `R_${repo.id.toString(36)}`,
    name: repo.name,
    full_name: full,
    private: repo.private,
    owner: { ...userShape(repo.owner, base), type: 'Organization' },
    html_url: `${base}/${full}`,
    description: null,
    fork: false,
    url: `${base}/repos/${full}`,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? 'private' : 'public',
    archived: false,
    disabled: false,
    created_at: githubTime(repo.createdAt),
    updated_at: githubTime(repo.createdAt),
    pushed_at: githubTime(repo.createdAt),
  }
}

function labelShape(name: string, repo: RepoRecord, base: string) {
  return {
    id: stableId(`${repo.id}:${name}`),
    node_id: `LA_${stableId(name).toString(36)}`,
    url: `${base}/repos/${repo.owner}/${repo.name}/labels/${encodeURIComponent(name)}`,
    name,
    color: 'ededed',
    default: false,
    description: null,
  }
}

/**
 * A pull request. `detail` adds the fields only `GET …/pulls/{n}` returns (merged, mergeable, counts);
 * the list omits them, as GitHub does.
 */
export function pullShape(pull: PullRecord, repo: RepoRecord, base: string, detail: boolean) {
  const full = `${repo.owner}/${repo.name}`
  const repoJson = repoShape(repo, base)
  const shape: Record<string, unknown> = {
    url: `${base}/repos/${full}/pulls/${pull.number}`,
    id: pull.id,
    node_id: `PR_${pull.id.toString(36)}`,
    html_url: `${base}/${full}/pull/${pull.number}`,
    issue_url: `${base}/repos/${full}/issues/${pull.number}`,
    statuses_url: `${base}/repos/${full}/statuses/${pull.headSha}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userShape(pull.user, base),
    body: pull.body,
    labels: pull.labels.map((l) => labelShape(l, repo, base)),
    created_at: githubTime(pull.createdAt),
    updated_at: githubTime(pull.updatedAt),
    closed_at: pull.closedAt === null ? null : githubTime(pull.closedAt),
    merged_at: pull.mergedAt === null ? null : githubTime(pull.mergedAt),
    merge_commit_sha: pull.merged ? pull.headSha : null,
    draft: pull.draft,
    head: {
      label: `${repo.owner}:${pull.headRef}`,
      ref: pull.headRef,
      sha: pull.headSha,
      user: repoJson.owner,
      repo: repoJson,
    },
    base: {
      label: `${repo.owner}:${pull.baseRef}`,
      ref: pull.baseRef,
      sha: '0'.repeat(40),
      user: repoJson.owner,
      repo: repoJson,
    },
    author_association: pull.authorAssociation,
    auto_merge: null,
  }
  if (detail) {
    Object.assign(shape, {
      merged: pull.merged,
      mergeable: pull.state === 'open' ? true : null,
      mergeable_state: pull.state === 'open' ? 'clean' : 'unknown',
      merged_by: pull.merged ? userShape('octocat', base) : null,
      comments: 0,
      review_comments: 0,
      commits: 1,
      additions: 1,
      deletions: 0,
      changed_files: 1,
    })
  }
  return shape
}

/** An issue; a pull request rendered as an issue carries the `pull_request` key, as on GitHub. */
export function issueShape(issue: IssueRecord | PullRecord, repo: RepoRecord, base: string) {
  const full = `${repo.owner}/${repo.name}`
  const isPull = 'headSha' in issue
  const shape: Record<string, unknown> = {
    id: issue.id,
    node_id: `I_${issue.id.toString(36)}`,
    url: `${base}/repos/${full}/issues/${issue.number}`,
    repository_url: `${base}/repos/${full}`,
    html_url: `${base}/${full}/${isPull ? 'pull' : 'issues'}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: isPull ? null : (issue as IssueRecord).stateReason,
    title: issue.title,
    body: issue.body,
    user: userShape(issue.user, base),
    labels: issue.labels.map((l) => labelShape(l, repo, base)),
    assignee: null,
    assignees: [],
    locked: false,
    comments: 0,
    created_at: githubTime(issue.createdAt),
    updated_at: githubTime(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : githubTime(issue.closedAt),
    author_association: issue.authorAssociation,
  }
  if (isPull) {
    const pull = issue as PullRecord
    shape.draft = pull.draft
    shape.pull_request = {
      url: `${base}/repos/${full}/pulls/${pull.number}`,
      html_url: `${base}/${full}/pull/${pull.number}`,
      diff_url: `${base}/${full}/pull/${pull.number}.diff`,
      patch_url: `${base}/${full}/pull/${pull.number}.patch`,
      merged_at: pull.mergedAt === null ? null : githubTime(pull.mergedAt),
    }
  }
  return shape
}

/** A commit status as `POST /repos/{o}/{r}/statuses/{sha}` returns and the combined status lists. */
export function statusShape(status: StatusRecord, repo: RepoRecord, base: string) {
  return {
    url: `${base}/repos/${repo.owner}/${repo.name}/statuses/${status.sha}`,
    avatar_url: null,
    id: status.id,
    node_id: `SC_${status.id.toString(36)}`,
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: githubTime(status.createdAt),
    updated_at: githubTime(status.createdAt),
    creator: userShape(status.creator, base),
  }
}

/** `GET /repos/{o}/{r}/commits/{ref}/status`. */
export function combinedStatusShape(
  combined: { state: StatusState; statuses: StatusRecord[] },
  sha: string,
  repo: RepoRecord,
  base: string,
) {
  const full = `${repo.owner}/${repo.name}`
  return {
    state: combined.state,
    statuses: combined.statuses.map((s) => statusShape(s, repo, base)),
    sha,
    total_count: combined.statuses.length,
    repository: repoShape(repo, base),
    commit_url: `${base}/repos/${full}/commits/${sha}`,
    url: `${base}/repos/${full}/commits/${sha}/status`,
  }
}

/** A small positive integer derived from a string, so a login keeps one id across responses. */
function stableId(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return (h >>> 0) % 100_000_000
}
