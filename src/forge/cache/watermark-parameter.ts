/**
 * A watermark parameter: a query parameter whose value is a moving position in a list (`since=<the newest
 * update read>` on GitHub's issue list), so that each URL carrying it is asked only until the position
 * moves, and then never again.
 *
 * The caller names it on the request with a private header (`watermarkHeader('since')`); the forge cache
 * (forge-cache.ts) then keeps one entry per list, not one per position: the key is the URL without the
 * parameter, the entry remembers the position it answered, a request at another position is a miss whose
 * answer replaces the entry. The shared Mongo cache so never holds a URL that will not be asked again,
 * while the current position still revalidates (a quiet list's 304, in this process or a successor's).
 * The transport strips the header (it never reaches the wire), cache or not.
 *
 * Not a URL parser beyond the query string, and not a rule of its own about which parameters move: only
 * the caller knows that.
 */

/** The private header naming the request's watermark parameter. */
export const WATERMARK_HEADER = 'x-leasecron-watermark'

/** The headers an Octokit request carries to mark `parameter` as its watermark. */
export function watermarkHeader(parameter: string): Record<string, string> {
  return { [WATERMARK_HEADER]: parameter }
}

/**
 * `path` (path and query, as undici dispatches it) without `parameter`, and the parameter's value ('' when
 * the request carries none: the list read from its start is a position too). Other parameters keep their
 * order and spelling.
 */
export function splitWatermark(path: string, parameter: string): { path: string; position: string } {
  const mark = path.indexOf('?')
  if (mark < 0) return { path, position: '' }
  let position = ''
  const kept: string[] = []
  for (const pair of path.slice(mark + 1).split('&')) {
    const name = decodeURIComponent(pair.split('=', 1)[0] ?? '')
    if (name === parameter) position = decodeURIComponent(pair.slice(name.length + 1))
    else kept.push(pair)
  }
  return {
    path: kept.length > 0 ? `${path.slice(0, mark)}?${kept.join('&')}` : path.slice(0, mark),
    position,
  }
}
