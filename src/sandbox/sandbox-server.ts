/**
 * The sandbox's request pipeline, one named step each: read the body, hand `/_sandbox/*` to the admin
 * routes, match the API route, apply a fault, authorize the caller, check the budget, resolve the
 * repository (or redirect a renamed one), run the route, answer a conditional GET with 304, spend the
 * budget, count the request and write GitHub's headers.
 *
 * Not the routes (`sandbox-api.ts`), the admin routes (`sandbox-admin-routes.ts`) or the start-up
 * (`sandbox-forge.ts`).
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { handleAdmin } from './sandbox-admin-routes.js'
import { githubError, type RouteResult, type SandboxRoute } from './sandbox-api.js'
import type { SandboxAuth, SandboxCaller } from './sandbox-auth.js'
import { cacheHeaders, GITHUB_VARY, isNotModified, validatorsOf } from './sandbox-conditional.js'
import type { SandboxFault, SandboxFaults } from './sandbox-faults.js'
import type { RateLimitState, SandboxRateLimit } from './sandbox-rate-limit.js'
import type { SandboxMissReason, SandboxValidatorSent } from './sandbox-request-log.js'
import type { SandboxStats } from './sandbox-stats.js'
import type { RepoRecord, SandboxStore } from './sandbox-store.js'
import type { SandboxInstallations } from './sandbox-installations.js'

/** What the pipeline works with. */
export interface SandboxServerContext {
  routes: SandboxRoute[]
  auth: SandboxAuth
  store: SandboxStore
  stats: SandboxStats
  faults: SandboxFaults
  rateLimit: SandboxRateLimit
  installationId: number
  installations: SandboxInstallations
  etagPerToken: boolean
  /** The sandbox's base URL, known once it listens. */
  base(): string
}

/** One API request in flight. */
interface Exchange {
  req: IncomingMessage
  res: ServerResponse
  method: string
  url: URL
  bodyText: string
  route: SandboxRoute | undefined
  params: Record<string, string>
  /** The route template the stats count under. */
  template: string
  caller: SandboxCaller
  /** The installation id, `app` or `anonymous`, as the stats count it. */
  label: string
  /** True when the request carried a private `x-leasecron-*` header. */
  privateHeader: boolean
  /** Why a conditional GET was answered in full, for the request log. */
  miss?: SandboxMissReason
}

/** How a request pays: checked before the route runs, spent only once the answer is known. */
interface Budget {
  limit: RateLimitState | undefined
  exhausted: boolean
  /** Sends a paid answer (a point spent for a budgeted caller). */
  spend(result: RouteResult): void
}

const MAX_BODY_BYTES = 1 << 20

/** The `node:http` request listener of a sandbox. */
export function createSandboxHandler(ctx: SandboxServerContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase()
    const url = new URL(req.url ?? '/', ctx.base())
    const bodyText = await readBody(req).catch(() => undefined)
    if (bodyText === undefined) {
      res.destroy()
      return
    }
    if (url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/')) {
      return serveAdmin(ctx, res, method, url, bodyText)
    }
    return serveApi(ctx, openExchange(ctx, { req, res, method, url, bodyText }))
  }
}

function serveAdmin(ctx: SandboxServerContext, res: ServerResponse, method: string, url: URL, text: string) {
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    return writeJson(res, 400, { message: 'sandbox admin: body is not JSON' })
  }
  const deps = { ...ctx, base: ctx.base() }
  const answer = handleAdmin(deps, method, url.pathname.slice('/_sandbox'.length) || '/', body)
  writeJson(res, answer.status, answer.body)
}

function openExchange(
  ctx: SandboxServerContext,
  request: Pick<Exchange, 'req' | 'res' | 'method' | 'url' | 'bodyText'>,
): Exchange {
  const { route, params } = matchRoute(ctx.routes, request.method, request.url.pathname)
  const caller = ctx.auth.identify(request.req.headers.authorization)
  const label =
    caller.kind === 'installation' ? String(caller.id) : caller.kind === 'app' ? 'app' : 'anonymous'
  return {
    ...request,
    route,
    params,
    template: route?.template ?? `${request.method} (unmatched)`,
    caller,
    label,
    privateHeader: Object.keys(request.req.headers).some((h) => h.startsWith('x-leasecron-')),
  }
}

function matchRoute(
  routes: SandboxRoute[],
  method: string,
  pathname: string,
): { route: SandboxRoute | undefined; params: Record<string, string> } {
  for (const route of routes) {
    if (route.method !== method) continue
    const m = route.regex.exec(pathname)
    if (m === null) continue
    const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(m[i + 1] as string)]))
    return { route, params }
  }
  return { route: undefined, params: {} }
}

