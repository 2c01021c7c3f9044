/**
 * Taking one private header off a request on its way to the wire, whatever shape undici gives the
 * headers in (a flat `[name, value, …]` list, `[name, value]` pairs, a Headers or Map, a record). The
 * transport's interceptors use it for the headers an Octokit hook stamped in the caller's async context
 * (the lane, the trace parent): they carry what the throttling queue would lose, and never leave the process.
 *
 * Not a header parser: values are taken as given (the first one when repeated).
 */
import type { Dispatcher } from 'undici'

type DispatchHeaders = Dispatcher.DispatchOptions['headers']
type HeaderPair = [string, string | string[] | undefined]

/** undici's flat `[name, value, name, value]` list (not a list of pairs). */
function isFlatList(headers: NonNullable<DispatchHeaders>): headers is string[] {
  return Array.isArray(headers) && (headers.length === 0 || !Array.isArray(headers[0]))
}

/** Any iterable of `[name, value]` pairs: an array of pairs, a Headers, a Map. */
function isPairs(headers: NonNullable<DispatchHeaders>): headers is Iterable<HeaderPair> {
  return Symbol.iterator in headers
}

/** Copies the headers without `name` (any case; `name` in lower case), returning the value it carried. */
export function stripHeader(
  headers: DispatchHeaders,
  name: string,
): { headers: DispatchHeaders; value: string | undefined } {
  if (headers == null) return { headers, value: undefined }
  let value: string | undefined
  const isIt = (key: unknown) => typeof key === 'string' && key.toLowerCase() === name
  const firstValue = (raw: unknown) => (Array.isArray(raw) ? String(raw[0]) : String(raw))
  if (isFlatList(headers)) {
    const flat: string[] = []
    for (let i = 0; i < headers.length; i += 2) {
      const [key, raw] = [headers[i], headers[i + 1]]
      if (isIt(key)) value = firstValue(raw)
      else if (key !== undefined && raw !== undefined) flat.push(key, raw)
    }
    return { headers: flat, value }
  }
  if (isPairs(headers)) {
    const pairs: HeaderPair[] = []
    for (const [key, raw] of headers) {
      if (isIt(key)) value = firstValue(raw)
      else pairs.push([key, raw])
    }
    return { headers: pairs, value }
  }
  const copy: Record<string, string | string[] | undefined> = {}
  for (const [key, raw] of Object.entries(headers)) {
    if (isIt(key)) value = firstValue(raw)
    else copy[key] = raw
  }
  return { headers: copy, value }
}
