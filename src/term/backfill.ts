/**
 * `leasecron backfill <net>`: the slots of a range run oldest first, each once, under ONE term of the
 * net's lease (single-term.ts: one campaign attempt, renewals and the step-down deadline for as long as
 * the backfill runs, the release at the end) — each slot through the one slot path every pass takes
 * (slot-pass.ts: claimed in the run ledger, attempts with the net's TIMEOUT and RETRIES, recorded).
 *
 * A slot already recorded is `slot-taken` and skipped, so running a backfill again resumes where it
 * stopped; a slot recorded `missed` or `paused` is claimable and runs. A failed slot is recorded and the
 * next one runs. The caller's signal aborts the pass in flight (recorded `aborted`), runs no further slot
 * and releases the lease; a term that ends (lease lost, the store unanswering past the deadline) runs no
 * further slot either. Slots not reached are `not-run`: nothing was recorded for them.
 *
 * Not the range (backfill-plan.ts) and not the printing (cli/backfill-report.ts).
 */
import type { LeaseStore } from '../lease/store.js'
import { checkClock } from './clock-check.js'
import { firstLine, maxRunsReached, netLease, type OnceSpec, termPass } from './one-slot.js'
import { serveOneTerm } from './one-term.js'
import {
  type PassSetting,
  type PassTerm,
  runSlotPass,
  type SlotPassResult,
  slotPassSpec,
} from './slot-pass.js'

/** What became of one slot; `not-run`: the backfill stopped before it (signal, term ended, lease held), or the net ran its MAX_RUNS. */
export type BackfillSlotOutcome = 'ok' | 'slot-taken' | 'failed' | 'timed-out' | 'aborted' | 'not-run'

export const BACKFILL_SLOT_OUTCOMES: readonly BackfillSlotOutcome[] = [
  'ok',
  'slot-taken',
  'failed',
  'timed-out',
  'aborted',
  'not-run',
]

export interface BackfillSlot {
  /** The slot, a UTC instant (ISO 8601). */
  slot: string
  outcome: BackfillSlotOutcome
  /** How long its claim, attempts and record took, in ms (absent for `not-run`). */
  ms?: number
  /** Attempts its pass made (1 + retries), when it ran. */
  attempts?: number
  /** Why, for `failed` and `timed-out` (the last attempt's error, first line, scrubbed). */
  error?: string
}

/**
 * How the backfill ended: `done` (every slot had its turn), `held` (another owner holds the lease; nothing
 * ran), `failed` (the store did not answer the campaign), `interrupted` (the caller's signal), `term-ended`
 * (the term ended before the last slot).
 */
export type BackfillEnd = 'done' | 'held' | 'failed' | 'interrupted' | 'term-ended'

/** The summary `backfill --json` prints. */
export interface BackfillResult {
  net: string
  owner: string
  /** The term's fence; null when no term began. */
  fence: number | null
  end: BackfillEnd
  /** Who holds the lease, for `held` (when the store said). */
  holder?: string
  /** Why, for `failed`. */
  error?: string
  /** Slots by outcome, every outcome listed. */
  counts: Record<BackfillSlotOutcome, number>
  /** Every slot of the range, oldest first. */
  slots: BackfillSlot[]
}

export interface BackfillSpec extends PassSetting {
  /** The slots to run, oldest first (backfill-plan.ts). */
  slots: readonly Date[]
  store: LeaseStore
  /** Builds the net's pass for the term; called once a slot is claimed (it may open stores). */
  pass: OnceSpec['pass']
  /** SIGTERM/SIGINT: aborts the pass in flight (recorded `aborted`), runs no more slots, releases. */
  signal: AbortSignal
  /** Told each slot's outcome as it ends (progress), with its index in `slots`. */
  onSlot?(index: number, slot: BackfillSlot): void
  /** The clock check against the store's server (clock-check.ts); none on the memory store. */
  clockCheck?: OnceSpec['clockCheck']
}

/**
 * Runs the backfill; resolves its summary once the lease is released. Never rejects for an outcome; rejects
 * with ClockSkewError, before the campaign, when this clock is off from the store's server (clock-check.ts).
 */
export async function runBackfill(spec: BackfillSpec): Promise<BackfillResult> {
  await checkClock(spec.clockCheck, netLease(spec), spec.clock, spec.signal)
  const base = { net: spec.net.definition.name, owner: spec.owner }
  const served = await serveOneTerm(spec, (term) => runSlots(spec, term))
  if (served.kind === 'held')
    return summary({ ...base, fence: null, end: 'held', ...holder(served.holder) }, spec.slots, [])
  if (served.kind === 'failed')
    return summary({ ...base, fence: null, end: 'failed', error: firstLine(served.error) }, spec.slots, [])
  const ran = served.value ?? []
  const end = spec.signal.aborted ? 'interrupted' : ran.length < spec.slots.length ? 'term-ended' : 'done'
  return summary({ ...base, fence: served.fence, end }, spec.slots, ran)
}

/** The term's work: each slot in turn while the term is live, through the one slot path. */
async function runSlots(spec: BackfillSpec, term: PassTerm): Promise<BackfillSlot[]> {
  const pass = termPass(spec.pass, term)
  const done: BackfillSlot[] = []
  for (const [index, slot] of spec.slots.entries()) {
    // Checked synchronously before each claim: a term past its deadline (or a signal) starts nothing more.
    if (!term.live()) break
    const startedAt = spec.clock.monotonic()
    const result = await runSlotPass({ ...slotPassSpec(spec, term, pass, slot), reason: 'backfill' })
    const ms = Math.round(spec.clock.monotonic() - startedAt)
    const entry: BackfillSlot = { slot: slot.toISOString(), ...slotOutcome(result), ms }
    done.push(entry)
    spec.onSlot?.(index, entry)
  }
  return done
}

/** A slot pass's result as the backfill reports it. */
function slotOutcome(result: SlotPassResult): Pick<BackfillSlot, 'outcome' | 'attempts' | 'error'> {
  if (result.kind === 'slot-taken') return { outcome: 'slot-taken' }
  // MAX_RUNS: nothing was claimed or recorded, as for a slot the backfill never reached.
  if (result.kind === 'finished') return { outcome: 'not-run', error: maxRunsReached(result.maxRuns) }
  if (result.kind === 'claim-failed')
    return { outcome: 'failed', error: `the run ledger did not answer the claim: ${firstLine(result.error)}` }
  const attempts = { attempts: result.attempts }
  if (result.outcome === 'ok' || result.outcome === 'aborted') return { outcome: result.outcome, ...attempts }
  return { outcome: result.outcome, ...attempts, error: firstLine(result.error) }
}

/** The result: the slots that had their turn, then the rest `not-run`, and the counts. */
function summary(
  head: Omit<BackfillResult, 'counts' | 'slots'>,
  all: readonly Date[],
  ran: readonly BackfillSlot[],
): BackfillResult {
  const rest = all.slice(ran.length).map((s): BackfillSlot => ({ slot: s.toISOString(), outcome: 'not-run' }))
  const slots = [...ran, ...rest]
  const counts = Object.fromEntries(BACKFILL_SLOT_OUTCOMES.map((o) => [o, 0])) as BackfillResult['counts']
  for (const s of slots) counts[s.outcome]++
  return { ...head, counts, slots }
}

function holder(name: string | undefined): { holder?: string } {
  return name === undefined ? {} : { holder: name }
}
