/**
 * The stored shape of one net's controls in `net_controls` (schema in mongo-net-control-store.ts) and its
 * parser: every control document MongoNetControlStore reads goes through `parseNetControlDocument`, so a
 * malformed one (a pause whose `at` is text, written by hand) is reported and read as "no controls"
 * instead of breaking the holder's tick, `status` and the page. Its texts (`reason`, `by`) are read as the
 * checks write them: one line without control characters, at most MAX_TEXT_CHARS, a longer one cut and
 * marked (`…(N more)`) rather than refused — refusing would read the net as not paused. A request whose
 * `id` is not one the store could have written (requestIdProblem: not a string, empty, over
 * MAX_REQUEST_ID_CHARS) is dropped alone and named in `dropped` — the pause and the other request stay;
 * an id cannot be cut, since `take` matches it whole. A malformed backfill request is dropped alone too.
 */
import * as z from 'zod'
import { plainLine } from '../plain-text.js'
import { describeIssues } from '../store-call/bad-document.js'
import { MAX_TEXT_CHARS } from './control-text-limit.js'
import { requestIdProblem } from './net-control-checks.js'
import type { ControlRequest, NetPause } from './net-control-store.js'
import { parseBackfillDocument, type BackfillDocument } from './backfill-document.js'
import type { BackfillStatus } from './backfill-request.js'

/** A pause as stored (absent optionals stored as null). */
export interface PauseDocument {
  at: Date
  until: Date | null
  reason: string | null
  by: string | null
  abort: boolean
}

/** A request as stored. */
export interface RequestDocument {
  id: string
  at: Date
  reason: string | null
  by: string | null
}

/** The stored shape of one net's controls. */
export interface NetControlDocument {
  _id: string
  paused?: PauseDocument | null
  run?: RequestDocument | null
  catchUp?: RequestDocument | null
  /** The newest backfill request (backfill-document.ts). */
  backfill?: BackfillDocument | null
  /** Its slot list, apart: reads leave it out. */
  backfillSlots?: { id: string; slots: Date[] } | null
}

const text = z.string().nullish()
const pauseSchema = z.object({
  at: z.date(),
  until: z.date().nullish(),
  reason: text,
  by: text,
  abort: z.boolean().nullish(),
})
// The id is checked after the parse (requestIdProblem), so a bad one drops its request, not the document.
const requestSchema = z.object({ id: z.unknown(), at: z.date(), reason: text, by: text })
const controlSchema = z.object({
  _id: z.string(),
  paused: pauseSchema.nullish(),
  run: requestSchema.nullish(),
  catchUp: requestSchema.nullish(),
  // Checked on its own (backfill-document.ts): a bad one is dropped alone, the pause and requests stay.
  backfill: z.unknown().optional(),
  backfillSlots: z.unknown().optional(),
})

/** What a stored document holds (the pause whether or not in force), or what is wrong with it. */
export type ParsedNetControl =
  | {
      ok: true
      net: string
      paused?: NetPause
      run?: ControlRequest
      catchUp?: ControlRequest
      backfill?: BackfillStatus
      /** The requests dropped for a bad id, each as `field.id: what was expected` (the id unechoed). */
      dropped?: string
    }
  | { ok: false; problem: string }

/** Parses one stored control document; never throws. */
export function parseNetControlDocument(doc: object): ParsedNetControl {
  const parsed = controlSchema.safeParse(doc)
  if (!parsed.success) return { ok: false, problem: describeIssues(parsed.error.issues) }
  const d = parsed.data
  const out: ParsedNetControl = { ok: true, net: d._id }
  if (d.paused) {
    const pause: NetPause = { at: d.paused.at, abort: d.paused.abort === true }
    if (d.paused.until) pause.until = d.paused.until
    out.paused = withTexts(pause, d.paused)
  }
  const dropped: string[] = []
  for (const field of ['run', 'catchUp'] as const) {
    const stored = d[field]
    if (!stored) continue
    const problem = requestIdProblem(stored.id)
    if (problem === undefined)
      out[field] = withTexts<ControlRequest>({ id: stored.id as string, at: stored.at }, stored)
    else dropped.push(`${field}.id: ${problem}`)
  }
  if (d.backfill !== undefined && d.backfill !== null) {
    const backfill = parseBackfillDocument(d.backfill)
    if (backfill.ok) out.backfill = backfill.backfill
    else dropped.push(`backfill: ${backfill.problem}`)
  }
  if (dropped.length > 0) out.dropped = dropped.join('; ')
  return out
}

function withTexts<T extends { reason?: string; by?: string }>(
  target: T,
  stored: { reason?: string | null | undefined; by?: string | null | undefined },
): T {
  const reason = stored.reason ? plainLine(stored.reason, MAX_TEXT_CHARS) : ''
  const by = stored.by ? plainLine(stored.by, MAX_TEXT_CHARS) : ''
  if (reason) target.reason = reason
  if (by) target.by = by
  return target
}

/** A pause as stored. */
export function pauseDocument(pause: NetPause): PauseDocument {
  return {
    at: pause.at,
    until: pause.until ?? null,
    reason: pause.reason ?? null,
    by: pause.by ?? null,
    abort: pause.abort,
  }
}

/** A request as stored. */
export function requestDocument(request: ControlRequest): RequestDocument {
  return { id: request.id, at: request.at, reason: request.reason ?? null, by: request.by ?? null }
}
