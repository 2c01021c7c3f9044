/**
 * GitHub's JSON shapes for the sandbox's records: the fields GitHub's REST API returns for
 * repositories, pull requests, issues and statuses (a faithful subset; URLs point at the sandbox).
 * Not the data (see `sandbox-store.ts`); pure functions of a record and the sandbox's base URL.
 */
import type { SandboxInstallation } from './sandbox-installations.js'
import type { IssueRecord, PullRecord, RepoRecord, StatusRecord, StatusState } from './sandbox-store.js'

/** GitHub's timestamp format: ISO 8601, whole seconds, `Z`. */
export function githubTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

/** A user (or organization, or bot) as `simple-user`: every `*_url` GitHub sends, pointing at the sandbox. */
export function userShape(login: string, base: string) {
  const bot = login.endsWith('[bot]')
  const url = `${base}/users/${encodeURIComponent(login)}`
  return {
    login,
    id: stableId(login),
    node_id: `U_${stableId(login).toString(36)}`,
    avatar_url: `${base}/_avatars/${encodeURIComponent(login)}`,
    gravatar_id: '',
    url,
    html_url: `${base}/${encodeURIComponent(login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: bot ? 'Bot' : 'User',
    user_view_type: 'public',
    site_admin: false,
  }
}

/** The `*_url` templates of a repository, as GitHub sends them (RFC 6570 placeholders kept). */
function repoUrls(url: string) {
  return {
    forks_url: `${url}/forks`,
    keys_url: `${url}/keys{/key_id}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    teams_url: `${url}/teams`,
    hooks_url: `${url}/hooks`,
    issue_events_url: `${url}/issues/events{/number}`,
    events_url: `${url}/events`,
    assignees_url: `${url}/assignees{/user}`,
    branches_url: `${url}/branches{/branch}`,
    tags_url: `${url}/tags`,
    blobs_url: `${url}/git/blobs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    trees_url: `${url}/git/trees{/sha}`,
    statuses_url: `${url}/statuses/{sha}`,
    languages_url: `${url}/languages`,
    stargazers_url: `${url}/stargazers`,
    contributors_url: `${url}/contributors`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    commits_url: `${url}/commits{/sha}`,
    git_commits_url: `${url}/git/commits{/sha}`,
    comments_url: `${url}/comments{/number}`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    contents_url: `${url}/contents/{+path}`,
    compare_url: `${url}/compare/{base}...{head}`,
    merges_url: `${url}/merges`,
    archive_url: `${url}/{archive_format}{/ref}`,
    downloads_url: `${url}/downloads`,
    issues_url: `${url}/issues{/number}`,
    pulls_url: `${url}/pulls{/number}`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    labels_url: `${url}/labels{/name}`,
    releases_url: `${url}/releases{/id}`,
    deployments_url: `${url}/deployments`,
  }
}

/**
 * A repository as in `GET /repos/{owner}/{repo}` (`full-repository`), also where GitHub embeds the
 * shorter `repository` / `minimal-repository` (a superset satisfies all three).
 */
export function repoShape(repo: RepoRecord, base: string) {
  const full = `${repo.owner}/${repo.name}`
  const url = `${base}/repos/${full}`
  const host = new URL(base).host
  const openIssues = [...repo.issues.values(), ...repo.pulls.values()].filter(
    (i) => i.state === 'open',
  ).length
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
    url,
    ...repoUrls(url),
    git_url: `git://${host}/${full}.git`,
    ssh_url: `git@${host}:${full}.git`,
    clone_url: `${base}/${full}.git`,
    svn_url: `${base}/${full}`,
    mirror_url: null,
    homepage: null,
    language: null,
    size: 0,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    open_issues: openIssues,
    open_issues_count: openIssues,
    network_count: 0,
    subscribers_count: 0,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? 'private' : 'public',
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    has_discussions: false,
    archived: false,
    disabled: false,
    license: null,
    allow_forking: true,
    web_commit_signoff_required: false,
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
    // Not null: GitHub's description types it a string in pull listings, nullable elsewhere.
    description: `${name} (sandbox label)`,
  }
}

/**
 * A pull request. `detail` adds the fields only `GET …/pulls/{n}` returns (merged, mergeable, counts);
 * the list omits them, as GitHub does.
 */
