/**
 * What `leasecron backfill` prints: the dry run's slot list (local time with its offset, and UTC), one
 * progress line per slot (`[3/12] 2026-03-29T01:00:00Z ok 1.2s`) and the closing summary. Text only: the
 * `--json` shapes are the objects themselves (cli/backfill.ts).
 */
import type { RecordedSlot } from './backfill-recorded.js'
import type { NetConfig } from '../config/worker-config.js'
import type { BackfillResult, BackfillSlot } from '../term/backfill.js'
import { formatLocal } from '../schedule/zoned-time.js'

/** `2026-03-29T01:00:00Z`: a slot as the lines show it (whole seconds, as cron has). */
function utc(instant: Date): string {
  return instant.toISOString().replace(/\.000Z$/, 'Z')
}

/** The range as the lines name it. */
function rangeText(net: NetConfig, from: Date, to: Date): string {
  const days = net.dayMatch === undefined ? '' : ` (DAY_MATCH=${net.dayMatch})`
  return `"${net.schedule}"${days} in ${net.timeZone} from ${utc(from)} to ${utc(to)}`
}

/**
 * The dry run: a heading, then each slot as local time with its offset beside its UTC instant, and for a
 * slot in `recorded` (the ledger was read) what it holds, as a run skips it.
 */
export function dryRunLines(
  net: NetConfig,
  range: { from: Date; to: Date; slots: readonly Date[] },
  now: Date,
  recorded?: readonly RecordedSlot[],
): string[] {
  const { from, to, slots } = range
  const count = slots.length === 1 ? '1 slot' : `${slots.length} slots`
  const skipped = recorded?.length ? `; ${recorded.length} already recorded, which a run skips` : ''
  const heading = `${net.definition.name}: ${count} of ${rangeText(net, from, to)} (dry run: nothing runs)${skipped}`
  if (slots.length === 0) return [`${heading}; none to run`]
  const held = new Map(recorded?.map((r) => [r.slot, r.outcome]))
  const rows = slots.map((slot) => {
    const due = slot > now ? '  (not yet due)' : ''
    const outcome = held.get(slot.toISOString())
    const mark = outcome === undefined ? '' : `  (recorded ${outcome}: skipped)`
    return `  ${formatLocal(slot, net.timeZone).padEnd(26)} ${utc(slot)}${due}${mark}`
  })
  return [heading, `  ${'LOCAL'.padEnd(26)} UTC`, ...rows]
}

/** The line for a range with no slot (exit 0: there is nothing to do, which is not a failure). */
export function noSlotsLine(net: NetConfig, from: Date, to: Date): string {
  return `${net.definition.name}: no slot of ${rangeText(net, from, to)}; nothing to run`
}

/** One slot's progress line: `[3/12] 2026-03-29T01:00:00Z (2026-03-29 03:00 +02:00) ok 1.2s`. */
export function progressLine(net: NetConfig, index: number, total: number, slot: BackfillSlot): string {
  const instant = new Date(slot.slot)
  const local = net.timeZone === 'UTC' ? '' : ` (${formatLocal(instant, net.timeZone)})`
  const seconds = slot.ms === undefined ? '' : ` ${(slot.ms / 1000).toFixed(1)}s`
  const attempts = slot.attempts !== undefined && slot.attempts > 1 ? ` after ${slot.attempts} attempts` : ''
  const error = slot.error === undefined ? '' : `: ${slot.error}`
  return `[${index + 1}/${total}] ${utc(instant)}${local} ${slot.outcome}${attempts}${seconds}${error}`
}

/** The counts that are not zero: `2 ok, 1 slot-taken`. */
function countsText(result: BackfillResult): string {
  const parts = Object.entries(result.counts)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${n} ${outcome}`)
  return parts.length > 0 ? parts.join(', ') : 'no slots'
}

/** The closing summary: what ran, and for an early end what happened and how to go on. */
export function summaryLines(net: NetConfig, result: BackfillResult): string[] {
  const name = net.definition.name
  const fence = result.fence === null ? '' : ` (fence ${result.fence})`
  const head = `${name}: backfill of ${result.slots.length} slot${result.slots.length === 1 ? '' : 's'} as ${result.owner}${fence}: ${countsText(result)}`
  const resume = 'Run the same command again to resume: slots already recorded are skipped (slot-taken).'
  switch (result.end) {
    case 'failed':
      return [
        `${name}: could not campaign for the lease "${net.definition.lease}": ${result.error}; nothing ran`,
      ]
    case 'interrupted':
      return [
        head,
        `Stopped by a signal: the slot in flight is recorded aborted, the lease released. ${resume}`,
      ]
    case 'term-ended':
      return [
        head,
        `The term ended before the last slot (the lease was lost or its store stopped answering). ${resume}`,
      ]
    default:
      return result.counts.failed + result.counts['timed-out'] > 0
        ? [head, 'Failed slots are recorded with their errors (leasecron history shows them).']
        : [head]
  }
}
