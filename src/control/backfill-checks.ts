/**
 * Argument checks both control twins share for backfill requests (backfill-request.ts), so a bad call
 * fails the same way on either: a NetControlError `NET_CONTROL_INVALID` naming what was wrong and what was
 * expected. Returns clean copies: dates truncated to whole milliseconds, texts as plain lines.
 *
 * Not the range's planning: the caller lists the slots (term/backfill-plan.ts) and this only checks that
 * they are a list the holder can run in order — oldest first, each once, within the range, not too many.
 */
import type { BackfillAdvance, BackfillInput, BackfillStatus } from './backfill-request.js'
import { BACKFILL_SLOT_ENDS } from './backfill-request.js'
import { checkId, checkInstant, requestOf } from './net-control-checks.js'
import { NetControlError, type NetControlErrorContext } from './net-control-error.js'

/**
 * The most slots one request holds (the CLI's own bound on a backfill: term/backfill-limits.ts): its list
 * is stored whole in the net's control record.
 */
export const MAX_BACKFILL_REQUEST_SLOTS = 10_000

/** A backfill request as the twins keep it: the status and its slot list. */
export interface StoredBackfill extends BackfillStatus {
  slots: Date[]
}

function invalid(context: NetControlErrorContext, detail: string): never {
  throw new NetControlError('NET_CONTROL_INVALID', context, detail)
}

/** The new request for `input` made at `now`: checked, with a fresh id and nothing done. */
export function newBackfill(
  context: NetControlErrorContext,
  input: BackfillInput,
  now: Date,
): StoredBackfill {
  const request = requestOf(context, input ?? {}, now)
  const from = checkInstant(context, 'from', input?.from)
  const to = checkInstant(context, 'to', input?.to)
  if (from.getTime() > to.getTime())
    invalid(context, `expected from at or before to; got ${from.toISOString()} after ${to.toISOString()}`)
  const slots = checkSlots(context, input.slots, from, to)
  const counts = { ok: 0, failed: 0, taken: 0, aborted: 0 }
  return { ...request, from, to, slots, total: slots.length, done: 0, counts }
}

/** 1…MAX_BACKFILL_REQUEST_SLOTS valid instants, oldest first without repeats, each within from…to. */
function checkSlots(context: NetControlErrorContext, slots: unknown, from: Date, to: Date): Date[] {
  if (!Array.isArray(slots) || slots.length === 0 || slots.length > MAX_BACKFILL_REQUEST_SLOTS)
    invalid(
      context,
      `expected slots to list 1 to ${MAX_BACKFILL_REQUEST_SLOTS} instants; got ${Array.isArray(slots) ? `${slots.length}` : typeof slots}`,
    )
  const out: Date[] = []
  for (const [index, value] of slots.entries()) {
    const slot = checkInstant(context, `slots[${index}]`, value)
    const previous = out[out.length - 1]
    if (previous !== undefined && slot.getTime() <= previous.getTime())
      invalid(context, `expected slots oldest first, each once; slots[${index}] is not after the one before`)
    if (slot.getTime() < from.getTime() || slot.getTime() > to.getTime())
      invalid(context, `expected every slot within from…to; slots[${index}] is ${slot.toISOString()}`)
    out.push(slot)
  }
  return out
}

/** A holder's progress word: a request id, a whole index, a known end, an owner. */
export function checkAdvance(context: NetControlErrorContext, advance: BackfillAdvance): BackfillAdvance {
  const id = checkId(context, advance?.id)
  if (!Number.isSafeInteger(advance.index) || advance.index < 0)
    invalid(context, `expected index to be a whole number from 0; got ${String(advance.index)}`)
  if (!BACKFILL_SLOT_ENDS.includes(advance.end))
    invalid(
      context,
      `expected end to be one of ${BACKFILL_SLOT_ENDS.join(', ')}; got ${JSON.stringify(advance.end)}`,
    )
  if (typeof advance.owner !== 'string' || advance.owner === '')
    invalid(context, `expected owner to be the holder's owner id; got ${JSON.stringify(advance.owner)}`)
  return { id, index: advance.index, end: advance.end, owner: advance.owner }
}

/** A stored request as read: its status (a copy), without the slot list. */
export function backfillStatusOf(stored: StoredBackfill): BackfillStatus {
  const { slots: _slots, ...status } = stored
  const copy = (date: Date) => new Date(date)
  const out: BackfillStatus = {
    ...status,
    ...{ at: copy(status.at), from: copy(status.from), to: copy(status.to) },
    counts: { ...status.counts },
  }
  if (status.updatedAt) out.updatedAt = copy(status.updatedAt)
  if (status.cancelled) out.cancelled = { ...status.cancelled, at: new Date(status.cancelled.at) }
  return out
}
