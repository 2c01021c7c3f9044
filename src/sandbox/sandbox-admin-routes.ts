/**
 * The `/_sandbox/*` routes: ground truth and mutations for tests, benchmarks and demos — read or reset
 * the request counts, arm or clear faults, set a budget, and change the data (move a pull request's
 * head, close or merge it, file, edit or close an issue, post a verdict, rename a repository, churn a
 * seeded fraction of the records). JSON in,
 * JSON out, no auth, never counted. Not part of GitHub's API; `sandbox-admin.ts` is the typed client.
 */
import * as z from 'zod'
import { churnSandbox } from './sandbox-churn.js'
import { sandboxChurnSchema } from './sandbox-churn-schema.js'
import { sandboxFaultSchema } from './sandbox-fault-schema.js'
import type { SandboxFaults } from './sandbox-faults.js'
import type { SandboxRateLimit } from './sandbox-rate-limit.js'
import { issueShape, pullShape, repoShape, statusShape } from './sandbox-shapes.js'
import type { SandboxStats } from './sandbox-stats.js'
import { type RepoRecord, SandboxNotFoundError, type SandboxStore } from './sandbox-store.js'

/** What the admin routes act on. */
export interface SandboxAdminDeps {
  store: SandboxStore
  stats: SandboxStats
  faults: SandboxFaults
  rateLimit: SandboxRateLimit
  installationId: number
  base: string
}

/** An admin answer. */
export interface AdminResult {
  status: number
  body?: unknown
}

const association = z.enum([
  'OWNER',
  'MEMBER',
  'COLLABORATOR',
  'CONTRIBUTOR',
  'FIRST_TIME_CONTRIBUTOR',
  'FIRST_TIMER',
  'NONE',
])
const sha = z.string().regex(/^[0-9a-f]{40}$/)
const schemas = {
  repo: z.object({ owner: z.string().min(1), name: z.string().min(1) }),
  rename: z.object({ owner: z.string().min(1).optional(), name: z.string().min(1) }),
  pull: z.object({
    title: z.string().optional(),
    headSha: sha.optional(),
    headRef: z.string().optional(),
    draft: z.boolean().optional(),
    user: z.string().optional(),
    authorAssociation: association.optional(),
  }),
  head: z.object({ sha: sha.optional() }),
  close: z.object({ merged: z.boolean().optional() }),
  issue: z.object({
    title: z.string().optional(),
    body: z.string().nullable().optional(),
    state: z.enum(['open', 'closed']).optional(),
    user: z.string().optional(),
    authorAssociation: association.optional(),
    labels: z.array(z.string()).optional(),
  }),
  issuePatch: z.object({
    title: z.string().optional(),
    state: z.enum(['open', 'closed']).optional(),
    labels: z.array(z.string()).optional(),
  }),
  status: z.object({
    state: z.enum(['error', 'failure', 'pending', 'success']),
    context: z.string().min(1).optional(),
    description: z.string().nullable().optional(),
    target_url: z.string().nullable().optional(),
  }),
  rateLimit: z.object({
    remaining: z.number().int().min(0).optional(),
    limit: z.number().int().min(0).optional(),
  }),
}

/** One admin request being served: its deps, the route's captured path parts, and its body parser. */
interface AdminCall {
  deps: SandboxAdminDeps
  /** The pattern's captures, URI-decoded; `m[1]`, `m[2]` are owner and name under `/repos`. */
  m: string[]
  /** Validates the body; throws AdminInputError (a 422) naming each bad field. */
  parse<T>(schema: z.ZodType<T>): T
}

type AdminHandler = (call: AdminCall) => AdminResult

const REPO = '\\/repos\\/([^/]+)\\/([^/]+)'
/** The admin routes, matched against `METHOD /path` in order. */
const ADMIN_ROUTES: Array<[RegExp, AdminHandler]> = [
  [/^GET \/stats$/, ({ deps }) => ({ status: 200, body: deps.stats.snapshot() })],
  [/^(?:POST \/stats\/reset|DELETE \/stats)$/, resetStats],
  [/^GET \/faults$/, ({ deps }) => ({ status: 200, body: deps.faults.list() })],
  [
    /^POST \/faults$/,
    ({ deps, parse }) => ({ status: 201, body: { id: deps.faults.add(parse(sandboxFaultSchema)) } }),
  ],
  [/^DELETE \/faults$/, ({ deps }) => ({ status: 200, body: { removed: deps.faults.remove() } })],
  [
    /^DELETE \/faults\/(\d+)$/,
    ({ deps, m }) => ({ status: 200, body: { removed: deps.faults.remove(Number(m[1])) } }),
  ],
  [
    /^GET \/rate-limit$/,
    ({ deps }) => ({ status: 200, body: deps.rateLimit.peek(String(deps.installationId)) }),
  ],
  [/^POST \/rate-limit$/, setRateLimit],
  [
    /^GET \/rate-limit\/(\d+)$/,
    ({ deps, m }) => ({ status: 200, body: deps.rateLimit.peek(String(Number(m[1]))) }),
  ],
  [
    /^POST \/rate-limit\/(\d+)$/,
    ({ deps, m, parse }) => ({
      status: 200,
      body: deps.rateLimit.set(String(Number(m[1])), parse(schemas.rateLimit)),
    }),
  ],
  [
    /^POST \/churn$/,
    ({ deps, parse }) => ({ status: 200, body: churnSandbox(deps.store, parse(sandboxChurnSchema)) }),
  ],
  [/^POST \/repos$/, addRepo],
  [new RegExp(`^POST ${REPO}\\/rename$`), renameRepo],
  [new RegExp(`^POST ${REPO}\\/pulls$`), addPull],
  [new RegExp(`^POST ${REPO}\\/pulls\\/(\\d+)\\/head$`), moveHead],
  [new RegExp(`^POST ${REPO}\\/pulls\\/(\\d+)\\/(close|merge)$`), closePull],
  [new RegExp(`^POST ${REPO}\\/issues$`), addIssue],
  [new RegExp(`^PATCH ${REPO}\\/issues\\/(\\d+)$`), updateIssue],
  [new RegExp(`^POST ${REPO}\\/issues\\/(\\d+)\\/close$`), closeIssue],
  [new RegExp(`^POST ${REPO}\\/statuses\\/([0-9a-f]{40})$`), postVerdict],
  [new RegExp(`^GET ${REPO}\\/statuses\\/([0-9a-f]{40})$`), listVerdicts],
]

