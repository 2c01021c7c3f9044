/**
 * The sandbox forge: a real `node:http` GitHub stand-in on loopback for tests, benchmarks and the
 * zero-config `npm start`. It authenticates a GitHub App (RS256 JWT, installation tokens), serves the
 * REST routes the nets use with GitHub's status codes, headers and JSON, keeps an hourly budget per
 * installation (`x-ratelimit-*`, 403 once spent), answers conditional GETs with 304, redirects renamed
 * repositories, obeys fault switches, and counts every request as ground truth (`/_sandbox/stats`).
 *
 * Not GitHub: only the routes in `sandbox-api.ts`, one App and one installation, data in memory. It binds
 * loopback only, unless `allowNonLoopback` says otherwise, because it hands tokens to anyone who asks.
 */
import { createPublicKey, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { z } from 'zod'
import { verifyAppJwt } from './app-jwt.js'
import { createSandboxAdmin, type SandboxAdmin } from './sandbox-admin.js'
import { handleAdmin } from './sandbox-admin-routes.js'
import { createSandboxRoutes, githubError, type RouteResult } from './sandbox-api.js'
import { cacheHeaders, GITHUB_VARY, isNotModified, validatorsOf } from './sandbox-conditional.js'
import { churnSandbox, type SandboxChurnInput, sandboxChurnSchema } from './sandbox-churn.js'
import { SandboxError } from './sandbox-error.js'
import { type SandboxFaultInput, SandboxFaults, sandboxFaultSchema } from './sandbox-faults.js'
import { loadSandboxFixture, parseSandboxFixture, type SandboxFixtureInput } from './sandbox-fixture.js'
import { generateSandboxFixture, type SandboxGeneratorOptions } from './sandbox-generator.js'
import { generateAppKeyPair } from './sandbox-keys.js'
import { type RateLimitState, SandboxRateLimit, type SandboxRateLimitOptions } from './sandbox-rate-limit.js'
import { SandboxStats, type SandboxStatsSnapshot } from './sandbox-stats.js'
import { SandboxStore } from './sandbox-store.js'

/** Options for `startSandboxForge`; every one has a default. */
export interface SandboxForgeOptions {
  /** Interface to bind; `127.0.0.1` by default. A non-loopback address needs `allowNonLoopback`. */
  host?: string
  /** Port; 0 (any free port) by default. */
  port?: number
  /** Permits binding a non-loopback address; the sandbox has no real security, so think twice. */
  allowNonLoopback?: boolean
  /** The App id; 4242 by default. */
  appId?: number
  /** The one installation; 42420001 by default. */
  installationId?: number
  /** The App's private key (PEM, PKCS#1 or PKCS#8); generated when absent. */
  privateKey?: string
  /** Format of a generated key; `pkcs1`, as GitHub hands them out, by default. */
  keyFormat?: 'pkcs1' | 'pkcs8'
  /** Seed data: a fixture object or a JSON file path. Combined with `generate` when both are given. */
  fixture?: SandboxFixtureInput | string
  /** Seed data from the deterministic generator. */
  generate?: SandboxGeneratorOptions
  /** The hourly budget; GitHub's 5000 an hour by default. */
  rateLimit?: SandboxRateLimitOptions
  /** Faults armed from the start. */
  faults?: SandboxFaultInput[]
  /** Installation-token lifetime; one hour by default. */
  tokenTtlMs?: number
  /** The sandbox's now (data stamps, budget windows, token and JWT expiry); the wall clock by default. */
  clock?: () => Date
  /**
   * Whether an etag is tied to the installation token that fetched it (true by default). GitHub does
   * not document whether an etag survives the hourly token rotation; `true` assumes it does not (the
   * first revalidation after a rotation answers 200 and costs a point), the conservative choice for
   * budget figures. `false`: the etag depends on the body alone, so it survives a rotation.
   */
  etagPerToken?: boolean
  /**
   * Churn on a timer: every `everyMs` (a minute by default) changes `fraction` of the open pull
   * requests, head-commit statuses and open issues (see `sandbox-churn.ts`); tick k uses `seed + k`,
   * so a run is repeatable. Off by default; benchmarks that want churn per pass call `admin.churn`.
   */
  churn?: SandboxChurnInput & { everyMs?: number }
}

/** A running sandbox. */
export interface SandboxForge {
  /** Base URL, `http://127.0.0.1:PORT`; set GITHUB_API_URL to it. */
  url: string
  appId: number
  installationId: number
  /** The App's private key (PEM). A secret in spirit: tests assert it never reaches a log. */
  privateKey: string
  /** The App's public key (SPKI PEM). */
  publicKey: string
  /** The request counts since the last reset (same as `GET /_sandbox/stats`). */
  stats(): SandboxStatsSnapshot
  /** Forgets the request counts. */
  resetStats(): void
  /** Typed client for the `/_sandbox/*` routes of this sandbox. */
  admin: SandboxAdmin
  /** The data, for in-process tests that want to read or change it directly. */
  store: SandboxStore
  /** Every installation token minted so far (tests check none reaches a log). */
  issuedTokens(): string[]
  /** Stops listening and cuts open connections; idempotent. */
  close(): Promise<void>
}

const MAX_BODY_BYTES = 1 << 20

/**
 * Starts a sandbox and resolves once it listens. Throws SandboxError `SANDBOX_NON_LOOPBACK` for a
 * non-loopback host without `allowNonLoopback`, `SANDBOX_FIXTURE_INVALID` for bad seed data and
 * `SANDBOX_OPTIONS_INVALID` for a bad key or fault.
 */
export async function startSandboxForge(options: SandboxForgeOptions = {}): Promise<SandboxForge> {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopback(host) && options.allowNonLoopback !== true) {
    throw new SandboxError(
      'SANDBOX_NON_LOOPBACK',
      `sandbox start: refusing to bind ${host}; expected a loopback address (127.0.0.1, ::1, localhost) or allowNonLoopback: true`,
    )
  }
  const clock = () => (options.clock ?? (() => new Date()))().getTime()
  const appId = options.appId ?? 4242
  const installationId = options.installationId ?? 42_420_001
  const installation = String(installationId)
  const privateKey = options.privateKey ?? generateAppKeyPair(options.keyFormat ?? 'pkcs1').privateKey
  let publicKeyObject: ReturnType<typeof createPublicKey>
  try {
    publicKeyObject = createPublicKey(privateKey.replace(/\\n/g, '\n'))
  } catch (cause) {
    throw new SandboxError(
      'SANDBOX_OPTIONS_INVALID',
      'sandbox start: privateKey is not a PEM RSA private key',
      { cause },
    )
  }
  const publicKey = publicKeyObject.export({ type: 'spki', format: 'pem' }).toString()
  const tokenTtlMs = options.tokenTtlMs ?? 3_600_000
  const etagPerToken = options.etagPerToken ?? true

  const store = new SandboxStore(clock, options.generate?.seed ?? 1)
  if (options.generate !== undefined) store.seed(generateSandboxFixture(options.generate))
  if (options.fixture !== undefined) {
    store.seed(
      typeof options.fixture === 'string'
        ? loadSandboxFixture(options.fixture)
        : parseSandboxFixture(options.fixture),
    )
  }
  const stats = new SandboxStats(clock)
  const faults = new SandboxFaults()
  for (const fault of options.faults ?? []) {
    const parsed = sandboxFaultSchema.safeParse(fault)
    if (!parsed.success) {
      throw new SandboxError(
        'SANDBOX_OPTIONS_INVALID',
        `sandbox start: bad fault ${JSON.stringify(fault)} — ${parsed.error.message}`,
      )
    }
    faults.add(parsed.data)
  }
  const rateLimit = new SandboxRateLimit(options.rateLimit ?? {}, clock)
  const churn = parseChurnOption(options.churn)
  const tokens = new Map<string, { installationId: number; expiresAt: number }>()

  const routes = createSandboxRoutes({
    store,
    appId,
    installationId,
    mintToken(id) {
      const token = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`
      const expiresAt = Math.floor((clock() + tokenTtlMs) / 1000) * 1000
      tokens.set(token, { installationId: id, expiresAt })
      return { token, expiresAt }
    },
    rateLimit: () => rateLimit.peek(installation),
  })

  let base = ''

  type Caller =
    | { kind: 'app' }
    | { kind: 'installation'; id: number }
    | { kind: 'anonymous' }
    | { kind: 'invalid'; reason: string }
  const identify = (header: string | undefined): Caller => {
    if (header === undefined) return { kind: 'anonymous' }
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header.trim())
    if (match === null) return { kind: 'invalid', reason: 'Bad credentials' }
    const credential = match[1] as string
    if (credential.split('.').length === 3) {
      const verdict = verifyAppJwt(credential, publicKeyObject, appId, Math.floor(clock() / 1000))
      return verdict.ok ? { kind: 'app' } : { kind: 'invalid', reason: verdict.reason }
    }
    const held = tokens.get(credential)
    if (held === undefined || held.expiresAt <= clock()) return { kind: 'invalid', reason: 'Bad credentials' }
    return { kind: 'installation', id: held.installationId }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toUpperCase()
    const url = new URL(req.url ?? '/', base)
    let bodyText: string
    try {
      bodyText = await readBody(req)
    } catch {
      res.destroy()
      return
    }

    if (url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/')) {
      let body: unknown
      try {
        body = bodyText === '' ? undefined : JSON.parse(bodyText)
      } catch {
        return writeJson(res, 400, { message: 'sandbox admin: body is not JSON' })
      }
      const answer = handleAdmin(
        { store, stats, faults, rateLimit, installationId, base },
        method,
        url.pathname.slice('/_sandbox'.length) || '/',
        body,
      )
      return writeJson(res, answer.status, answer.body)
    }

    const privateHeader = Object.keys(req.headers).some((h) => h.startsWith('x-leasecron-'))
    let route: (typeof routes)[number] | undefined
    const params: Record<string, string> = {}
    for (const candidate of routes) {
      if (candidate.method !== method) continue
      const m = candidate.regex.exec(url.pathname)
      if (m === null) continue
      route = candidate
      candidate.keys.forEach((k, i) => {
        params[k] = decodeURIComponent(m[i + 1] as string)
      })
      break
    }
    const template = route?.template ?? `${method} (unmatched)`
    const caller = identify(req.headers.authorization)
    const label =
      caller.kind === 'installation' ? String(caller.id) : caller.kind === 'app' ? 'app' : 'anonymous'
    const send = (result: RouteResult, limit?: RateLimitState, spent = false) => {
      stats.record(label, method, template, result.status, privateHeader, spent)
      const headers: Record<string, string> = { vary: GITHUB_VARY, ...result.headers }
      if (limit !== undefined) Object.assign(headers, rateLimitHeaders(limit))
      writeJson(res, result.status, result.body, headers)
    }

    const { latencyMs, fault } = faults.take(method, url.pathname)
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs))
    if (fault !== undefined) {
      switch (fault.kind) {
        case 'drop':
          stats.record(label, method, template, 'dropped', privateHeader)
          req.socket.destroy()
          return
        case 'status':
          return send(githubError(fault.status, fault.status >= 500 ? 'Server Error' : 'Sandbox fault'))
        case 'secondary-limit':
          return send(
            {
              ...githubError(
                fault.status,
                'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
              ),
              headers: { 'retry-after': String(fault.retryAfter) },
            },
            caller.kind === 'installation' ? rateLimit.peek(String(caller.id)) : undefined,
          )
        case 'malformed':
          stats.record(label, method, template, 200, privateHeader)
          return writeRaw(res, 200, '{"message": "sandbox malformed fault", "items": [1, 2,, }')
        case 'truncated': {
          stats.record(label, method, template, 200, privateHeader)
          const full = JSON.stringify({ message: 'sandbox truncated fault', padding: 'x'.repeat(256) })
          res.writeHead(200, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': String(Buffer.byteLength(full)),
          })
          res.write(full.slice(0, Math.floor(full.length / 2)))
          setImmediate(() => res.destroy())
          return
        }
      }
    }

    if (route === undefined) return send(githubError(404, 'Not Found'))
    if (route.auth === 'app') {
      if (caller.kind !== 'app') {
        return send(
          githubError(
            401,
            caller.kind === 'invalid' ? caller.reason : 'A JSON web token could not be decoded',
          ),
        )
      }
    } else if (caller.kind !== 'installation') {
      return send(
        githubError(
          401,
          caller.kind === 'app'
            ? 'Bad credentials'
            : caller.kind === 'invalid'
              ? caller.reason
              : 'Requires authentication',
        ),
      )
    }

    // The budget is checked before the handler runs but spent only once the answer is known: a 304
    // costs nothing on GitHub, and `GET /rate_limit` never does.
    const budgeted = caller.kind === 'installation' && route.template !== 'GET /rate_limit'
    const budgetKey = caller.kind === 'installation' ? String(caller.id) : installation
    const limit: RateLimitState | undefined =
      caller.kind === 'installation' ? rateLimit.peek(budgetKey) : undefined
    if (budgeted && limit !== undefined && limit.remaining === 0) {
      return send(githubError(403, `API rate limit exceeded for installation ID ${budgetKey}.`), limit)
    }
    const spend = (result: RouteResult) => {
      if (!budgeted) return send(result, limit)
      return send(result, rateLimit.take(budgetKey).state, true)
    }

    const callerInstallation = caller.kind === 'installation' ? caller.id : 0
    let repo = undefined as ReturnType<SandboxStore['repo']>
    if (route.underRepo) {
      if (params.id !== undefined) {
        repo = store.repoById(Number(params.id))
      } else {
        repo = store.repo(params.owner as string, params.repo as string)
        if (repo === undefined) {
          const movedId = store.renamedTo(params.owner as string, params.repo as string)
          if (movedId !== undefined) {
            const rest = url.pathname.split('/').slice(4).join('/')
            const location = `${base}/repositories/${movedId}${rest === '' ? '' : `/${rest}`}${url.search}`
            // GitHub answers 301 for reads and 307 for writes, so clients keep the method and body.
            const status = method === 'GET' || method === 'HEAD' ? 301 : 307
            return spend({
              status,
              body: {
                message: 'Moved Permanently',
                url: location,
                documentation_url: 'https://docs.github.com/rest',
              },
              headers: { location },
            })
          }
        }
      }
      if (repo === undefined) return spend(githubError(404, 'Not Found'))
    }

    let body: unknown
    if (bodyText !== '') {
      try {
        body = JSON.parse(bodyText)
      } catch {
        return spend(githubError(400, 'Problems parsing JSON'))
      }
    }
    const result = route.handle({
      method,
      url,
      params,
      body,
      base,
      repo: repo as NonNullable<typeof repo>,
      installationId: callerInstallation,
    })
    if (method === 'GET' && result.status === 200) {
      const validators = validatorsOf(
        result.body,
        result.lastModified,
        etagPerToken ? credentialOf(req.headers.authorization) : undefined,
      )
      const conditional = {
        ifNoneMatch: req.headers['if-none-match'],
        ifModifiedSince: req.headers['if-modified-since'],
      }
      if (isNotModified(conditional, validators)) {
        // GitHub: a 304 to an authorized conditional request does not count against the primary limit.
        return send({ status: 304, headers: cacheHeaders(validators) }, limit)
      }
      result.headers = { ...result.headers, ...cacheHeaders(validators) }
    }
    return spend(result)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        writeJson(res, 500, { message: `sandbox: internal error — ${(error as Error).message}` })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (cause) =>
      reject(
        new SandboxError(
          'SANDBOX_OPTIONS_INVALID',
          `sandbox start: cannot listen on ${host}:${options.port ?? 0}`,
          { cause },
        ),
      ),
    )
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  base = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`

  const stopChurn = startChurnTimer(store, churn)
  let closing: Promise<void> | undefined
  return {
    url: base,
    appId,
    installationId,
    privateKey,
    publicKey,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    admin: createSandboxAdmin(base),
    store,
    issuedTokens: () => [...tokens.keys()],
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        stopChurn()
        server.closeAllConnections()
      })
      return closing
    },
  }
}

