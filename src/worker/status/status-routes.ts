/**
 * The status routes of the worker's HTTP server: `GET /status` (the snapshot as JSON) and `GET /` (the
 * status page, unless LEASECRON_STATUS_PAGE=false), each narrowed to one installation by
 * `?installation=12` (a bad filter is answered 400, `{ "error": { "code", "message" } }` as the admin API
 * answers). Read-only: they answer GET and HEAD only (the server refuses other methods before this is
 * reached).
 */
import type { OutgoingHttpHeaders } from 'node:http'
import { InstallationFilterError, parseInstallationFilter } from './installation-filter.js'
import { narrowToInstallation } from '../../status/installation-summary.js'
import type { StatusSnapshot } from '../../status/status-snapshot.js'

export interface StatusRoutesOptions {
  snapshot(): Promise<StatusSnapshot>
  /** Whether `/` serves the page. */
  page: boolean
}

type Reply = (status: number, body: string, type?: string, headers?: OutgoingHttpHeaders) => void

/**
 * Answers `path` (with its `query`, without the `?`) when it is a status route and returns `true`;
 * returns `false` for any other path.
 */
export function serveStatusRoute(
  path: string,
  options: StatusRoutesOptions,
  reply: Reply,
  query = '',
): boolean {
  if (path !== '/status' && path !== '/') return false
  if (path === '/' && !options.page) {
    reply(404, '{"error":"the status page is off (LEASECRON_STATUS_PAGE=false); GET /status still answers"}')
    return true
  }
  let installation: number | null
  try {
    installation = parseInstallationFilter(new URLSearchParams(query).getAll('installation'))
  } catch (error) {
    if (!(error instanceof InstallationFilterError)) throw error
    const message = `?installation: ${error.message}`
    reply(400, `${JSON.stringify({ error: { code: 'bad-filter', message } })}\n`)
    return true
  }
  const narrowed = (snapshot: StatusSnapshot) =>
    installation === null ? snapshot : narrowToInstallation(snapshot, installation)
  const key = `${path} ${installation}`
  const answered =
    path === '/status'
      ? options.snapshot().then((snapshot) =>
          reply(
            200,
            builtOnce(snapshot, key, () => `${JSON.stringify(narrowed(snapshot), null, 2)}\n`),
          ),
        )
      : Promise.all([options.snapshot(), loadPage()]).then(([snapshot, page]) =>
          reply(
            200,
            builtOnce(snapshot, key, () => page.render(narrowed(snapshot))),
            'text/html; charset=utf-8',
            page.headers,
          ),
        )
  answered.catch(() => reply(500, '{"error":"status unavailable"}'))
  return true
}

/**
 * Each snapshot's bodies (`/status` and the page, per installation filter), built on the first request
 * and served to every later one while the snapshot is (shared-snapshot.ts: a second): a burst of requests
 * cost one JSON.stringify or render each, not one per request. Forgotten with their snapshot; at most
 * BODIES_KEPT per snapshot, so filters naming ever-new installations build, and keep, no more.
 */
const bodies = new WeakMap<StatusSnapshot, Map<string, string>>()
const BODIES_KEPT = 16

/** The body `key` of `snapshot`: built by `build` once, then the same string. */
function builtOnce(snapshot: StatusSnapshot, key: string, build: () => string): string {
  let built = bodies.get(snapshot)
  if (!built) {
    built = new Map()
    bodies.set(snapshot, built)
  }
  const kept = built.get(key)
  if (kept !== undefined) return kept
  const body = build()
  if (built.size < BODIES_KEPT) built.set(key, body)
  return body
}

/**
 * The page's renderer and assets (most of the HTTP server's bytes), loaded on the first request for `/`:
 * a worker starting up, and one whose page nobody opens, does not compile them (bundle-graph.test.ts).
 */
async function loadPage() {
  const [{ renderStatusPage }, { PAGE_HEADERS }] = await Promise.all([
    import('./render-status-page.js'),
    import('./page-assets.js'),
  ])
  return { render: renderStatusPage, headers: PAGE_HEADERS }
}
