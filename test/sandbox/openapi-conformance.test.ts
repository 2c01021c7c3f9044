import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandboxRoutes } from '../../src/sandbox/sandbox-api.js'
import { SandboxInstallations } from '../../src/sandbox/sandbox-installations.js'
import type { SandboxFixtureInput } from '../../src/sandbox/sandbox-fixture.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { SandboxStore } from '../../src/sandbox/sandbox-store.js'
import { createOpenApiValidator } from './openapi-validator.js'
import { appJwt, call, mintToken } from './sandbox-http.js'

const HEAD = 'd'.repeat(40)
const fixture: SandboxFixtureInput = {
  repos: [
    {
      owner: 'acme',
      name: 'widgets',
      id: 501,
      formerNames: ['acme/gadgets'],
      pulls: [
        { number: 1, headSha: HEAD, labels: ['bug'], updatedAt: '2026-09-30T10:00:00Z' },
        { number: 2, state: 'closed', merged: true, updatedAt: '2026-09-30T09:00:00Z' },
      ],
      issues: [
        { number: 3, title: 'Bug', labels: ['bug'], updatedAt: '2026-09-30T11:00:00Z' },
        { number: 4, title: 'Done', state: 'closed', updatedAt: '2026-09-29T11:00:00Z' },
      ],
      statuses: [
        { sha: HEAD, state: 'pending', context: 'ci/build', createdAt: '2026-09-30T10:00:00Z' },
        { sha: HEAD, state: 'success', context: 'ci/test', createdAt: '2026-09-30T10:01:00Z' },
      ],
    },
    { owner: 'acme', name: 'empty', id: 502 },
  ],
}

/** One request to a sandbox route and the api.github.com operation its answer must conform to. */
interface Case {
  operation: string
  path: string
  method?: string
  body?: unknown
  as?: 'app' | 'installation'
  status: number
}

const REPO = '/repos/acme/widgets'
/**
 * Every sandbox route, by its template, with the requests that exercise it. Routes under
 * `/repositories/:id` reuse their `/repos/:owner/:repo` cases (GitHub serves both; only the latter is
 * described). A route missing here fails the suite, so no route escapes conformance.
 */
const CASES: Record<string, Case[]> = {
  'GET /app': [{ operation: 'GET /app', path: '/app', as: 'app', status: 200 }],
  'GET /app/installations': [
    { operation: 'GET /app/installations', path: '/app/installations?per_page=1', as: 'app', status: 200 },
    {
      operation: 'GET /app/installations',
      path: '/app/installations?per_page=1&page=2',
      as: 'app',
      status: 200,
    },
  ],
  'POST /app/installations/:installation_id/access_tokens': [
    {
      operation: 'POST /app/installations/{installation_id}/access_tokens',
      path: '/app/installations/INSTALLATION/access_tokens',
      method: 'POST',
      as: 'app',
      status: 201,
    },
    {
      operation: 'POST /app/installations/{installation_id}/access_tokens',
      path: '/app/installations/1/access_tokens',
      method: 'POST',
      as: 'app',
      status: 404,
    },
    {
      operation: 'POST /app/installations/{installation_id}/access_tokens',
      path: '/app/installations/77/access_tokens',
      method: 'POST',
      as: 'app',
      status: 403,
    },
  ],
  'GET /rate_limit': [{ operation: 'GET /rate_limit', path: '/rate_limit', status: 200 }],
  'GET /installation/repositories': [
    {
      operation: 'GET /installation/repositories',
      path: '/installation/repositories?per_page=1',
      status: 200,
    },
  ],
  'GET /repos/:owner/:repo': [
    { operation: 'GET /repos/{owner}/{repo}', path: REPO, status: 200 },
    { operation: 'GET /repos/{owner}/{repo}', path: '/repos/acme/nothing', status: 404 },
    { operation: 'GET /repos/{owner}/{repo}', path: '/repos/acme/gadgets', status: 301 },
  ],
  'GET /repos/:owner/:repo/pulls': [
    { operation: 'GET /repos/{owner}/{repo}/pulls', path: `${REPO}/pulls?state=all&per_page=1`, status: 200 },
    { operation: 'GET /repos/{owner}/{repo}/pulls', path: `${REPO}/pulls?state=nonsense`, status: 422 },
  ],
  'GET /repos/:owner/:repo/pulls/:number': [
    { operation: 'GET /repos/{owner}/{repo}/pulls/{pull_number}', path: `${REPO}/pulls/1`, status: 200 },
    { operation: 'GET /repos/{owner}/{repo}/pulls/{pull_number}', path: `${REPO}/pulls/2`, status: 200 },
    { operation: 'GET /repos/{owner}/{repo}/pulls/{pull_number}', path: `${REPO}/pulls/99`, status: 404 },
  ],
  'GET /repos/:owner/:repo/commits/:ref/status': [
    {
      operation: 'GET /repos/{owner}/{repo}/commits/{ref}/status',
      path: `${REPO}/commits/${HEAD}/status`,
      status: 200,
    },
  ],
  'GET /repos/:owner/:repo/commits/:ref/statuses': [
    {
      operation: 'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
      path: `${REPO}/commits/${HEAD}/statuses?per_page=1`,
      status: 200,
    },
  ],
  'POST /repos/:owner/:repo/statuses/:sha': [
    {
      operation: 'POST /repos/{owner}/{repo}/statuses/{sha}',
      path: `${REPO}/statuses/${HEAD}`,
      method: 'POST',
      body: {
        state: 'success',
        context: 'review/gate',
        description: 'ok',
        target_url: 'https://example.com/x',
      },
      status: 201,
    },
  ],
  'GET /repos/:owner/:repo/issues': [
    {
      operation: 'GET /repos/{owner}/{repo}/issues',
      path: `${REPO}/issues?state=all&per_page=1`,
      status: 200,
    },
    { operation: 'GET /repos/{owner}/{repo}/issues', path: `${REPO}/issues?state=nonsense`, status: 422 },
  ],
  'GET /repos/:owner/:repo/issues/:number': [
    { operation: 'GET /repos/{owner}/{repo}/issues/{issue_number}', path: `${REPO}/issues/3`, status: 200 },
    { operation: 'GET /repos/{owner}/{repo}/issues/{issue_number}', path: `${REPO}/issues/1`, status: 200 },
    { operation: 'GET /repos/{owner}/{repo}/issues/{issue_number}', path: `${REPO}/issues/99`, status: 404 },
  ],
}