async function serveApi(ctx: SandboxServerContext, ex: Exchange): Promise<void> {
  const { latencyMs, fault } = ctx.faults.take(ex.method, ex.url.pathname)
  if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs))
  if (fault !== undefined) return serveFault(ctx, ex, fault)
  if (ex.route === undefined) return send(ctx, ex, githubError(404, 'Not Found'))
  const refused = refusal(ex.route, ex.caller)
  if (refused !== undefined) return send(ctx, ex, refused)
  const budget = openBudget(ctx, ex, ex.route)
  if (budget.exhausted) {
    return send(
      ctx,
      ex,
      githubError(403, `API rate limit exceeded for installation ID ${ex.label}.`),
      budget.limit,
    )
  }
  serveRoute(ctx, ex, ex.route, budget)
}

function serveFault(ctx: SandboxServerContext, ex: Exchange, fault: SandboxFault) {
  const count = (status: number | 'dropped') =>
    ctx.stats.record(ex.label, ex.method, ex.template, status, ex.privateHeader, false, {
      url: ex.url.pathname + ex.url.search,
      validator: validatorSent(ex),
    })
  switch (fault.kind) {
    case 'drop':
      count('dropped')
      ex.req.socket.destroy()
      return
    case 'status':
      return send(ctx, ex, githubError(fault.status, fault.status >= 500 ? 'Server Error' : 'Sandbox fault'))
    case 'secondary-limit':
      return send(
        ctx,
        ex,
        {
          ...githubError(
            fault.status,
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          ),
          headers: { 'retry-after': String(fault.retryAfter) },
        },
        ex.caller.kind === 'installation' ? ctx.rateLimit.peek(String(ex.caller.id)) : undefined,
      )
    case 'malformed':
      count(200)
      return writeRaw(ex.res, 200, '{"message": "sandbox malformed fault", "items": [1, 2,, }')
    case 'truncated':
      count(200)
      return writeTruncated(ex.res)
  }
}

/** GitHub's 401 for a caller the route does not accept, or undefined when it may call. */
function refusal(route: SandboxRoute, caller: SandboxCaller): RouteResult | undefined {
  if (route.auth === 'app') {
    if (caller.kind === 'app') return undefined
    return githubError(
      401,
      caller.kind === 'invalid' ? caller.reason : 'A JSON web token could not be decoded',
    )
  }
  if (caller.kind === 'installation') return undefined
  if (caller.kind === 'app') return githubError(401, 'Bad credentials')
  return githubError(401, caller.kind === 'invalid' ? caller.reason : 'Requires authentication')
}

/** An installation pays a point per answer except a 304 and `GET /rate_limit`; the App pays none here. */
function openBudget(ctx: SandboxServerContext, ex: Exchange, route: SandboxRoute): Budget {
  if (ex.caller.kind !== 'installation') {
    return { limit: undefined, exhausted: false, spend: (result) => send(ctx, ex, result) }
  }
  const key = String(ex.caller.id)
  const limit = ctx.rateLimit.peek(key)
  if (route.template === 'GET /rate_limit') {
    return { limit, exhausted: false, spend: (result) => send(ctx, ex, result, limit) }
  }
  return {
    limit,
    exhausted: limit.remaining === 0,
    spend: (result) => send(ctx, ex, result, ctx.rateLimit.take(key).state, true),
  }
}

function serveRoute(ctx: SandboxServerContext, ex: Exchange, route: SandboxRoute, budget: Budget) {
  const repo = route.underRepo ? visibleRepo(ctx, ex, resolveRepo(ctx, ex)) : undefined
  if (repo !== undefined && 'status' in repo) return budget.spend(repo)
  let body: unknown
  try {
    body = ex.bodyText === '' ? undefined : JSON.parse(ex.bodyText)
  } catch {
    return budget.spend(githubError(400, 'Problems parsing JSON'))
  }
  const result = route.handle({
    method: ex.method,
    url: ex.url,
    params: ex.params,
    body,
    base: ctx.base(),
    // Only routes under a repository read it, and for them it was resolved above.
    repo: repo as RepoRecord,
    installationId: ex.caller.kind === 'installation' ? ex.caller.id : 0,
  })
  if (ex.method === 'GET' && result.status === 200) return answerConditionally(ctx, ex, result, budget)
  budget.spend(result)
}

/** GitHub's 404 for a repository outside the calling installation's account (or a suspended one's). */
function visibleRepo(ctx: SandboxServerContext, ex: Exchange, repo: RepoRecord | RouteResult) {
  if ('status' in repo || ex.caller.kind !== 'installation') return repo
  return ctx.installations.sees(ex.caller.id, repo.owner) ? repo : githubError(404, 'Not Found')
}

/**
 * The repository of a route under `/repos/:owner/:repo` or `/repositories/:id`; for a renamed one,
 * GitHub's redirect to `/repositories/{id}/…` (301 for reads, 307 for writes so clients keep the
 * method and body); a 404 for an unknown one.
 */
