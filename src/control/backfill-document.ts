/**
 * The stored shape of a backfill request in a net's control document (`net_controls.backfill`, schema in
 * mongo-net-control-store.ts) and its parser. Its slot list is a field of its own (`backfillSlots`), which
 * reads leave out (it may hold thousands of instants, and the holder's every tick reads the document).
 *
 * A request the parser refuses (a count written by hand as text, a cursor past its end, an id no call
 * could have written) is dropped alone, named by the caller like a bad request id — and a new request
 * may replace it (mongo-net-control-store.ts's `backfillFree`), so a bad one cannot block backfills.
 */
import * as z from 'zod'
import { plainLine } from '../plain-text.js'
import { describeIssues } from '../store-call/bad-document.js'
import type { StoredBackfill } from './backfill-checks.js'
import type { BackfillStatus } from './backfill-request.js'
import { MAX_TEXT_CHARS } from './control-text-limit.js'
import { requestIdProblem } from './net-control-checks.js'

/** A backfill request as stored (absent optionals stored as null; `left` kept for the store's filters). */
export interface BackfillDocument {
  id: string
  at: Date
  reason: string | null
  by: string | null
  from: Date
  to: Date
  total: number
  done: number
  left: number
  counts: { ok: number; failed: number; taken: number; aborted: number }
  owner: string | null
  updatedAt: Date | null
  cancelled: { at: Date; by: string | null; reason: string | null } | null
}

const count = z.number().int().min(0)
const text = z.string().nullish()
const backfillSchema = z.object({
  id: z.unknown(),
  at: z.date(),
  reason: text,
  by: text,
  from: z.date(),
  to: z.date(),
  total: count,
  done: count,
  counts: z.object({ ok: count, failed: count, taken: count, aborted: count }),
  owner: text,
  updatedAt: z.date().nullish(),
  cancelled: z.object({ at: z.date(), by: text, reason: text }).nullish(),
})

/** One stored backfill request as read, or what is wrong with it; never throws. */
export function parseBackfillDocument(
  doc: unknown,
): { ok: true; backfill: BackfillStatus } | { ok: false; problem: string } {
  const parsed = backfillSchema.safeParse(doc)
  if (!parsed.success) return { ok: false, problem: describeIssues(parsed.error.issues) }
  const d = parsed.data
  const idProblem = requestIdProblem(d.id)
  if (idProblem !== undefined) return { ok: false, problem: `id: ${idProblem}` }
  if (d.done > d.total)
    return { ok: false, problem: `done: expected at most total (${d.total}); got ${d.done}` }
  const backfill: BackfillStatus = {
    ...{ id: d.id as string, at: d.at, from: d.from, to: d.to },
    ...{ total: d.total, done: d.done, counts: { ...d.counts } },
    ...texts(d),
  }
  if (d.owner) backfill.owner = plainLine(d.owner, MAX_TEXT_CHARS)
  if (d.updatedAt) backfill.updatedAt = d.updatedAt
  if (d.cancelled) backfill.cancelled = { at: d.cancelled.at, ...texts(d.cancelled) }
  return { ok: true, backfill }
}

function texts(stored: { reason?: string | null | undefined; by?: string | null | undefined }): {
  reason?: string
  by?: string
} {
  const reason = stored.reason ? plainLine(stored.reason, MAX_TEXT_CHARS) : ''
  const by = stored.by ? plainLine(stored.by, MAX_TEXT_CHARS) : ''
  return { ...(reason ? { reason } : {}), ...(by ? { by } : {}) }
}

/** A new request as stored. */
export function backfillDocument(backfill: StoredBackfill): BackfillDocument {
  return {
    ...{ id: backfill.id, at: backfill.at, reason: backfill.reason ?? null, by: backfill.by ?? null },
    ...{ from: backfill.from, to: backfill.to },
    ...{ total: backfill.total, done: backfill.done, left: backfill.total - backfill.done },
    ...{ counts: { ...backfill.counts }, owner: null, updatedAt: null, cancelled: null },
  }
}
