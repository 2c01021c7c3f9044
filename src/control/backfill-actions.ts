/**
 * The operator's two backfill actions on a net — leave a backfill request for its holder, cancel it — over
 * the NetControlStore contract, shared by the CLI (`leasecron backfill` while a worker holds the net,
 * `backfill --cancel`) and the HTTP admin API, so both answer in the same words. Expected outcomes are
 * values: a request while one is running answers `backfill-pending` naming it; a cancel with none running
 * answers `no-backfill`.
 *
 * What they are not: the range's planning (the caller lists the slots: term/backfill-plan.ts, with its
 * bounds), a check that the net exists here, or the run (term/backfill-job.ts). `now` is an argument.
 */
import { type BackfillInput, type BackfillStatus, describeBackfill } from './backfill-request.js'
import type { NetControl, NetControlStore } from './net-control-store.js'
import type { StoreCallOptions } from '../store-call/store-call.js'

/** What a backfill action came to. */
export interface BackfillActionResult {
  action: 'backfill' | 'cancel-backfill'
  net: string
  /**
   * `backfill-requested`: left for the holder. `backfill-pending`: one asked for earlier still runs (not
   * replaced). `backfill-cancelled`: no further slot starts. `no-backfill`: none was running to cancel.
   */
  outcome: 'backfill-requested' | 'backfill-pending' | 'backfill-cancelled' | 'no-backfill'
  /** One sentence for the operator. */
  message: string
  /** The net's controls after the action, read at `now`. */
  control: NetControl
  /** The request made, the one still pending, or the one cancelled. */
  backfill?: BackfillStatus
}

/**
 * Asks whichever replica holds `net`'s lease to run `input`'s slots, oldest first, between its passes.
 * While a backfill is running, that one stands (`backfill-pending`). Throws the store's NetControlError
 * for a slot list it refuses (NET_CONTROL_INVALID) or when it did not answer.
 */
export async function requestBackfill(
  controls: NetControlStore,
  net: string,
  input: BackfillInput,
  now: Date,
  options?: StoreCallOptions,
): Promise<BackfillActionResult & { backfill: BackfillStatus }> {
  const { created, backfill } = await controls.requestBackfill(net, input, now, options)
  const control = await controls.get(net, now, options)
  const n = backfill.total
  const message = created
    ? `${net}: backfill of ${n} slot${n === 1 ? '' : 's'} requested; the replica holding its lease runs them oldest first between its passes (leasecron status shows the progress)`
    : `${net}: a backfill requested at ${backfill.at.toISOString()} is still running (${describeBackfill(backfill)}): not replaced. Wait for it to finish, or cancel it: leasecron backfill --cancel ${net}`
  const outcome = created ? 'backfill-requested' : 'backfill-pending'
  return { action: 'backfill', net, outcome, message, control, backfill }
}

/**
 * Cancels `net`'s running backfill: the slot in flight finishes, no further slot starts. With none
 * running, answers `no-backfill` and nothing changes. Throws the store's NetControlError when it did not
 * answer.
 */
export async function cancelBackfill(
  controls: NetControlStore,
  net: string,
  input: { by?: string; reason?: string },
  now: Date,
  options?: StoreCallOptions,
): Promise<BackfillActionResult> {
  const cancelled = await controls.cancelBackfill(net, input, now, options)
  const control = await controls.get(net, now, options)
  if (!cancelled)
    return {
      action: 'cancel-backfill',
      net,
      outcome: 'no-backfill',
      message: `${net}: no backfill is running: nothing to cancel`,
      control,
    }
  return {
    action: 'cancel-backfill',
    net,
    outcome: 'backfill-cancelled',
    message: `${net}: backfill cancelled with ${cancelled.done} of ${cancelled.total} slots done; the slot in flight finishes, no further slot starts`,
    control,
    backfill: cancelled,
  }
}
