/**
 * The subset of GitHub's REST API the sandbox speaks, as a route table: method, template, who may call
 * it (the App's JWT or an installation token) and a handler returning status, JSON and headers. Routes
 * under a repository are served both as `/repos/:owner/:repo/…` and `/repositories/:id/…` (where GitHub
 * redirects renamed repositories). Paging follows GitHub: `per_page` (≤100, default 30), `page`, and a
 * `Link` header with next/last/first/prev.
 *
 * Not the server (auth, budget, faults, ETags and counting live in `sandbox-forge.ts`).
 */
import type { RateLimitState } from './sandbox-rate-limit.js'
import type { SandboxInstallations } from './sandbox-installations.js'
import {
  APP_PERMISSIONS,
  appShape,
  combinedStatusShape,
  installationShape,
  issueShape,
  pullShape,
  repoShape,
  statusShape,
} from './sandbox-shapes.js'
import {
  type RepoRecord,
  SandboxNotFoundError,
  type SandboxStore,
  type StatusState,
} from './sandbox-store.js'

/** What a handler gets. */
export interface RouteContext {
  method: string
  url: URL
  params: Record<string, string>
  body: unknown
  /** The sandbox's base URL, for URLs in payloads and Link headers. */
  base: string
  /** Set for routes under a repository, resolved by the server. */
  repo: RepoRecord
  /** The caller's installation id, for token-authenticated routes. */
  installationId: number
}

/** What a handler returns. */
export interface RouteResult {
  status: number
  body?: unknown
  headers?: Record<string, string>
  /** When the resource last changed, on the routes GitHub sends `last-modified` for (single records). */
  lastModified?: number
}

/** One route. */
export interface SandboxRoute {
  method: string
  /** The template the stats count under, `GET /repos/:owner/:repo/pulls/:number`. */
  template: string
  auth: 'app' | 'installation'
  /** True when the route sits under a repository (`repo` is resolved first). */
  underRepo: boolean
  regex: RegExp
  keys: string[]
  handle(ctx: RouteContext): RouteResult
}

/** What the routes need from the sandbox. */
export interface SandboxApiDeps {
  store: SandboxStore
  appId: number
  installationId: number
  installations: SandboxInstallations
  mintToken(installationId: number): { token: string; expiresAt: number }
  rateLimit(installationId: number): RateLimitState
}

/** A GitHub-shaped error body. */
export function githubError(
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): RouteResult {
  return {
    status,
    body: { message, documentation_url: 'https://docs.github.com/rest', status: String(status), ...extra },
  }
}

/** A route as the table writes it; `underRepo` routes are served under both repository prefixes. */
interface RouteSpec {
  method: string
  path: string
  auth: SandboxRoute['auth']
  underRepo?: boolean
  handle(ctx: RouteContext, deps: SandboxApiDeps): RouteResult
}

/** The routes, matched in order. */
const ROUTES: RouteSpec[] = [
  { method: 'GET', path: '/app', auth: 'app', handle: getApp },
  { method: 'GET', path: '/app/installations', auth: 'app', handle: listInstallations },
  {
    method: 'POST',
    path: '/app/installations/:installation_id/access_tokens',
    auth: 'app',
    handle: mintToken,
  },
  { method: 'GET', path: '/rate_limit', auth: 'installation', handle: getRateLimit },
  { method: 'GET', path: '/installation/repositories', auth: 'installation', handle: listInstallationRepos },
  { method: 'GET', path: '', auth: 'installation', underRepo: true, handle: getRepo },
  { method: 'GET', path: '/pulls', auth: 'installation', underRepo: true, handle: listPulls },
  { method: 'GET', path: '/pulls/:number', auth: 'installation', underRepo: true, handle: getPull },
  {
    method: 'GET',
    path: '/commits/:ref/status',
    auth: 'installation',
    underRepo: true,
    handle: getCombinedStatus,
  },
  {
    method: 'GET',
    path: '/commits/:ref/statuses',
    auth: 'installation',
    underRepo: true,
    handle: listStatuses,
  },
  { method: 'POST', path: '/statuses/:sha', auth: 'installation', underRepo: true, handle: createStatus },
  { method: 'GET', path: '/issues', auth: 'installation', underRepo: true, handle: listIssues },
  { method: 'GET', path: '/issues/:number', auth: 'installation', underRepo: true, handle: getIssue },
]

/** Builds the route table (every template the server answers), bound to the sandbox's data. */
export function createSandboxRoutes(deps: SandboxApiDeps): SandboxRoute[] {
  return ROUTES.flatMap((spec) => {
    const paths = spec.underRepo
      ? [`/repos/:owner/:repo${spec.path}`, `/repositories/:id${spec.path}`]
      : [spec.path]
    return paths.map((path) => compileRoute(spec, path, deps))
  })
}

