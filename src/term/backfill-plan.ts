/**
 * What `leasecron backfill <net> --from --to` is asked to run, checked before anything opens: the range
 * read (two real instants, from ≤ to, `--to` not in the future unless it is a dry run), its slots listed in
 * the net's zone by schedule-range.ts (what the worker would have fired, DST rule included), and the
 * bounds — at most BACKFILL_MAX_SLOTS slots listed, no more than the ledger keeps per net, and `--yes`
 * above BACKFILL_CONFIRM_ABOVE. A refusal names what was wrong and what is expected.
 *
 * Not the run (backfill.ts) and not the printing (cli/backfill-report.ts).
 */
import type { NetConfig } from '../config/worker-config.js'
import { slotsBetween } from '../schedule/schedule-range.js'
import { scheduleOf } from '../schedule/schedule.js'
import { inNetWindow } from '../config/net-window.js'
import { BACKFILL_CONFIRM_ABOVE, BACKFILL_MAX_SLOTS } from './backfill-limits.js'
import { INSTANT_FORM, parseIsoInstant } from './iso-instant.js'

export { BACKFILL_CONFIRM_ABOVE, BACKFILL_MAX_SLOTS }

export interface BackfillRequest {
  net: NetConfig
  from: string | undefined
  to: string | undefined
  now: Date
  dryRun: boolean
  yes: boolean
  /** LEASECRON_RUN_HISTORY: the runs the ledger keeps per net. */
  runHistory: number
}

export type BackfillPlan = { ok: true; from: Date; to: Date; slots: Date[] } | { ok: false; problem: string }

/** The slots the request covers, or why it is refused. */
export function planBackfill(request: BackfillRequest): BackfillPlan {
  const from = readInstant('--from', request.from, 'the first instant of the range')
  if (!from.ok) return from
  const to = readInstant('--to', request.to, 'the last instant of the range')
  if (!to.ok) return to
  if (from.instant > to.instant)
    return refuse(
      `--from ${from.instant.toISOString()} is after --to ${to.instant.toISOString()}: expected --from at or before --to`,
    )
  if (!request.dryRun && to.instant > request.now)
    return refuse(
      `--to ${to.instant.toISOString()} is in the future (now is ${request.now.toISOString()}): slots not yet due cannot be backfilled — the worker runs them when they come. Give a --to at or before now (--dry-run lists future slots too)`,
    )
  const { schedule, timeZone } = request.net
  const range = slotsBetween(scheduleOf(request.net), from.instant, to.instant, timeZone, BACKFILL_MAX_SLOTS)
  if (range.more)
    return refuse(
      `the range holds more than ${BACKFILL_MAX_SLOTS} slots of "${schedule}" (${timeZone}): split it into smaller ranges`,
    )
  // The net's START_AT/END_AT bound every path: a slot outside them is not the net's to run or list.
  const slots = range.slots.filter((slot) => inNetWindow(request.net, slot))
  const bound = request.dryRun ? undefined : runBounds(slots.length, request)
  return bound ?? { ok: true, from: from.instant, to: to.instant, slots }
}

/** The refusals only a real run has: more slots than the ledger keeps, or many slots without `--yes`. */
function runBounds(count: number, request: BackfillRequest): { ok: false; problem: string } | undefined {
  if (count > request.runHistory)
    return refuse(
      `the range holds ${count} slots, more than the ${request.runHistory} runs the ledger keeps per net (LEASECRON_RUN_HISTORY): the oldest would be pruned as later ones finish, and running the command again would run them twice. Split the range, or raise LEASECRON_RUN_HISTORY`,
    )
  if (count > BACKFILL_CONFIRM_ABOVE && !request.yes)
    return refuse(
      `the range holds ${count} slots, more than ${BACKFILL_CONFIRM_ABOVE}: add --yes to run them all (--dry-run lists them)`,
    )
  return undefined
}

/** An instant option, required. */
function readInstant(
  option: string,
  value: string | undefined,
  what: string,
): { ok: true; instant: Date } | { ok: false; problem: string } {
  if (value === undefined) return refuse(`${option} is required: ${what}, ${INSTANT_FORM}`)
  const parsed = parseIsoInstant(value)
  if (parsed.ok) return parsed
  const why = 'form' in parsed ? '' : `, which is not a real instant: ${parsed.impossible}`
  return refuse(`${option}: expected ${INSTANT_FORM}; got ${JSON.stringify(value)}${why}`)
}

function refuse(problem: string): { ok: false; problem: string } {
  return { ok: false, problem }
}
