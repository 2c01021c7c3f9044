/**
 * One pass of the board issue sync: for each repository, read the issues updated since its watermark
 * and bring their cards up to date; then advance that repository's watermark.
 *
 * Per repository: `GET /repos/{o}/{r}/issues?state=all&since=<watermark>&per_page=100&sort=created&
 * direction=asc`, following `rel="next"`. Sorting by creation, not by update, keeps paging safe while
 * issues change: an update never moves an issue to another page, and one that newly matches `since` can
 * only shift the rest by one (read twice, never skipped). Pull requests (items with `pull_request`) are
 * skipped. With no repositories configured, the installation's own list is read first
 * (`GET /installation/repositories`, 100 a page).
 *
 * A repository's watermark moves only after its sync finished, and only when the list outgrew one page
 * (more than 100 issues since the watermark): to the newest `updated_at` read, but never past the pass's
 * start minus the overlap (1 minute), so an issue updated during the pass (on a page already read) is
 * read again next pass and never lost. Otherwise it stays, and with it the list's URL: the conditional
 * request revalidates the one URL and a quiet repository costs a free 304 every pass. (Moving it whenever
 * issues came back made the pass after each change ask a URL never asked before, paying a point for
 * "nothing new"; a one-page answer costs one point whatever its `since`, so keeping the older watermark
 * costs only re-reading that page's unchanged issues, which write nothing.) One repository failing is
 * logged and counted; the others go on, and its watermark stays.
 *
 * Not the net declaration (`board-issue-sync.ts`) and not a store.
 */
import type { Logger } from '../../logger.js'
import type { ForgeOctokit } from '../../forge/client/github-app.js'
import { watermarkHeader } from '../../forge/cache/watermark-parameter.js'
import { describeError } from '../../store-call/describe-error.js'
import type { BoardStore } from './board-store.js'
import { cardId, forgeLabels, holdsFields, type IssueFields, newCard } from './card.js'

/** The watermark overlap: how far before the pass's start the next pass re-reads. */
export const WATERMARK_OVERLAP_MS = 60_000

/** What a pass needs. */
export interface BoardSyncPassContext {
  forge: ForgeOctokit
  store: BoardStore
  /** `owner/name`s; empty means every repository the installation can access. */
  repos: readonly string[]
  /** The pass's start: new cards are stamped with it and watermarks are set from it. */
  startedAt: Date
  signal?: AbortSignal | undefined
  log: Logger
}

/** What one repository's sync did. */
export interface RepoSyncReport {
  repo: string
  ok: boolean
  pages: number
  issues: number
  created: number
  refreshed: number
  movedToDone: number
  skippedPulls: number
  /** Set when the sync failed: the error's one-line description. */
  error?: string
}

/** What a pass did. */
export interface BoardSyncReport {
  repos: RepoSyncReport[]
  /** Requests sent listing the installation's repositories (0 when REPOS is set). */
  repoListPages: number
}

interface ForgeIssue {
  number: number
  title: string
  state: string
  html_url: string
  updated_at: string
  author_association: string
  user: { login: string } | null
  labels: Array<string | { name?: string }>
  pull_request?: unknown
}

/**
 * Runs one pass (see the module doc) and resolves its report. Rejects only when the installation's
 * repository list cannot be read (nothing to sync) or the signal aborted before any repository; a
 * repository's failure is in its report entry.
 */
export async function runBoardSyncPass(context: BoardSyncPassContext): Promise<BoardSyncReport> {
  const report: BoardSyncReport = { repos: [], repoListPages: 0 }
  const repos = context.repos.length > 0 ? [...context.repos] : await listInstallationRepos(context, report)
  for (const repo of repos) {
    if (context.signal?.aborted) break
    const entry: RepoSyncReport = {
      repo,
      ok: false,
      pages: 0,
      issues: 0,
      created: 0,
      refreshed: 0,
      movedToDone: 0,
      skippedPulls: 0,
    }
    report.repos.push(entry)
    try {
      const newest = await syncRepository(repo, context, entry)
      // One page keeps the URL (see the module doc); past it, re-reading would grow with every change.
      if (newest !== undefined && entry.pages > 1)
        await context.store.setWatermark(repo, nextWatermark(newest, context.startedAt), {
          signal: context.signal,
        })
      entry.ok = true
    } catch (error) {
      entry.error = describeError(error)
      context.log.warn(
        { repo, error: entry.error, pages: entry.pages },
        'board issue sync: a repository failed; its watermark stays and the next pass reads it again',
      )
    }
  }
  return report
}

