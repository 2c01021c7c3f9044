/**
 * A typed client for a sandbox's `/_sandbox/*` routes, for tests, benchmarks and demos — including a
 * sandbox in another process. Uses Node's global fetch: admin traffic is not forge traffic and must not
 * pass the forge's meter. Not a GitHub client.
 */
import type { SandboxChurnInput, SandboxChurnResult } from './sandbox-churn.js'
import type { ArmedFault, SandboxFaultInput } from './sandbox-faults.js'
import type { RateLimitState } from './sandbox-rate-limit.js'
import type { SandboxStatsSnapshot } from './sandbox-stats.js'
import type { AuthorAssociation, StatusState } from './sandbox-store.js'

/** Raised when an admin route answers an error; `status` is the HTTP status. */
export class SandboxAdminError extends Error {
  override readonly name = 'SandboxAdminError'
  readonly code = 'SANDBOX_ADMIN_FAILED'
  readonly status: number

  constructor(message: string, status: number, options?: { cause?: unknown }) {
    super(message, options)
    this.status = status
  }
}

/** GitHub-shaped records as the admin routes return them (the fields tests usually read). */
export interface AdminPull {
  number: number
  state: 'open' | 'closed'
  merged: boolean
  draft: boolean
  head: { sha: string; ref: string }
  updated_at: string
}
export interface AdminIssue {
  number: number
  state: 'open' | 'closed'
  title: string
  labels: Array<{ name: string }>
  updated_at: string
}
export interface AdminStatus {
  id: number
  state: StatusState
  context: string
  description: string | null
  target_url: string | null
}

/** The admin operations of one sandbox. */
export interface SandboxAdmin {
  stats(): Promise<SandboxStatsSnapshot>
  resetStats(): Promise<void>
  /** Arms a fault; returns its id. */
  addFault(fault: SandboxFaultInput): Promise<number>
  listFaults(): Promise<ArmedFault[]>
  /** Disarms one fault, or every fault when `id` is absent. */
  clearFaults(id?: number): Promise<number>
  rateLimit(): Promise<RateLimitState>
  setRateLimit(values: { remaining?: number; limit?: number }): Promise<RateLimitState>
  /** One installation's budget (the sandbox's installations each have their own). */
  installationRateLimit(installation: number): Promise<RateLimitState>
  setInstallationRateLimit(
    installation: number,
    values: { remaining?: number; limit?: number },
  ): Promise<RateLimitState>
  addRepo(owner: string, name: string): Promise<{ id: number; full_name: string }>
  renameRepo(
    owner: string,
    name: string,
    to: { owner?: string; name: string },
  ): Promise<{ id: number; full_name: string }>
  addPull(
    owner: string,
    name: string,
    fields?: {
      title?: string
      headSha?: string
      headRef?: string
      draft?: boolean
      user?: string
      authorAssociation?: AuthorAssociation
    },
  ): Promise<AdminPull>
  /** Moves a pull request's head, as a push does; a fresh sha when absent. */
  moveHead(owner: string, name: string, number: number, sha?: string): Promise<AdminPull>
  closePull(owner: string, name: string, number: number): Promise<AdminPull>
  mergePull(owner: string, name: string, number: number): Promise<AdminPull>
  addIssue(
    owner: string,
    name: string,
    fields?: {
      title?: string
      body?: string | null
      state?: 'open' | 'closed'
      user?: string
      authorAssociation?: AuthorAssociation
      labels?: string[]
    },
  ): Promise<AdminIssue>
  updateIssue(
    owner: string,
    name: string,
    number: number,
    patch: { title?: string; state?: 'open' | 'closed'; labels?: string[] },
  ): Promise<AdminIssue>
  closeIssue(owner: string, name: string, number: number): Promise<AdminIssue>
  /** Posts a status as the review system would (not counted, no budget). */
  postVerdict(
    owner: string,
    name: string,
    sha: string,
    status: { state: StatusState; context?: string; description?: string | null; target_url?: string | null },
  ): Promise<AdminStatus>
  /** Every status of a commit, newest first. */
  statuses(owner: string, name: string, sha: string): Promise<AdminStatus[]>
  /**
   * Changes `fraction` of the open pull requests, of their head commits' statuses and of the open
   * issues, chosen by `seed` (the same seed over the same data changes the same records): one churn
   * per benchmark pass. Returns what changed. A 422 (SandboxAdminError) names a bad field.
   */
  churn(input: SandboxChurnInput): Promise<SandboxChurnResult>
}

/** A client for the sandbox at `baseUrl` (its `url`). */
export function createSandboxAdmin(baseUrl: string): SandboxAdmin {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const target = `${baseUrl}/_sandbox${path}`
    let response: Response
    try {
      response = await fetch(target, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    } catch (cause) {
      throw new SandboxAdminError(`sandbox admin ${method} ${path}: request failed`, 0, { cause })
    }
    const text = await response.text()
    if (!response.ok) {
      throw new SandboxAdminError(
        `sandbox admin ${method} ${path}: ${response.status} ${text}`,
        response.status,
      )
    }
    return (text === '' ? undefined : JSON.parse(text)) as T
  }
  const repo = (owner: string, name: string) =>
    `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`
  return {
    stats: () => call('GET', '/stats'),
    resetStats: () => call('POST', '/stats/reset'),
    addFault: async (fault) => (await call<{ id: number }>('POST', '/faults', fault)).id,
    listFaults: () => call('GET', '/faults'),
    clearFaults: async (id) =>
      (await call<{ removed: number }>('DELETE', id === undefined ? '/faults' : `/faults/${id}`)).removed,
    rateLimit: () => call('GET', '/rate-limit'),
    setRateLimit: (values) => call('POST', '/rate-limit', values),
    installationRateLimit: (installation) => call('GET', `/rate-limit/${installation}`),
    setInstallationRateLimit: (installation, values) => call('POST', `/rate-limit/${installation}`, values),
    addRepo: (owner, name) => call('POST', '/repos', { owner, name }),
    renameRepo: (owner, name, to) => call('POST', `${repo(owner, name)}/rename`, to),
    addPull: (owner, name, fields = {}) => call('POST', `${repo(owner, name)}/pulls`, fields),
    moveHead: (owner, name, number, sha) =>
      call('POST', `${repo(owner, name)}/pulls/${number}/head`, sha === undefined ? {} : { sha }),
    closePull: (owner, name, number) => call('POST', `${repo(owner, name)}/pulls/${number}/close`, {}),
    mergePull: (owner, name, number) => call('POST', `${repo(owner, name)}/pulls/${number}/merge`, {}),
    addIssue: (owner, name, fields = {}) => call('POST', `${repo(owner, name)}/issues`, fields),
    updateIssue: (owner, name, number, patch) =>
      call('PATCH', `${repo(owner, name)}/issues/${number}`, patch),
    closeIssue: (owner, name, number) => call('POST', `${repo(owner, name)}/issues/${number}/close`, {}),
    postVerdict: (owner, name, sha, status) => call('POST', `${repo(owner, name)}/statuses/${sha}`, status),
    statuses: (owner, name, sha) => call('GET', `${repo(owner, name)}/statuses/${sha}`),
    churn: (input) => call('POST', '/churn', input),
  }
}