export function pullShape(pull: PullRecord, repo: RepoRecord, base: string, detail: boolean) {
  const full = `${repo.owner}/${repo.name}`
  const repoJson = repoShape(repo, base)
  const url = `${base}/repos/${full}/pulls/${pull.number}`
  const issueUrl = `${base}/repos/${full}/issues/${pull.number}`
  const htmlUrl = `${base}/${full}/pull/${pull.number}`
  const statusesUrl = `${base}/repos/${full}/statuses/${pull.headSha}`
  const shape: Record<string, unknown> = {
    url,
    id: pull.id,
    node_id: `PR_${pull.id.toString(36)}`,
    html_url: htmlUrl,
    diff_url: `${htmlUrl}.diff`,
    patch_url: `${htmlUrl}.patch`,
    issue_url: issueUrl,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${base}/repos/${full}/pulls/comments{/number}`,
    comments_url: `${issueUrl}/comments`,
    statuses_url: statusesUrl,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userShape(pull.user, base),
    body: pull.body,
    labels: pull.labels.map((l) => labelShape(l, repo, base)),
    milestone: null,
    active_lock_reason: null,
    created_at: githubTime(pull.createdAt),
    updated_at: githubTime(pull.updatedAt),
    closed_at: pull.closedAt === null ? null : githubTime(pull.closedAt),
    merged_at: pull.mergedAt === null ? null : githubTime(pull.mergedAt),
    merge_commit_sha: pull.merged ? pull.headSha : null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    draft: pull.draft,
    head: branchShape(repo.owner, pull.headRef, pull.headSha, repoJson),
    base: branchShape(repo.owner, pull.baseRef, '0'.repeat(40), repoJson),
    _links: {
      self: { href: url },
      html: { href: htmlUrl },
      issue: { href: issueUrl },
      comments: { href: `${issueUrl}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${base}/repos/${full}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: statusesUrl },
    },
    author_association: pull.authorAssociation,
    auto_merge: null,
  }
  if (detail) Object.assign(shape, pullDetail(pull, base))
  return shape
}

function branchShape(owner: string, ref: string, sha: string, repo: ReturnType<typeof repoShape>) {
  return { label: `${owner}:${ref}`, ref, sha, user: repo.owner, repo }
}

/** The fields only `GET …/pulls/{n}` returns. */
function pullDetail(pull: PullRecord, base: string) {
  return {
    merged: pull.merged,
    mergeable: pull.state === 'open' ? true : null,
    rebaseable: pull.state === 'open' ? true : null,
    mergeable_state: pull.state === 'open' ? 'clean' : 'unknown',
    merged_by: pull.merged ? userShape('octocat', base) : null,
    maintainer_can_modify: false,
    comments: 0,
    review_comments: 0,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: 1,
  }
}

/** An issue; a pull request rendered as an issue carries the `pull_request` key, as on GitHub. */
export function issueShape(issue: IssueRecord | PullRecord, repo: RepoRecord, base: string) {
  const full = `${repo.owner}/${repo.name}`
  const isPull = 'headSha' in issue
  const url = `${base}/repos/${full}/issues/${issue.number}`
  const shape: Record<string, unknown> = {
    id: issue.id,
    node_id: `I_${issue.id.toString(36)}`,
    url,
    repository_url: `${base}/repos/${full}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    timeline_url: `${url}/timeline`,
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
    milestone: null,
    locked: false,
    active_lock_reason: null,
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

/** The sandbox App's permissions, as `GET /app` and a minted token report them. */
export const APP_PERMISSIONS = { metadata: 'read', pull_requests: 'read', issues: 'read', statuses: 'write' }

/** `GET /app`: the App (`integration`). Its stamps are fixed so the answer is the same on every run. */
export function appShape(appId: number, base: string) {
  const created = githubTime(Date.parse('2026-01-01T00:00:00Z'))
  return {
    id: appId,
    slug: 'leasecron-sandbox',
    client_id: `Iv1.${appId.toString(16).padStart(16, '0')}`,
    node_id: `A_${appId.toString(36)}`,
    owner: { ...userShape('sandbox-org', base), type: 'Organization' },
    name: 'leasecron sandbox',
    description: 'The local GitHub stand-in of leasecron',
    external_url: `${base}/apps/leasecron-sandbox`,
    html_url: `${base}/apps/leasecron-sandbox`,
    created_at: created,
    updated_at: created,
    permissions: APP_PERMISSIONS,
    events: [],
    installations_count: 1,
  }
}

/** `GET /app/installations`: one installation (`installation`), its account an organization. */
export function installationShape(installation: SandboxInstallation, appId: number, base: string) {
  const login = installation.account ?? 'sandbox-org'
  const stamp = githubTime(installation.createdAt)
  // GitHub's description of `account` (simple-user or enterprise) is served dereferenced as both at
  // once; an organization account with the enterprise fields as well satisfies either reading.
  const account = { ...userShape(login, base), type: 'Organization', name: login, slug: login }
  return {
    id: installation.id,
    account: { ...account, created_at: stamp, updated_at: stamp },
    repository_selection: 'all',
    access_tokens_url: `${base}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${base}/installation/repositories`,
    html_url: `${base}/organizations/${encodeURIComponent(login)}/settings/installations/${installation.id}`,
    app_id: appId,
    app_slug: 'leasecron-sandbox',
    client_id: `Iv1.${appId.toString(16).padStart(16, '0')}`,
    target_id: userShape(login, base).id,
    target_type: 'Organization',
    permissions: APP_PERMISSIONS,
    events: [],
    created_at: stamp,
    updated_at: stamp,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: installation.suspendedAt === null ? null : userShape('sandbox-admin', base),
    suspended_at: installation.suspendedAt === null ? null : githubTime(installation.suspendedAt),
  }
}

/** A small positive integer derived from a string, so a login keeps one id across responses. */
function stableId(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return (h >>> 0) % 100_000_000
}