function compileRoute(spec: RouteSpec, path: string, deps: SandboxApiDeps): SandboxRoute {
  const keys: string[] = []
  const source = path.replace(/:([a-z_]+)/g, (_, name: string) => {
    keys.push(name)
    return '([^/]+)'
  })
  return {
    method: spec.method,
    template: `${spec.method} ${path}`,
    auth: spec.auth,
    underRepo: spec.underRepo === true,
    regex: new RegExp(`^${source}$`),
    keys,
    handle: (ctx) => spec.handle(ctx, deps),
  }
}

function getApp(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  return { status: 200, body: appShape(deps.appId, ctx.base) }
}

function mintToken(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const id = Number(ctx.params.installation_id)
  const installation = deps.installations.get(id)
  if (installation === undefined) return githubError(404, 'Not Found')
  if (installation.suspendedAt !== null) return githubError(403, 'This installation has been suspended')
  const { token, expiresAt } = deps.mintToken(id)
  return {
    status: 201,
    body: {
      token,
      expires_at: new Date(expiresAt).toISOString().replace('.000Z', 'Z'),
      permissions: APP_PERMISSIONS,
      repository_selection: 'all',
    },
  }
}

function getRateLimit(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const core = deps.rateLimit(ctx.installationId)
  const resource = { limit: core.limit, used: core.used, remaining: core.remaining, reset: core.reset }
  const idle = (limit: number) => ({ limit, used: 0, remaining: limit, reset: core.reset })
  return {
    status: 200,
    body: {
      resources: { core: resource, search: idle(30), graphql: idle(5000), integration_manifest: idle(5000) },
      rate: resource,
    },
  }
}

/** `GET /app/installations`: every installation of the App, suspended ones too (with `suspended_at`), paged. */
function listInstallations(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const paged = paginate(deps.installations.list(), ctx)
  if ('status' in paged) return paged
  return {
    status: 200,
    headers: paged.headers,
    body: paged.items.map((i) => installationShape(i, deps.appId, ctx.base)),
  }
}

function listInstallationRepos(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const repos = deps.store.repos().filter((r) => deps.installations.sees(ctx.installationId, r.owner))
  const paged = paginate(repos, ctx)
  if ('status' in paged) return paged
  return {
    status: 200,
    headers: paged.headers,
    body: {
      total_count: repos.length,
      repository_selection: 'all',
      repositories: paged.items.map((r) => repoShape(r, ctx.base)),
    },
  }
}

function getRepo(ctx: RouteContext): RouteResult {
  return { status: 200, body: repoShape(ctx.repo, ctx.base), lastModified: ctx.repo.createdAt }
}

function listPulls(ctx: RouteContext): RouteResult {
  const state = ctx.url.searchParams.get('state') ?? 'open'
  if (!['open', 'closed', 'all'].includes(state)) return validationFailed('state', state)
  const sort = ctx.url.searchParams.get('sort') ?? 'created'
  if (!['created', 'updated', 'popularity', 'long-running'].includes(sort))
    return validationFailed('sort', sort)
  const direction =
    ctx.url.searchParams.get('direction') ?? (sort === 'created' || sort === 'updated' ? 'desc' : 'asc')
  const field = sort === 'updated' ? 'updatedAt' : 'createdAt'
  const pulls = [...ctx.repo.pulls.values()]
    .filter((p) => state === 'all' || p.state === state)
    .sort((a, b) => (a[field] - b[field] || a.number - b.number) * (direction === 'asc' ? 1 : -1))
  const paged = paginate(pulls, ctx)
  if ('status' in paged) return paged
  return {
    status: 200,
    headers: paged.headers,
    body: paged.items.map((p) => pullShape(p, ctx.repo, ctx.base, false)),
  }
}

function getPull(ctx: RouteContext): RouteResult {
  const pull = ctx.repo.pulls.get(Number(ctx.params.number))
  if (pull === undefined) return githubError(404, 'Not Found')
  return { status: 200, body: pullShape(pull, ctx.repo, ctx.base, true), lastModified: pull.updatedAt }
}

function getCombinedStatus(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const ref = ctx.params.ref as string
  const sha = deps.store.resolveRef(ctx.repo, ref)
  if (sha === undefined) return githubError(422, `No commit found for SHA: ${ref}`)
  return {
    status: 200,
    body: combinedStatusShape(deps.store.combinedStatus(ctx.repo, sha), sha, ctx.repo, ctx.base),
  }
}

function listStatuses(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const ref = ctx.params.ref as string
  const sha = deps.store.resolveRef(ctx.repo, ref)
  if (sha === undefined) return githubError(422, `No commit found for SHA: ${ref}`)
  const paged = paginate(deps.store.statusesOf(ctx.repo, sha), ctx)
  if ('status' in paged) return paged
  return {
    status: 200,
    headers: paged.headers,
    body: paged.items.map((s) => statusShape(s, ctx.repo, ctx.base)),
  }
}

