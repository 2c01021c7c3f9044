/**
 * Discovery for `GITHUB_INSTALLATION_IDS=all`: the App's installations from `GET /app/installations`
 * (authenticated as the App), paged 100 at a time by following the `Link` header's `rel="next"` as
 * GitHub's pagination guide says, suspended installations (`suspended_at` set) left out.
 *
 * Not the refresh (the worker asks again on LEASECRON_INSTALLATIONS_REFRESH) and not a client: it uses the
 * App's client it is given (`createAppForge` in github-app.ts), so its requests are metered.
 */
import type { ForgeOctokit, ForgeResponse } from './forge-octokit.js'

/** The most pages one discovery reads (100 installations each): a loop guard, not a product limit. */
const MAX_PAGES = 1_000

interface InstallationItem {
  id: number
  suspended_at?: string | null
}

/** Thrown when discovery cannot list the App's installations; `cause` is the forge's error. */
export class InstallationDiscoveryError extends Error {
  override readonly name = 'InstallationDiscoveryError'
  readonly code = 'FORGE_INSTALLATION_DISCOVERY'
  readonly component = 'forge'
  readonly operation = 'GET /app/installations'
}

/**
 * The ids of the App's installations that are not suspended, ascending. Rejects with
 * InstallationDiscoveryError (its `cause` the forge's error) when a page cannot be read; `signal` aborts it.
 */
export async function discoverInstallations(app: ForgeOctokit, signal?: AbortSignal): Promise<number[]> {
  const active: number[] = []
  for (let page = 1; page <= MAX_PAGES; page++) {
    let answer: ForgeResponse<InstallationItem[]>
    try {
      answer = await app.request<InstallationItem[]>('GET /app/installations', {
        per_page: 100,
        page,
        ...(signal ? { request: { signal } } : {}),
      })
    } catch (error) {
      throw new InstallationDiscoveryError(
        `forge: could not list the App's installations (GET /app/installations, page ${page}): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      )
    }
    for (const item of answer.data) if (item.suspended_at == null) active.push(item.id)
    if (!hasNextPage(answer.headers.link)) break
  }
  return active.sort((a, b) => a - b)
}

/** Whether a `Link` header names a `rel="next"` page. */
function hasNextPage(link: unknown): boolean {
  return typeof link === 'string' && /rel="next"/.test(link)
}
