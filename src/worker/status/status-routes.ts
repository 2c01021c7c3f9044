/**
 * The status routes of the worker's HTTP server: `GET /status` (the snapshot as JSON) and `GET /` (the
 * status page, unless LEASECRON_STATUS_PAGE=false). Read-only: they answer GET and HEAD only (the server
 * refuses other methods before this is reached).
 */
import type { OutgoingHttpHeaders } from 'node:http'
import { PAGE_HEADERS } from './page-assets.js'
import { renderStatusPage } from './render-status-page.js'
import type { StatusSnapshot } from './status-snapshot.js'

export interface StatusRoutesOptions {
  snapshot(): Promise<StatusSnapshot>
  /** Whether `/` serves the page. */
  page: boolean
}

type Reply = (status: number, body: string, type?: string, headers?: OutgoingHttpHeaders) => void

/** Answers `path` when it is a status route and resolves `true`; resolves `false` for any other path. */
export function serveStatusRoute(path: string, options: StatusRoutesOptions, reply: Reply): boolean {
  if (path === '/status') {
    options.snapshot().then(
      (snapshot) => reply(200, `${JSON.stringify(snapshot, null, 2)}\n`),
      () => reply(500, '{"error":"status unavailable"}'),
    )
    return true
  }
  if (path === '/') {
    if (!options.page) {
      reply(
        404,
        '{"error":"the status page is off (LEASECRON_STATUS_PAGE=false); GET /status still answers"}',
      )
      return true
    }
    options.snapshot().then(
      (snapshot) => reply(200, renderStatusPage(snapshot), 'text/html; charset=utf-8', PAGE_HEADERS),
      () => reply(500, '{"error":"status unavailable"}'),
    )
    return true
  }
  return false
}
