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
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSandboxAdmin, type SandboxAdmin } from './sandbox-admin.js'
import { createSandboxRoutes } from './sandbox-api.js'
import { SandboxAuth } from './sandbox-auth.js'
import { churnSandbox, type SandboxChurn, type SandboxChurnInput } from './sandbox-churn.js'
import { sandboxChurnSchema } from './sandbox-churn-schema.js'
import { SandboxError } from './sandbox-error.js'
import { sandboxFaultSchema } from './sandbox-fault-schema.js'
import { type SandboxFaultInput, SandboxFaults } from './sandbox-faults.js'
import { loadSandboxFixture, parseSandboxFixture, type SandboxFixtureInput } from './sandbox-fixture.js'
import { generateSandboxFixture, type SandboxGeneratorOptions } from './sandbox-generator.js'
import { generateAppKeyPair } from './sandbox-keys.js'
import { SandboxRateLimit, type SandboxRateLimitOptions } from './sandbox-rate-limit.js'
import { type SandboxInstallationInput, SandboxInstallations } from './sandbox-installations.js'
import { createSandboxHandler, writeJson } from './sandbox-server.js'
import type { SandboxRequestLogEntry } from './sandbox-request-log.js'
import { SandboxStats, type SandboxStatsSnapshot } from './sandbox-stats.js'
import { SandboxStore } from './sandbox-store.js'

// CommonJS exports, not an ES import: on Node 22+ an ES import of node:http evaluates its lazy WebSocket
// getters and loads Node's undici and http2 (13 MiB of RSS); see src/worker/http.ts.
const { createServer } = process.getBuiltinModule('node:http')

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
  /** The one installation (seeing every repository); 42420001 by default. Ignored with `installations`. */
  installationId?: number
  /**
   * Several installations instead, each seeing its account's repositories (their owner is its login),
   * each with its own tokens and budget; the first is `installationId`. Change them with `installations`.
   */
  installations?: SandboxInstallationInput[]
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
  /** The first installation (the one every existing caller acts as). */
  installationId: number
  /** The App's installations: add, remove or suspend one while the sandbox runs (`GET /app/installations`). */
  installations: SandboxInstallations
  /** The App's private key (PEM). A secret in spirit: tests assert it never reaches a log. */
  privateKey: string
  /** The App's public key (SPKI PEM). */
  publicKey: string
  /** The request counts since the last reset (same as `GET /_sandbox/stats`). */
  stats(): SandboxStatsSnapshot
  /** Every request since the last reset, one by one (see `sandbox-request-log.ts`); not served over HTTP. */
  requestLog(): { entries: SandboxRequestLogEntry[]; dropped: number }
  /** Forgets the request counts and the log. */
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

/**
 * Starts a sandbox and resolves once it listens. Throws SandboxError `SANDBOX_NON_LOOPBACK` for a
 * non-loopback host without `allowNonLoopback`, `SANDBOX_FIXTURE_INVALID` for bad seed data and
 * `SANDBOX_OPTIONS_INVALID` for a bad key, fault or churn, or a port it cannot listen on.
 */
export async function startSandboxForge(options: SandboxForgeOptions = {}): Promise<SandboxForge> {
  const host = checkHost(options)
  const clock = () => (options.clock ?? (() => new Date()))().getTime()
  const appId = options.appId ?? 4242
  const installationId = options.installations?.[0]?.id ?? options.installationId ?? 42_420_001
  const installations = new SandboxInstallations(clock)
  for (const input of options.installations ?? [{ id: installationId, account: undefined }])
    installations.add(input)
  const privateKey = options.privateKey ?? generateAppKeyPair(options.keyFormat ?? 'pkcs1').privateKey
  const auth = new SandboxAuth({ appId, privateKey, tokenTtlMs: options.tokenTtlMs ?? 3_600_000, clock })
  const store = seedStore(options, clock)
  const churn = parseChurnOption(options.churn)
  const rateLimit = new SandboxRateLimit(options.rateLimit ?? {}, clock)
  const stats = new SandboxStats(clock)
  let base = ''
  const handle = createSandboxHandler({
    routes: createSandboxRoutes({
      store,
      appId,
      installationId,
      installations,
      mintToken: (id) => auth.mint(id),
      rateLimit: (id) => rateLimit.peek(String(id)),
    }),
    auth,
    store,
    stats,
    rateLimit,
    installationId,
    installations,
    faults: armFaults(options.faults),
    etagPerToken: options.etagPerToken ?? true,
    base: () => base,
  })
  const server = await listen(handle, host, options.port ?? 0)
  base = baseUrlOf(server)
  const stopChurn = startChurnTimer(store, churn)
  let closing: Promise<void> | undefined
  return {
    url: base,
    appId,
    installationId,
    installations,
    privateKey,
    publicKey: auth.publicKey,
    stats: () => stats.snapshot(),
    requestLog: () => stats.log.snapshot(),
    resetStats: () => stats.reset(),
    admin: createSandboxAdmin(base),
    store,
    issuedTokens: () => auth.issued(),
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

/** The host to bind; refuses a non-loopback one unless `allowNonLoopback` (the sandbox hands out tokens). */
function checkHost(options: SandboxForgeOptions): string {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopback(host) && options.allowNonLoopback !== true) {
    throw new SandboxError(
      'SANDBOX_NON_LOOPBACK',
      `sandbox start: refusing to bind ${host}; expected a loopback address (127.0.0.1, ::1, localhost) or allowNonLoopback: true`,
    )
  }
  return host
}

/** The store, seeded from the generator and then the fixture (object or JSON file). */
function seedStore(options: SandboxForgeOptions, clock: () => number): SandboxStore {
  const store = new SandboxStore(clock, options.generate?.seed ?? 1)
  if (options.generate !== undefined) store.seed(generateSandboxFixture(options.generate))
  if (options.fixture !== undefined) {
    store.seed(
      typeof options.fixture === 'string'
        ? loadSandboxFixture(options.fixture)
        : parseSandboxFixture(options.fixture),
    )
  }
  return store
}

/** The faults armed from the start; a bad one throws SandboxError naming it. */
function armFaults(input: SandboxFaultInput[] | undefined): SandboxFaults {
  const faults = new SandboxFaults()
  for (const fault of input ?? []) {
    const parsed = sandboxFaultSchema.safeParse(fault)
    if (!parsed.success) {
      throw new SandboxError(
        'SANDBOX_OPTIONS_INVALID',
        `sandbox start: bad fault ${JSON.stringify(fault)} — ${parsed.error.message}`,
      )
    }
    faults.add(parsed.data)
  }
  return faults
}

/** A server on `host:port` running the pipeline; a 500 (or a cut connection) when a step throws. */
async function listen(
  handle: ReturnType<typeof createSandboxHandler>,
  host: string,
  port: number,
): Promise<Server> {
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
        new SandboxError('SANDBOX_OPTIONS_INVALID', `sandbox start: cannot listen on ${host}:${port}`, {
          cause,
        }),
      ),
    )
    server.listen(port, host, () => resolve())
  })
  return server
}

function baseUrlOf(server: Server): string {
  const address = server.address() as AddressInfo
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
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

type ChurnOption = SandboxChurn & { everyMs: number }

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
