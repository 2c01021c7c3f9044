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
import { combinedStatusShape, issueShape, pullShape, repoShape, statusShape } from './sandbox-shapes.js'
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

/** Builds the route table; the server matches in order. */
export function createSandboxRoutes(deps: SandboxApiDeps): SandboxRoute[] {
  const { store } = deps
  const routes: SandboxRoute[] = []
  const add = (
    method: string,
    template: string,
    auth: SandboxRoute['auth'],
    handle: SandboxRoute['handle'],
    underRepo = false,
  ) => {
    const keys: string[] = []
    const source = template.replace(/:([a-z_]+)/g, (_, name: string) => {
      keys.push(name)
      return '([^/]+)'
    })
    routes.push({
      method,
      template: `${method} ${template}`,
      auth,
      underRepo,
      regex: new RegExp(`^${source}$`),
      keys,
      handle,
    })
  }
  const repoRoute = (method: string, suffix: string, handle: SandboxRoute['handle']) => {
    add(method, `/repos/:owner/:repo${suffix}`, 'installation', handle, true)
    add(method, `/repositories/:id${suffix}`, 'installation', handle, true)
  }

  add('GET', '/app', 'app', (ctx) => ({
    status: 200,
    body: {
      id: deps.appId,
      slug: 'leasecron-sandbox',
      name: 'leasecron sandbox',
      owner: { login: 'sandbox-org', type: 'Organization' },
      html_url: `${ctx.base}/apps/leasecron-sandbox`,
      permissions: PERMISSIONS,
      events: [],
    },
  }))

  add('POST', '/app/installations/:installation_id/access_tokens', 'app', (ctx) => {
    const id = Number(ctx.params.installation_id)
    if (id !== deps.installationId) return githubError(404, 'Not Found')
    const { token, expiresAt } = deps.mintToken(id)
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString().replace('.000Z', 'Z'),
        permissions: PERMISSIONS,
        repository_selection: 'all',
      },
    }
  })

  add('GET', '/rate_limit', 'installation', (ctx) => {
    const core = deps.rateLimit(ctx.installationId)
    const resource = { limit: core.limit, used: core.used, remaining: core.remaining, reset: core.reset }
    const idle = (limit: number) => ({ limit, used: 0, remaining: limit, reset: core.reset })
    return {
      status: 200,
      body: {
        resources: {
          core: resource,
          search: idle(30),
          graphql: idle(5000),
          integration_manifest: idle(5000),
        },
        rate: resource,
      },
    }
  })

  add('GET', '/installation/repositories', 'installation', (ctx) => {
    const repos = store.repos()
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
  })

  repoRoute('GET', '', (ctx) => ({
    status: 200,
    body: repoShape(ctx.repo, ctx.base),
    lastModified: ctx.repo.createdAt,
  }))

  repoRoute('GET', '/pulls', (ctx) => {
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
  })

  repoRoute('GET', '/pulls/:number', (ctx) => {
    const pull = ctx.repo.pulls.get(Number(ctx.params.number))
    if (pull === undefined) return githubError(404, 'Not Found')
    return { status: 200, body: pullShape(pull, ctx.repo, ctx.base, true), lastModified: pull.updatedAt }
  })

  repoRoute('GET', '/commits/:ref/status', (ctx) => {
    const ref = ctx.params.ref as string
    const sha = store.resolveRef(ctx.repo, ref)
    if (sha === undefined) return githubError(422, `No commit found for SHA: ${ref}`)
    return {
      status: 200,
      body: combinedStatusShape(store.combinedStatus(ctx.repo, sha), sha, ctx.repo, ctx.base),
    }
  })

  repoRoute('GET', '/commits/:ref/statuses', (ctx) => {
    const ref = ctx.params.ref as string
    const sha = store.resolveRef(ctx.repo, ref)
    if (sha === undefined) return githubError(422, `No commit found for SHA: ${ref}`)
    const paged = paginate(store.statusesOf(ctx.repo, sha), ctx)
    if ('status' in paged) return paged
    return {
      status: 200,
      headers: paged.headers,
      body: paged.items.map((s) => statusShape(s, ctx.repo, ctx.base)),
    }
  })

  repoRoute('POST', '/statuses/:sha', (ctx) => {
    const body = (ctx.body ?? {}) as Record<string, unknown>
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
    try {
      const status = store.addStatusTo(ctx.repo, ctx.params.sha as string, {
        state: state as StatusState,
        context: (body.context as string | undefined) ?? 'default',
        description: (body.description as string | undefined) ?? null,
        targetUrl: (body.target_url as string | undefined) ?? null,
      })
      return { status: 201, body: statusShape(status, ctx.repo, ctx.base) }
    } catch (error) {
      if (error instanceof SandboxNotFoundError) return githubError(422, error.message)
      throw error
    }
  })

  repoRoute('GET', '/issues', (ctx) => {
    const q = ctx.url.searchParams
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
    const field = sort === 'updated' ? 'updatedAt' : 'createdAt'
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
  })

  repoRoute('GET', '/issues/:number', (ctx) => {
    const n = Number(ctx.params.number)
    const item = ctx.repo.issues.get(n) ?? ctx.repo.pulls.get(n)
    if (item === undefined) return githubError(404, 'Not Found')
    return { status: 200, body: issueShape(item, ctx.repo, ctx.base), lastModified: item.updatedAt }
  })

  return routes
}

const STATUS_STATES: StatusState[] = ['error', 'failure', 'pending', 'success']
const PERMISSIONS = { metadata: 'read', pull_requests: 'read', issues: 'read', statuses: 'write' }

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