async function listInstallationRepos(
  context: BoardSyncPassContext,
  report: BoardSyncReport,
): Promise<string[]> {
  const repos: string[] = []
  for (let page = 1; ; page++) {
    const answer = await context.forge.request<{ repositories: { full_name: string }[] }>(
      'GET /installation/repositories',
      {
        per_page: 100,
        page,
        request: { signal: context.signal },
      },
    )
    report.repoListPages++
    repos.push(...answer.data.repositories.map((r) => r.full_name))
    if (!hasNext(answer.headers.link)) return repos
  }
}

/**
 * Where a repository's watermark moves after a sync that read issues: to the newest `updated_at` read, but
 * no later than the pass's start minus the overlap. Exported for its tests.
 */
export function nextWatermark(newestUpdate: Date, startedAt: Date): Date {
  return new Date(Math.min(newestUpdate.getTime(), startedAt.getTime() - WATERMARK_OVERLAP_MS))
}

/** Syncs one repository's issues; resolves the newest `updated_at` among them (undefined when none came). */
async function syncRepository(
  repo: string,
  context: BoardSyncPassContext,
  entry: RepoSyncReport,
): Promise<Date | undefined> {
  const { forge, store, signal } = context
  const [owner, name] = repo.split('/') as [string, string]
  const watermark = await store.getWatermark(repo, { signal })
  let newest: number | undefined
  for (let page = 1; ; page++) {
    if (signal?.aborted) throw new Error('board issue sync: the pass was aborted mid-repository')
    const answer = await forge.request('GET /repos/{owner}/{repo}/issues', {
      owner,
      repo: name,
      state: 'all',
      sort: 'created',
      direction: 'asc',
      per_page: 100,
      page,
      ...(watermark === undefined ? {} : { since: watermark.toISOString() }),
      // `since` moves: the cache keeps this list's latest position, not every URL it was ever read at.
      headers: watermarkHeader('since'),
      request: { signal },
    })
    entry.pages++
    for (const issue of answer.data as ForgeIssue[]) {
      newest = Math.max(newest ?? 0, Date.parse(issue.updated_at) || 0)
      if (issue.pull_request !== undefined) {
        entry.skippedPulls++
        continue
      }
      entry.issues++
      await upsertCard(repo, issue, context, entry)
    }
    if (!hasNext(answer.headers.link)) return newest === undefined ? undefined : new Date(newest)
  }
}

async function upsertCard(
  repo: string,
  issue: ForgeIssue,
  context: BoardSyncPassContext,
  entry: RepoSyncReport,
) {
  const { store, startedAt } = context
  const call = { signal: context.signal }
  const fields: IssueFields = {
    title: issue.title,
    state: issue.state === 'closed' ? 'closed' : 'open',
    labels: forgeLabels(
      issue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean),
    ),
    author: issue.user?.login ?? 'ghost',
    authorAssociation: issue.author_association,
    url: issue.html_url,
    updatedAt: new Date(issue.updated_at),
  }
  const id = cardId(repo, issue.number)
  let card = await store.getCard(id, call)
  if (card === undefined) {
    if (await store.insertCard(newCard(repo, issue.number, fields, startedAt), call)) {
      entry.created++
      return
    }
    // Another replica (or an earlier, crashed pass) inserted it between the read and the insert.
    card = await store.getCard(id, call)
    if (card === undefined) return
  }
  // An issue read again at the watermark, unchanged since the card was written, costs no write.
  if (!holdsFields(card, fields) && (await store.refreshCard(id, fields, call))) entry.refreshed++
  // A later close moves the card to done — only from a column the sync itself set, and only if nobody
  // moved it since we read it (the compare-and-set on its column).
  if (fields.state === 'closed' && card.column !== 'done' && card.columnSetBy === 'sync') {
    if (await store.moveCard(id, { from: card.column, to: 'done', by: 'sync', now: startedAt }, call))
      entry.movedToDone++
  }
}

function hasNext(link: string | undefined): boolean {
  return link !== undefined && /<[^>]+>;\s*rel="next"/.test(link)
}