/**
 * Handles one admin request; `path` is the URL path after `/_sandbox`. Answers 422 naming the bad
 * field for a bad body, 404 for an unknown route or record.
 */
export function handleAdmin(
  deps: SandboxAdminDeps,
  method: string,
  path: string,
  body: unknown,
): AdminResult {
  const route = `${method} ${path}`
  const parse = <T>(schema: z.ZodType<T>): T => {
    const parsed = schema.safeParse(body ?? {})
    if (parsed.success) return parsed.data
    throw new AdminInputError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    )
  }
  try {
    for (const [pattern, handle] of ADMIN_ROUTES) {
      const m = pattern.exec(route)
      if (m === null) continue
      return handle({
        deps,
        m: [...m].map((part) => (part === undefined ? '' : decodeURIComponent(part))),
        parse,
      })
    }
  } catch (error) {
    if (error instanceof AdminInputError)
      return { status: 422, body: { message: `sandbox admin ${route}: ${error.message}` } }
    if (error instanceof SandboxNotFoundError) return { status: 404, body: { message: error.message } }
    throw error
  }
  return { status: 404, body: { message: `sandbox admin: no route ${route}` } }
}

function resetStats({ deps }: AdminCall): AdminResult {
  deps.stats.reset()
  return { status: 204 }
}

function setRateLimit({ deps, parse }: AdminCall): AdminResult {
  return { status: 200, body: deps.rateLimit.set(String(deps.installationId), parse(schemas.rateLimit)) }
}

function addRepo({ deps, parse }: AdminCall): AdminResult {
  const r = parse(schemas.repo)
  return { status: 201, body: repoShape(deps.store.addRepo(r.owner, r.name), deps.base) }
}

function renameRepo({ deps, m, parse }: AdminCall): AdminResult {
  return { status: 200, body: repoShape(deps.store.rename(m[1]!, m[2]!, parse(schemas.rename)), deps.base) }
}

function addPull({ deps, m, parse }: AdminCall): AdminResult {
  const pull = deps.store.addPull(m[1]!, m[2]!, parse(schemas.pull))
  return { status: 201, body: pullShape(pull, mustRepo(deps, m), deps.base, true) }
}

function moveHead({ deps, m, parse }: AdminCall): AdminResult {
  const pull = deps.store.moveHead(m[1]!, m[2]!, Number(m[3]), parse(schemas.head).sha)
  return { status: 200, body: pullShape(pull, mustRepo(deps, m), deps.base, true) }
}

function closePull({ deps, m, parse }: AdminCall): AdminResult {
  const merged = m[4] === 'merge' || parse(schemas.close).merged === true
  const pull = deps.store.closePull(m[1]!, m[2]!, Number(m[3]), merged)
  return { status: 200, body: pullShape(pull, mustRepo(deps, m), deps.base, true) }
}

function addIssue({ deps, m, parse }: AdminCall): AdminResult {
  const issue = deps.store.addIssue(m[1]!, m[2]!, parse(schemas.issue))
  return { status: 201, body: issueShape(issue, mustRepo(deps, m), deps.base) }
}

function updateIssue({ deps, m, parse }: AdminCall): AdminResult {
  const issue = deps.store.updateIssue(m[1]!, m[2]!, Number(m[3]), parse(schemas.issuePatch))
  return { status: 200, body: issueShape(issue, mustRepo(deps, m), deps.base) }
}

function closeIssue({ deps, m }: AdminCall): AdminResult {
  const issue = deps.store.updateIssue(m[1]!, m[2]!, Number(m[3]), { state: 'closed' })
  return { status: 200, body: issueShape(issue, mustRepo(deps, m), deps.base) }
}

function postVerdict({ deps, m, parse }: AdminCall): AdminResult {
  const s = parse(schemas.status)
  const repo = mustRepo(deps, m)
  // A verdict may name a commit the sandbox has not seen (a push it was not told about).
  repo.commits.add(m[3]!)
  const status = deps.store.addStatusTo(repo, m[3]!, {
    state: s.state,
    context: s.context ?? 'default',
    description: s.description ?? null,
    targetUrl: s.target_url ?? null,
    creator: 'sandbox-admin[bot]',
  })
  return { status: 201, body: statusShape(status, repo, deps.base) }
}

function listVerdicts({ deps, m }: AdminCall): AdminResult {
  const repo = mustRepo(deps, m)
  return { status: 200, body: deps.store.statusesOf(repo, m[3]!).map((s) => statusShape(s, repo, deps.base)) }
}

/** The repository `m[1]/m[2]`; SandboxNotFoundError (a 404) when there is none. */
function mustRepo(deps: SandboxAdminDeps, m: string[]): RepoRecord {
  const repo = deps.store.repo(m[1]!, m[2]!)
  if (repo === undefined) throw new SandboxNotFoundError(`sandbox: no repository ${m[1]}/${m[2]}`)
  return repo
}

class AdminInputError extends Error {
  override readonly name = 'AdminInputError'
}
