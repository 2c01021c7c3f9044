/**
 * The `/_sandbox/*` routes: ground truth and mutations for tests, benchmarks and demos — read or reset
 * the request counts, arm or clear faults, set a budget, and change the data (move a pull request's
 * head, close or merge it, file, edit or close an issue, post a verdict, rename a repository, churn a
 * seeded fraction of the records). JSON in,
 * JSON out, no auth, never counted. Not part of GitHub's API; `sandbox-admin.ts` is the typed client.
 */
import { z } from 'zod'
import { churnSandbox, sandboxChurnSchema } from './sandbox-churn.js'
import { type SandboxFaults, sandboxFaultSchema } from './sandbox-faults.js'
import type { SandboxRateLimit } from './sandbox-rate-limit.js'
import { issueShape, pullShape, repoShape, statusShape } from './sandbox-shapes.js'
import type { SandboxStats } from './sandbox-stats.js'
import { SandboxNotFoundError, type SandboxStore } from './sandbox-store.js'

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

/** Handles one admin request; `path` is the URL path after `/_sandbox`. */
export function handleAdmin(
  deps: SandboxAdminDeps,
  method: string,
  path: string,
  body: unknown,
): AdminResult {
  const { store, base } = deps
  const installation = String(deps.installationId)
  const parse = <T>(schema: z.ZodType<T>): T => {
    const parsed = schema.safeParse(body ?? {})
    if (!parsed.success) {
      throw new AdminInputError(
        parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
      )
    }
    return parsed.data
  }
  const route = `${method} ${path}`
  const table: Array<[RegExp, (m: string[]) => AdminResult]> = [
    [/^GET \/stats$/, () => ({ status: 200, body: deps.stats.snapshot() })],
    [
      /^(?:POST \/stats\/reset|DELETE \/stats)$/,
      () => {
        deps.stats.reset()
        return { status: 204 }
      },
    ],
    [/^GET \/faults$/, () => ({ status: 200, body: deps.faults.list() })],
    [/^POST \/faults$/, () => ({ status: 201, body: { id: deps.faults.add(parse(sandboxFaultSchema)) } })],
    [/^DELETE \/faults$/, () => ({ status: 200, body: { removed: deps.faults.remove() } })],
    [
      /^DELETE \/faults\/(\d+)$/,
      (m) => ({ status: 200, body: { removed: deps.faults.remove(Number(m[1])) } }),
    ],
    [/^GET \/rate-limit$/, () => ({ status: 200, body: deps.rateLimit.peek(installation) })],
    [
      /^POST \/rate-limit$/,
      () => ({ status: 200, body: deps.rateLimit.set(installation, parse(schemas.rateLimit)) }),
    ],
    [/^POST \/churn$/, () => ({ status: 200, body: churnSandbox(store, parse(sandboxChurnSchema)) })],
    [
      /^POST \/repos$/,
      () => {
        const r = parse(schemas.repo)
        return { status: 201, body: repoShape(store.addRepo(r.owner, r.name), base) }
      },
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/rename$/,
      (m) => ({ status: 200, body: repoShape(store.rename(m[1]!, m[2]!, parse(schemas.rename)), base) }),
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/pulls$/,
      (m) => {
        const pull = store.addPull(m[1]!, m[2]!, parse(schemas.pull))
        return { status: 201, body: pullShape(pull, store.repo(m[1]!, m[2]!)!, base, true) }
      },
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/head$/,
      (m) => {
        const pull = store.moveHead(m[1]!, m[2]!, Number(m[3]), parse(schemas.head).sha)
        return { status: 200, body: pullShape(pull, store.repo(m[1]!, m[2]!)!, base, true) }
      },
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/(close|merge)$/,
      (m) => {
        const merged = m[4] === 'merge' || parse(schemas.close).merged === true
        const pull = store.closePull(m[1]!, m[2]!, Number(m[3]), merged)
        return { status: 200, body: pullShape(pull, store.repo(m[1]!, m[2]!)!, base, true) }
      },
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/issues$/,
      (m) => {
        const issue = store.addIssue(m[1]!, m[2]!, parse(schemas.issue))
        return { status: 201, body: issueShape(issue, store.repo(m[1]!, m[2]!)!, base) }
      },
    ],
    [
      /^PATCH \/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/,
      (m) => {
        const issue = store.updateIssue(m[1]!, m[2]!, Number(m[3]), parse(schemas.issuePatch))
        return { status: 200, body: issueShape(issue, store.repo(m[1]!, m[2]!)!, base) }
      },
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/close$/,
      (m) => {
        const issue = store.updateIssue(m[1]!, m[2]!, Number(m[3]), { state: 'closed' })
        return { status: 200, body: issueShape(issue, store.repo(m[1]!, m[2]!)!, base) }
      },
    ],
    [
      /^POST \/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]{40})$/,
      (m) => {
        const s = parse(schemas.status)
        const repo = mustRepo(m[1]!, m[2]!)
        // A verdict may name a commit the sandbox has not seen (a push it was not told about).
        repo.commits.add(m[3]!)
        const status = store.addStatusTo(repo, m[3]!, {
          state: s.state,
          context: s.context ?? 'default',
          description: s.description ?? null,
          targetUrl: s.target_url ?? null,
          creator: 'sandbox-admin[bot]',
        })
        return { status: 201, body: statusShape(status, repo, base) }
      },
    ],
    [
      /^GET \/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]{40})$/,
      (m) => {
        const repo = mustRepo(m[1]!, m[2]!)
        return { status: 200, body: store.statusesOf(repo, m[3]!).map((s) => statusShape(s, repo, base)) }
      },
    ],
  ]
  const mustRepo = (owner: string, name: string) => {
    const repo = store.repo(owner, name)
    if (repo === undefined) throw new SandboxNotFoundError(`sandbox: no repository ${owner}/${name}`)
    return repo
  }
  try {
    for (const [pattern, run] of table) {
      const m = pattern.exec(route)
      if (m !== null) return run([...m].map((part) => (part === undefined ? '' : decodeURIComponent(part))))
    }
  } catch (error) {
    if (error instanceof AdminInputError)
      return { status: 422, body: { message: `sandbox admin ${route}: ${error.message}` } }
    if (error instanceof SandboxNotFoundError) return { status: 404, body: { message: error.message } }
    throw error
  }
  return { status: 404, body: { message: `sandbox admin: no route ${route}` } }
}

class AdminInputError extends Error {
  override readonly name = 'AdminInputError'
}
