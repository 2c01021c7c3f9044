/**
 * Discovery for `GITHUB_INSTALLATION_IDS=all`: the App's installations from `GET /app/installations`
 * (authenticated as the App), paged 100 at a time by following the `Link` header's `rel="next"` as
 * GitHub's pagination guide says, suspended installations (`suspended_at` set) left out.
 *
 * Not the refresh (the worker asks again on LEASECRON_INSTALLATIONS_REFRESH) and not a client: it uses the
 * App's client it is given (`createAppForge` in github-app.ts), so its requests are metered.
 *
 * It trusts no entry of the answer: an id that is not a positive safe integer (a string, a negative, a
 * fraction, none) would name a net `<net>:undefined` or act as another installation's forge, so such
 * entries are left out and named in one warning, and an id listed twice is kept once. A listing with no
 * installation left is refused (InstallationDiscoveryError) rather than answered empty: at start there is
 * nothing to act as, and at a refresh the worker keeps the installations it acts as (and says so on
 * every refresh) instead of stopping every campaign on one answer — an App really uninstalled everywhere
 * shows as failing passes (no token can be minted), not as campaigns gone quiet.
 */
import type { Logger } from '../../logger.js'
import type { ForgeOctokit, ForgeResponse } from '../client/forge-octokit.js'

/** The most pages one discovery reads (100 installations each): a loop guard, not a product limit. */
const MAX_PAGES = 1_000

interface InstallationItem {
  id: unknown
  suspended_at?: unknown
}

/** The most rejected entries one warning names (a long bad listing is still one short line). */
const MAX_NAMED = 10

/** Thrown when discovery cannot list the App's installations; `cause` is the forge's error. */
export class InstallationDiscoveryError extends Error {
  override readonly name = 'InstallationDiscoveryError'
  readonly code = 'FORGE_INSTALLATION_DISCOVERY'
  readonly component = 'forge'
  readonly operation = 'GET /app/installations'
}

/**
 * The ids of the App's installations that are not suspended, ascending, each once. Entries that are not an
 * installation with a positive safe-integer id are left out and named in one warning on `log`. Rejects
 * with InstallationDiscoveryError when a page cannot be read (its `cause` the forge's error), is not a
 * list, or when no installation is left; `signal` aborts it.
 */
export async function discoverInstallations(
  app: ForgeOctokit,
  signal?: AbortSignal,
  log?: Pick<Logger, 'warn'>,
): Promise<number[]> {
  const active = new Set<number>()
  const rejected: string[] = []
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await listPage(app, page, signal)
    for (const item of answer.data) {
      const id = installationIdOf(item)
      if (id === undefined) rejected.push(shown(item))
      else if (active.has(id)) rejected.push(`${id} (listed twice)`)
      else if (item.suspended_at == null) active.add(id)
    }
    if (!hasNextPage(answer.headers.link)) break
  }
  if (rejected.length > 0)
    log?.warn(
      { rejected: rejected.slice(0, MAX_NAMED), rejectedCount: rejected.length },
      `forge: GET /app/installations listed ${rejected.length} entries that are not an installation with a positive integer id, or listed one twice; left out`,
    )
  if (active.size === 0)
    throw new InstallationDiscoveryError(
      `forge: GET /app/installations listed no installation that is not suspended${rejected.length > 0 ? ` (${rejected.length} entries left out as not an installation)` : ''}: nothing to act as`,
    )
  return [...active].sort((a, b) => a - b)
}

/** One page of the listing, checked to be a list. */
async function listPage(
  app: ForgeOctokit,
  page: number,
  signal: AbortSignal | undefined,
): Promise<ForgeResponse<InstallationItem[]>> {
  let answer: ForgeResponse<unknown>
  try {
    answer = await app.request<unknown>('GET /app/installations', {
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
  if (!Array.isArray(answer.data))
    throw new InstallationDiscoveryError(
      `forge: GET /app/installations (page ${page}) answered ${shown(answer.data)}, expected a list of installations`,
    )
  return answer as ForgeResponse<InstallationItem[]>
}

/** An entry's id when it is an installation whose id is a positive safe integer; undefined otherwise. */
function installationIdOf(item: unknown): number | undefined {
  if (typeof item !== 'object' || item === null) return undefined
  const id = (item as InstallationItem).id
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined
}

/** An entry as a warning names it: its JSON, cut short. */
function shown(value: unknown): string {
  let text: string
  try {
    // A big id may arrive as a bigint (an exact JSON parse): shown by its digits.
    text = JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** Whether a `Link` header names a `rel="next"` page. */
function hasNextPage(link: unknown): boolean {
  return typeof link === 'string' && /rel="next"/.test(link)
}