function casesOf(template: string): Case[] | undefined {
  const [method, path] = template.split(' ') as [string, string]
  if (!path.startsWith('/repositories/:id')) return CASES[template]
  return CASES[`${method} ${path.replace('/repositories/:id', '/repos/:owner/:repo')}`]
    ?.filter((c) => c.path.startsWith(REPO))
    .map((c) => ({ ...c, path: c.path.replace(REPO, '/repositories/501') }))
}

const templates = createSandboxRoutes({
  store: new SandboxStore(() => 0),
  appId: 1,
  installationId: 1,
  installations: new SandboxInstallations(() => 0),
  mintToken: () => ({ token: '', expiresAt: 0 }),
  rateLimit: () => ({ limit: 0, remaining: 0, used: 0, reset: 0, resource: 'core' }),
}).map((r) => r.template)

const validator = createOpenApiValidator()
let sandbox: SandboxForge
let token: string
beforeAll(async () => {
  // Two installations: one on the fixture's account, and a suspended one (its token mint answers 403).
  sandbox = await startSandboxForge({
    fixture,
    installations: [
      { id: 42_420_001, account: 'acme' },
      { id: 77, account: 'elsewhere', suspended: true },
    ],
  })
  token = await mintToken(sandbox)
})
afterAll(() => sandbox.close())

async function send(c: Case, headers: Record<string, string> = {}) {
  const credential = c.as === 'app' ? appJwt(sandbox) : token
  const path = c.path.replace('INSTALLATION', String(sandbox.installationId))
  const answer = await call(sandbox, undefined, path, {
    method: c.method ?? 'GET',
    headers: { authorization: `${c.as === 'app' ? 'Bearer' : 'token'} ${credential}`, ...headers },
    ...(c.body === undefined ? {} : { body: c.body }),
  })
  return answer
}

describe("the sandbox answers in the shapes of GitHub's OpenAPI description", () => {
  it('has conformance cases for every route it serves', () => {
    const uncovered = templates.filter((t) => (casesOf(t) ?? []).length === 0)
    expect(uncovered, 'routes without a conformance case could drift from GitHub unseen').toEqual([])
  })

  it.each(templates)('%s answers with documented statuses, bodies and headers', async (template) => {
    for (const c of casesOf(template) ?? []) {
      const answer = await send(c)
      expect(answer.status, `${c.method ?? 'GET'} ${c.path}`).toBe(c.status)
      const problems = validator.problems(c.operation, {
        status: answer.status,
        headers: answer.headers,
        body: answer.json,
      })
      expect(
        problems,
        `${c.method ?? 'GET'} ${c.path} (${c.operation} ${answer.status}) strays from GitHub`,
      ).toEqual([])
      const etag = answer.headers.get('etag')
      if (answer.status !== 200 || (c.method ?? 'GET') !== 'GET' || etag === null) continue
      const again = await send(c, { 'if-none-match': etag })
      expect(again.status).toBe(304)
      if (
        validator
          .problems(c.operation, { status: 304, headers: again.headers, body: undefined })[0]
          ?.includes('documented:')
      )
        continue // GitHub does not document a 304 for every GET it answers conditionally
      expect(
        validator.problems(c.operation, { status: 304, headers: again.headers, body: again.json }),
      ).toEqual([])
    }
  })

  it('fails an answer that lacks a required field', async () => {
    const answer = await send({ operation: 'GET /app', path: '/app', as: 'app', status: 200 })
    const { node_id: _dropped, ...withoutNodeId } = answer.json as Record<string, unknown>
    expect(
      validator.problems('GET /app', { status: 200, headers: answer.headers, body: withoutNodeId }),
    ).toContainEqual(expect.stringContaining("must have required property 'node_id'"))
    const statusAnswer = { status: 201, headers: new Headers(), body: {} }
    expect(validator.problems('POST /repos/{owner}/{repo}/statuses/{sha}', statusAnswer)).toContain(
      'header Location is documented but missing',
    )
  })
})
