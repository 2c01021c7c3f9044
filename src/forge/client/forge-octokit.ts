/**
 * The forge client as nets and the public API see it: Octokit's `request(route, parameters)`, described by
 * our own small interface rather than Octokit's types. Octokit is inside leasecron's bundle and is not
 * installed beside it, so the public declarations must not name `@octokit/*`: a consumer type-checking with
 * `skipLibCheck: false` would fail to resolve them.
 *
 * What it is not: Octokit's route table. Responses are typed by the caller (`request<Shape>(…)`), unknown
 * otherwise; a net author who wants GitHub's full route types installs `@octokit/types` and names
 * `Endpoints['GET /repos/{owner}/{repo}']['response']['data']` as the shape (docs/install.md).
 */

/** Per-request options Octokit reads under `request` (leasecron's nets pass a signal). */
export interface ForgeRequestOptions {
  /** Aborting it rejects the request with an AbortError at once, even while it waits for a retry. */
  signal?: AbortSignal | undefined
  [option: string]: unknown
}

/** A route's URL parameters, query or body fields, and `request` options, as Octokit takes them. */
export interface ForgeRequestParameters {
  request?: ForgeRequestOptions
  [parameter: string]: unknown
}

/** An answer as Octokit resolves it: status, final URL, lower-case headers and the parsed body. */
export interface ForgeResponse<T> {
  status: number
  url: string
  headers: { [name: string]: string | number | undefined; link?: string; etag?: string }
  data: T
}

/**
 * The installation's client. Rejects, as Octokit does, with an error carrying `status` for a 4xx/5xx
 * answer (after the retry and rate-limit plugins gave up), with an AbortError when the request's or the
 * forge's signal aborts, and with ForgeUnreachableError when the forge cannot be reached.
 */
export interface ForgeOctokit {
  /**
   * Sends `route` (`'GET /repos/{owner}/{repo}'`) with its parameters. `T` is the body's shape as the
   * caller expects it; leasecron does not check it.
   */
  request<T = unknown>(route: string, parameters?: ForgeRequestParameters): Promise<ForgeResponse<T>>
}
