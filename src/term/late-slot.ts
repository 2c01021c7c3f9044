/**
 * A late trigger's slot: one older than the net's catch-up window (CATCH_UP_WINDOW, 24h by default) is
 * recorded `missed` in the run ledger instead of run — through the ledger's `account`, the very path an
 * election's catch-up (catch-up.ts) takes for the slots it lets go — so a platform's event that arrives a
 * day late does a day-old slot's work no more than the worker would, and the slot still has its one record.
 *
 * Outside a term (fence 0, as the run-ledger contract has it for the CLI): an account inserts only where
 * the slot has no record, so it needs no lease, and a concurrent claim of the slot still decides alone.
 * Not the catch-up: it looks at one slot, the one the trigger named, never at the slots before it.
 */
import { formatDuration } from '../durations.js'
import type { Clock } from '../lease/clock.js'
import type { RunLedger } from '../runs/run-ledger.js'
import { callBoundSignal } from './term-call-bound.js'

export interface LateSlotSpec {
  net: string
  slot: Date
  owner: string
  /** How old a slot may be (now − slot) and still run; an older one is recorded missed. */
  windowMs: number
  ledger: RunLedger
  clock: Clock
  /** Bound of the account call (the claim's, ttl/3). */
  boundMs: number
}

/**
 * What came of a slot older than the window: `missed` when this call recorded it so, `slot-taken` when the
 * slot already had a record (a run, an earlier account); undefined when the slot is within the window (run
 * it). Rejects when the ledger did not answer: nothing is known to be recorded, and nothing ran.
 */
export async function accountLateSlot(spec: LateSlotSpec): Promise<'missed' | 'slot-taken' | undefined> {
  const at = spec.clock.now()
  if (at.getTime() - spec.slot.getTime() <= spec.windowMs) return undefined
  const reason = `outside the catch-up window of ${formatDuration(spec.windowMs)} (CATCH_UP_WINDOW): the trigger came late`
  const entry = { net: spec.net, slot: spec.slot, owner: spec.owner, fence: 0, at, reason }
  const signal = callBoundSignal(spec.boundMs)
  const inserted = await spec.ledger.account({ ...entry, outcome: 'missed' }, { signal })
  return inserted ? 'missed' : 'slot-taken'
}
