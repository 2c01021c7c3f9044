/**
 * Argument checks both control twins share, so a bad call fails the same way on either: a NetControlError
 * `NET_CONTROL_INVALID` naming what was wrong and what was expected. Returns clean copies (dates truncated
 * to whole milliseconds, texts to one line of at most MAX_TEXT_CHARS without control characters: plain-text.ts).
 */
import { randomUUID } from 'node:crypto'
import { plainLine } from '../plain-text.js'
import {
  type ControlRequest,
  type ControlRequestInput,
  type ControlRequestKind,
  MAX_NETS_PER_READ,
  type NetPause,
  type PauseRequest,
} from './net-control-store.js'
import { MAX_TEXT_CHARS } from './control-text-limit.js'
import { NetControlError, type NetControlErrorContext } from './net-control-error.js'

/**
 * The most characters of a request id. The store's own ids are 33 (`<ISO instant>#<8 hex>`); an id is
 * matched whole by `take` and logged whole by the holder, so a longer one (written by hand) is refused as
 * an argument and dropped when read (net-control-document.ts).
 */
export const MAX_REQUEST_ID_CHARS = 64

const KINDS: readonly string[] = ['run', 'catch-up'] satisfies ControlRequestKind[]

function invalid(context: NetControlErrorContext, detail: string): never {
  throw new NetControlError('NET_CONTROL_INVALID', context, detail)
}

/** A non-empty net name; the context of the call's other checks. */
export function checkNet(component: string, operation: string, net: unknown): NetControlErrorContext {
  if (typeof net !== 'string' || net.trim() === '')
    invalid({ component, operation }, `expected a net name (a non-empty string); got ${JSON.stringify(net)}`)
  return { component, operation, net }
}

/** A list of net names for `getMany`: each non-blank, at most MAX_NETS_PER_READ of them. */
export function checkNets(component: string, nets: unknown): NetControlErrorContext {
  const context = { component, operation: 'getMany' }
  if (!Array.isArray(nets) || nets.length > MAX_NETS_PER_READ)
    invalid(context, `expected a list of at most ${MAX_NETS_PER_READ} net names; got ${describeList(nets)}`)
  for (const net of nets) checkNet(component, 'getMany', net)
  return context
}

function describeList(nets: unknown): string {
  return Array.isArray(nets) ? `${nets.length} names` : (JSON.stringify(nets) ?? String(nets))
}

/** A valid Date, truncated to whole milliseconds. */
export function checkInstant(context: NetControlErrorContext, field: string, value: unknown): Date {
  if (!(value instanceof Date) || !Number.isFinite(value.getTime()))
    invalid(context, `expected ${field} to be a valid Date; got ${String(value)}`)
  return new Date(Math.trunc(value.getTime()))
}

/** One plain line of text (plainLine), at most MAX_TEXT_CHARS, cut marked; undefined stays undefined. */
function checkText(context: NetControlErrorContext, field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') invalid(context, `expected ${field} to be a string; got ${typeof value}`)
  const line = plainLine(value, MAX_TEXT_CHARS)
  return line === '' ? undefined : line
}

/** The pause to store for `request` made at `now`. */
export function checkPause(context: NetControlErrorContext, request: PauseRequest, now: Date): NetPause {
  const at = checkInstant(context, 'now', now)
  const pause: NetPause = { at, abort: request?.abort === true }
  if (request.until !== undefined) {
    const until = checkInstant(context, 'until', request.until)
    if (until.getTime() <= at.getTime())
      invalid(context, `expected until to lie after now (${at.toISOString()}); got ${until.toISOString()}`)
    pause.until = until
  }
  return withTexts(context, pause, request)
}

/** A new request of `kind` made at `now`, with a fresh id. */
export function newRequest(
  context: NetControlErrorContext,
  kind: unknown,
  input: ControlRequestInput,
  now: Date,
): ControlRequest {
  checkKind(context, kind)
  return requestOf(context, input, now)
}

/** A new request (of any kind: a backfill's too) made at `now`, with a fresh id and its texts checked. */
export function requestOf(
  context: NetControlErrorContext,
  input: ControlRequestInput,
  now: Date,
): ControlRequest {
  const at = checkInstant(context, 'now', now)
  return withTexts<ControlRequest>(
    context,
    { id: `${at.toISOString()}#${randomUUID().slice(0, 8)}`, at },
    input ?? {},
  )
}

/** A request kind: `run` or `catch-up`. */
export function checkKind(context: NetControlErrorContext, kind: unknown): ControlRequestKind {
  if (typeof kind !== 'string' || !KINDS.includes(kind))
    invalid(context, `expected a request kind (${KINDS.join(' or ')}); got ${JSON.stringify(kind)}`)
  return kind === 'run' ? 'run' : 'catch-up'
}

/** What a request id may hold: printable ASCII without spaces (the store's own are `<ISO instant>#<8 hex>`). */
const ID_CHARS = /^[!-~]+$/

/**
 * A stored request id no call could have written (in the store's query language, for `request` to replace
 * it): empty, over MAX_REQUEST_ID_CHARS, or with a character outside ID_CHARS.
 */
export const BAD_REQUEST_ID_PATTERN = `^$|^[\\s\\S]{${MAX_REQUEST_ID_CHARS + 1}}|[^!-~]`

/** What is wrong with a request id (not 1…MAX_REQUEST_ID_CHARS of ID_CHARS), without echoing it. */
export function requestIdProblem(id: unknown): string | undefined {
  const expected = `expected 1 to ${MAX_REQUEST_ID_CHARS} printable ASCII characters without spaces`
  if (typeof id !== 'string') return `${expected}; got ${id === null ? 'null' : typeof id}`
  if (id === '' || id.length > MAX_REQUEST_ID_CHARS)
    return `${expected}; got a string of ${id.length} characters`
  if (!ID_CHARS.test(id)) return `${expected}; got one with other characters`
  return undefined
}

/** A request id (requestIdProblem); the refusal never echoes it. */
export function checkId(context: NetControlErrorContext, id: unknown): string {
  const problem = requestIdProblem(id)
  if (problem !== undefined) invalid(context, `request id: ${problem}`)
  return id as string
}

function withTexts<T extends { reason?: string; by?: string }>(
  context: NetControlErrorContext,
  target: T,
  input: ControlRequestInput,
): T {
  const reason = checkText(context, 'reason', input.reason)
  const by = checkText(context, 'by', input.by)
  if (reason !== undefined) target.reason = reason
  if (by !== undefined) target.by = by
  return target
}

/** Rejects before the call when the signal is already aborted. */
export function checkNotAborted(context: NetControlErrorContext, signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new NetControlError('NET_CONTROL_ABORTED', context, 'the call was aborted before it was sent', {
      cause: signal.reason,
    })
}