/**
 * The forge configuration that acts as this sandbox's App installation — what `createForge` takes
 * (structurally a ForgeConfig) when no GitHub App is configured.
 */
export function sandboxForgeConfig(
  sandbox: Pick<SandboxForge, 'appId' | 'installationId' | 'privateKey' | 'url'>,
): {
  appId: number
  installationId: number
  privateKey: string
  apiUrl: string
} {
  return {
    appId: sandbox.appId,
    installationId: sandbox.installationId,
    privateKey: sandbox.privateKey,
    apiUrl: sandbox.url,
  }
}

type ChurnOption = z.output<typeof sandboxChurnSchema> & { everyMs: number }

/** Validates the `churn` option; throws SandboxError `SANDBOX_OPTIONS_INVALID` naming what was expected. */
function parseChurnOption(churn: SandboxForgeOptions['churn']): ChurnOption | undefined {
  if (churn === undefined) return undefined
  const parsed = sandboxChurnSchema.safeParse(churn)
  const everyMs = churn.everyMs ?? 60_000
  if (!parsed.success || !Number.isInteger(everyMs) || everyMs < 1) {
    throw new SandboxError(
      'SANDBOX_OPTIONS_INVALID',
      `sandbox start: bad churn ${JSON.stringify(churn)} — expected { fraction: 0…1, seed: integer, everyMs?: positive integer }`,
    )
  }
  return { ...parsed.data, everyMs }
}

/** Starts the churn timer (unref'd: it never holds the process open); returns its stop. Tick k uses seed + k. */
function startChurnTimer(store: SandboxStore, churn: ChurnOption | undefined): () => void {
  if (churn === undefined) return () => {}
  let tick = 0
  const timer = setInterval(() => {
    churnSandbox(store, { ...churn, seed: churn.seed + tick++ })
  }, churn.everyMs)
  timer.unref()
  return () => clearInterval(timer)
}

/** True for 127.0.0.0/8, ::1, localhost (and their IPv4-mapped forms). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
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

/** The credential of an `Authorization` header, for per-token etags. */
function credentialOf(header: string | undefined): string | undefined {
  return header?.trim().split(/\s+/)[1]
}

function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
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
