/**
 * The sandbox's seed format: repositories with their pull requests, issues and commit statuses, in a
 * JSON file or built in code (see `generateSandboxFixture`). Validated with zod so a typo fails at start
 * with the path of the bad field. Times are ISO 8601 strings; omitted ones default to the sandbox's now.
 *
 * Not GitHub's wire format: fields are camelCase and minimal; the sandbox renders GitHub's shapes.
 */
import { readFileSync } from 'node:fs'
import * as z from 'zod'
import { SandboxError } from './sandbox-error.js'

const login = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/)
const association = z.enum([
  'OWNER',
  'MEMBER',
  'COLLABORATOR',
  'CONTRIBUTOR',
  'FIRST_TIME_CONTRIBUTOR',
  'FIRST_TIMER',
  'NONE',
])
const instant = z.iso.datetime({ offset: true })
const sha = z.string().regex(/^[0-9a-f]{40}$/)

const pullSchema = z.object({
  number: z.number().int().positive().optional(),
  title: z.string().default('A pull request'),
  body: z.string().nullable().default(null),
  state: z.enum(['open', 'closed']).default('open'),
  merged: z.boolean().default(false),
  draft: z.boolean().default(false),
  headSha: sha.optional(),
  headRef: z.string().optional(),
  baseRef: z.string().default('main'),
  user: login.default('octocat'),
  authorAssociation: association.default('MEMBER'),
  labels: z.array(z.string()).default([]),
  createdAt: instant.optional(),
  updatedAt: instant.optional(),
  closedAt: instant.nullable().optional(),
})

const issueSchema = z.object({
  number: z.number().int().positive().optional(),
  title: z.string().default('An issue'),
  body: z.string().nullable().default(null),
  state: z.enum(['open', 'closed']).default('open'),
  stateReason: z.enum(['completed', 'not_planned', 'reopened']).nullable().optional(),
  user: login.default('octocat'),
  authorAssociation: association.default('NONE'),
  labels: z.array(z.string()).default([]),
  createdAt: instant.optional(),
  updatedAt: instant.optional(),
  closedAt: instant.nullable().optional(),
})

const statusSchema = z.object({
  sha,
  state: z.enum(['error', 'failure', 'pending', 'success']),
  context: z.string().min(1).default('default'),
  description: z.string().nullable().default(null),
  targetUrl: z.string().nullable().default(null),
  createdAt: instant.optional(),
})

const repoSchema = z.object({
  owner: login,
  name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  id: z.number().int().positive().optional(),
  private: z.boolean().default(false),
  defaultBranch: z.string().default('main'),
  /** Earlier `owner/name`s: requests to them get GitHub's 301/307 to `/repositories/{id}/…`. */
  formerNames: z.array(z.string().regex(/^[^/\s]+\/[^/\s]+$/)).default([]),
  pulls: z.array(pullSchema).default([]),
  issues: z.array(issueSchema).default([]),
  statuses: z.array(statusSchema).default([]),
})

/**
 * The fixture schema; `parse` fills defaults. Typed by the interfaces below, not inferred: the public
 * declarations must not name zod (inside leasecron's bundle, not installed beside it). The annotation
 * checks that what the schema accepts and returns matches them.
 */
const sandboxFixtureSchema: z.ZodType<SandboxFixture, SandboxFixtureInput> = z.object({
  repos: z.array(repoSchema).default([]),
})

/** Who wrote a pull request or an issue, in GitHub's words. */
export type SandboxAuthorAssociation =
  | 'OWNER'
  | 'MEMBER'
  | 'COLLABORATOR'
  | 'CONTRIBUTOR'
  | 'FIRST_TIME_CONTRIBUTOR'
  | 'FIRST_TIMER'
  | 'NONE'

/** `T` as written: the keys `K` have defaults and may be left out. */
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>

/** A pull request after validation. Times are ISO 8601 strings; absent ones default to the sandbox's now. */
export interface SandboxFixturePull {
  number?: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  merged: boolean
  draft: boolean
  headSha?: string
  headRef?: string
  baseRef: string
  user: string
  authorAssociation: SandboxAuthorAssociation
  labels: string[]
  createdAt?: string
  updatedAt?: string
  closedAt?: string | null
}

/** An issue after validation. */
export interface SandboxFixtureIssue {
  number?: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  stateReason?: 'completed' | 'not_planned' | 'reopened' | null
  user: string
  authorAssociation: SandboxAuthorAssociation
  labels: string[]
  createdAt?: string
  updatedAt?: string
  closedAt?: string | null
}

/** A commit status after validation. */
export interface SandboxFixtureStatus {
  sha: string
  state: 'error' | 'failure' | 'pending' | 'success'
  context: string
  description: string | null
  targetUrl: string | null
  createdAt?: string
}

/** A repository after validation. */
export interface SandboxFixtureRepo {
  owner: string
  name: string
  id?: number
  private: boolean
  defaultBranch: string
  /** Earlier `owner/name`s: requests to them get GitHub's 301/307 to `/repositories/{id}/…`. */
  formerNames: string[]
  pulls: SandboxFixturePull[]
  issues: SandboxFixtureIssue[]
  statuses: SandboxFixtureStatus[]
}

/** A fixture after validation (defaults filled). */
export interface SandboxFixture {
  repos: SandboxFixtureRepo[]
}

type PullInput = WithDefaults<
  SandboxFixturePull,
  'title' | 'body' | 'state' | 'merged' | 'draft' | 'baseRef' | 'user' | 'authorAssociation' | 'labels'
>
type IssueInput = WithDefaults<
  SandboxFixtureIssue,
  'title' | 'body' | 'state' | 'user' | 'authorAssociation' | 'labels'
>
type StatusInput = WithDefaults<SandboxFixtureStatus, 'context' | 'description' | 'targetUrl'>
type RepoInput = WithDefaults<
  Omit<SandboxFixtureRepo, 'pulls' | 'issues' | 'statuses'>,
  'private' | 'defaultBranch' | 'formerNames'
> & { pulls?: PullInput[]; issues?: IssueInput[]; statuses?: StatusInput[] }

/** A fixture as written (defaults optional). */
export interface SandboxFixtureInput {
  repos?: RepoInput[]
}

/** Validates a fixture object; throws SandboxError `SANDBOX_FIXTURE_INVALID` naming each bad field. */
export function parseSandboxFixture(input: unknown, source = 'fixture'): SandboxFixture {
  const parsed = sandboxFixtureSchema.safeParse(input)
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ')
    throw new SandboxError(
      'SANDBOX_FIXTURE_INVALID',
      `sandbox seed: ${source} is not a valid fixture — ${problems}`,
    )
  }
  return parsed.data
}

/** Reads and validates a JSON fixture file; throws SandboxError naming the file when it cannot. */
export function loadSandboxFixture(path: string): SandboxFixture {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    throw new SandboxError('SANDBOX_FIXTURE_INVALID', `sandbox seed: cannot read fixture file ${path}`, {
      cause,
    })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    throw new SandboxError('SANDBOX_FIXTURE_INVALID', `sandbox seed: fixture file ${path} is not JSON`, {
      cause,
    })
  }
  return parseSandboxFixture(json, `fixture file ${path}`)
}