function resolveRepo(ctx: SandboxServerContext, ex: Exchange): RepoRecord | RouteResult {
  const { params, url, method } = ex
  if (params.id !== undefined) return ctx.store.repoById(Number(params.id)) ?? githubError(404, 'Not Found')
  const owner = params.owner as string
  const name = params.repo as string
  const repo = ctx.store.repo(owner, name)
  if (repo !== undefined) return repo
  const movedId = ctx.store.renamedTo(owner, name)
  if (movedId === undefined) return githubError(404, 'Not Found')
  const rest = url.pathname.split('/').slice(4).join('/')
  const location = `${ctx.base()}/repositories/${movedId}${rest === '' ? '' : `/${rest}`}${url.search}`
  return {
    status: method === 'GET' || method === 'HEAD' ? 301 : 307,
    body: { message: 'Moved Permanently', url: location, documentation_url: 'https://docs.github.com/rest' },
    headers: { location },
  }
}

/** Adds the validators and caching headers; a request whose validators still match gets a free 304. */
function answerConditionally(ctx: SandboxServerContext, ex: Exchange, result: RouteResult, budget: Budget) {
  // An App JWT is new on every call; the App itself is the identity its etags belong to.
  const credential = ex.caller.kind === 'installation' ? ex.caller.token : ex.caller.kind
  const validators = validatorsOf(result.body, result.lastModified, ctx.etagPerToken ? credential : undefined)
  const conditional = {
    ifNoneMatch: ex.req.headers['if-none-match'],
    ifModifiedSince: ex.req.headers['if-modified-since'],
  }
  if (isNotModified(conditional, validators)) {
    // GitHub: a 304 to an authorized conditional request does not count against the primary limit.
    return send(ctx, ex, { status: 304, headers: cacheHeaders(validators) }, budget.limit)
  }
  const content = validatorsOf(result.body, result.lastModified).etag
  ctx.stats.log.issued(validators.etag, content)
  ex.miss = missReason(ctx, conditional, content, validators.lastModified)
  budget.spend({ ...result, headers: { ...result.headers, ...cacheHeaders(validators) } })
}

/** Why a request's validators did not earn a 304 (undefined when it carried none). */
function missReason(
  ctx: SandboxServerContext,
  asked: { ifNoneMatch?: string | undefined; ifModifiedSince?: string | undefined },
  content: string,
  lastModified: string | undefined,
): SandboxMissReason | undefined {
  if (asked.ifNoneMatch !== undefined) return ctx.stats.log.missReason(asked.ifNoneMatch, content)
  if (asked.ifModifiedSince === undefined) return undefined
  return lastModified === undefined ? 'no-last-modified' : 'changed'
}

function validatorSent(ex: Exchange): SandboxValidatorSent {
  if (ex.req.headers['if-none-match'] !== undefined) return 'etag'
  return ex.req.headers['if-modified-since'] !== undefined ? 'last-modified' : 'none'
}

/** Counts the request and writes the answer with `vary` and, for an installation, the rate-limit headers. */
function send(
  ctx: SandboxServerContext,
  ex: Exchange,
  result: RouteResult,
  limit?: RateLimitState,
  spent = false,
) {
  ctx.stats.record(ex.label, ex.method, ex.template, result.status, ex.privateHeader, spent, {
    url: ex.url.pathname + ex.url.search,
    validator: validatorSent(ex),
    miss: ex.miss,
  })
  const headers: Record<string, string> = { vary: GITHUB_VARY, ...result.headers }
  if (limit !== undefined) Object.assign(headers, rateLimitHeaders(limit))
  writeJson(ex.res, result.status, result.body, headers)
}

function rateLimitHeaders(limit: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit.limit),
    'x-ratelimit-remaining': String(limit.remaining),
    'x-ratelimit-used': String(limit.used),
    'x-ratelimit-reset': String(limit.reset),
    'x-ratelimit-resource': limit.resource,
  }
}

/** Writes a JSON answer with GitHub's media-type and request-id headers; no body for 204 and 304. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = body === undefined || status === 204 || status === 304 ? '' : JSON.stringify(body)
  res.writeHead(status, {
    ...(text === '' ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    'content-length': String(Buffer.byteLength(text)),
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
    ...headers,
  })
  res.end(text)
}

function writeRaw(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  })
  res.end(text)
}

/** Promises a whole body, sends half of it, then cuts the connection (the `truncated` fault). */
function writeTruncated(res: ServerResponse): void {
  const full = JSON.stringify({ message: 'sandbox truncated fault', padding: 'x'.repeat(256) })
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(full)),
  })
  res.write(full.slice(0, Math.floor(full.length / 2)))
  setImmediate(() => res.destroy())
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'))
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