function createStatus(ctx: RouteContext, deps: SandboxApiDeps): RouteResult {
  const body = (ctx.body ?? {}) as Record<string, unknown>
  const invalid = invalidStatusInput(body)
  if (invalid !== undefined) return invalid
  try {
    const status = deps.store.addStatusTo(ctx.repo, ctx.params.sha as string, {
      state: body.state as StatusState,
      context: (body.context as string | undefined) ?? 'default',
      description: (body.description as string | undefined) ?? null,
      targetUrl: (body.target_url as string | undefined) ?? null,
    })
    const shape = statusShape(status, ctx.repo, ctx.base)
    // GitHub points `Location` at the statuses of the commit (the status's own `url`).
    return { status: 201, body: shape, headers: { location: shape.url } }
  } catch (error) {
    if (error instanceof SandboxNotFoundError) return githubError(422, error.message)
    throw error
  }
}

/** GitHub's 422 for a status body it would refuse, or undefined for a good one. */
function invalidStatusInput(body: Record<string, unknown>): RouteResult | undefined {
  const state = body.state
  if (typeof state !== 'string' || !STATUS_STATES.includes(state as StatusState)) {
    return validationFailed('state', state, 'Status')
  }
  for (const field of ['context', 'description', 'target_url'] as const) {
    if (body[field] != null && typeof body[field] !== 'string')
      return validationFailed(field, body[field], 'Status')
  }
  if (typeof body.description === 'string' && body.description.length > 140) {
    return validationFailed('description', '(longer than 140 characters)', 'Status')
  }
  return undefined
}

function listIssues(ctx: RouteContext): RouteResult {
  const query = issueQuery(ctx.url.searchParams)
  if ('status' in query) return query
  const { state, since, labels, field, direction } = query
  const items = [...ctx.repo.issues.values(), ...ctx.repo.pulls.values()]
    .filter((i) => state === 'all' || i.state === state)
    .filter((i) => since === undefined || i.updatedAt >= since)
    .filter((i) => labels.every((l) => i.labels.includes(l)))
    .sort((a, b) => (a[field] - b[field] || a.number - b.number) * (direction === 'asc' ? 1 : -1))
  const paged = paginate(items, ctx)
  if ('status' in paged) return paged
  return {
    status: 200,
    headers: paged.headers,
    body: paged.items.map((i) => issueShape(i, ctx.repo, ctx.base)),
  }
}

/** The filters of `GET …/issues` (state, sort, direction, since, labels), or GitHub's 422. */
function issueQuery(q: URLSearchParams) {
  const state = q.get('state') ?? 'open'
  if (!['open', 'closed', 'all'].includes(state)) return validationFailed('state', state)
  const sort = q.get('sort') ?? 'created'
  if (!['created', 'updated', 'comments'].includes(sort)) return validationFailed('sort', sort)
  const direction = q.get('direction') ?? 'desc'
  if (!['asc', 'desc'].includes(direction)) return validationFailed('direction', direction)
  const sinceText = q.get('since')
  const since = sinceText === null ? undefined : Date.parse(sinceText)
  if (since !== undefined && (Number.isNaN(since) || !/^\d{4}-\d{2}-\d{2}T/.test(sinceText as string))) {
    return validationFailed('since', sinceText)
  }
  const labels = (q.get('labels') ?? '')
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l !== '')
  const field: 'updatedAt' | 'createdAt' = sort === 'updated' ? 'updatedAt' : 'createdAt'
  return { state, since, labels, field, direction }
}

function getIssue(ctx: RouteContext): RouteResult {
  const n = Number(ctx.params.number)
  const item = ctx.repo.issues.get(n) ?? ctx.repo.pulls.get(n)
  if (item === undefined) return githubError(404, 'Not Found')
  return { status: 200, body: issueShape(item, ctx.repo, ctx.base), lastModified: item.updatedAt }
}

const STATUS_STATES: StatusState[] = ['error', 'failure', 'pending', 'success']

function validationFailed(field: string, value: unknown, resource = 'Search'): RouteResult {
  return githubError(422, 'Validation Failed', {
    errors: [{ resource, field, code: 'invalid', value: value === undefined ? null : String(value) }],
  })
}

/** Slices `items` by `per_page`/`page` and builds GitHub's `Link` header; a 422 for nonsense values. */
function paginate<T>(
  items: T[],
  ctx: RouteContext,
): { items: T[]; headers: Record<string, string> } | RouteResult {
  const q = ctx.url.searchParams
  const perPage = Math.min(100, q.has('per_page') ? Number(q.get('per_page')) : 30)
  const page = q.has('page') ? Number(q.get('page')) : 1
  if (!Number.isInteger(perPage) || perPage < 1) return validationFailed('per_page', q.get('per_page'))
  if (!Number.isInteger(page) || page < 1) return validationFailed('page', q.get('page'))
  const last = Math.max(1, Math.ceil(items.length / perPage))
  const link = (n: number, rel: string) => {
    const url = new URL(ctx.url.pathname + ctx.url.search, ctx.base)
    url.searchParams.set('per_page', String(perPage))
    url.searchParams.set('page', String(n))
    return `<${url.toString()}>; rel="${rel}"`
  }
  const links: string[] = []
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'))
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
  if (page > 1) links.push(link(1, 'first'))
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(', ') } : {},
  }
}
