/**
 * `leasecron backfill` when a worker holds the net: the range goes to the holder as a backfill request in
 * the shared store (control/backfill-actions.ts), the way `once --now` leaves a run request, and the
 * holder runs the slots between its passes (term/backfill-job.ts); `backfill --cancel <net>` ends it.
 * The write leaves a notice on the net's lease, so the holder hears of it at its next renewal.
 *
 * What it is not: the run without a holder (backfill.ts runs the slots itself, under its own term), nor
 * the range's planning (term/backfill-plan.ts): the slots arrive planned and bounded.
 */
import type { NetConfig } from '../config/worker-config.js'
import { cancelBackfill, requestBackfill } from '../control/backfill-actions.js'
import { describeBackfill } from '../control/backfill-request.js'
import type { NetControlStore } from '../control/net-control-store.js'
import type { LeaseStore } from '../lease/store.js'
import type { BackfillResult } from '../term/backfill.js'
import { describeMongoError } from '../worker/mongo-connection.js'
import { noticingControls } from '../worker/noticing-controls.js'
import type { CommandContext } from './command.js'
import { author } from './control-options.js'
import { EXIT } from './exit-codes.js'
import { findNet } from './find-net.js'
import { operatorNotice } from './operator-notice.js'
import { withNoticedControls } from './with-noticed-controls.js'

/** Where the request is written: the runtime's controls and lease store. */
export interface HolderStores {
  controls: NetControlStore
  store: LeaseStore
}

/** How long the request's writes may take. */
const WRITE_BOUND_MS = 10_000

/**
 * The lease was held: leaves the plan's slots as a backfill request for the holder. Exit 0 when left, 75
 * when a backfill is still running (named; nothing changed), 1 when the store did not answer.
 */
export async function askHolderToBackfill(
  { values, io }: CommandContext,
  net: NetConfig,
  plan: { from: Date; to: Date; slots: Date[] },
  held: BackfillResult,
  stores: HolderStores,
): Promise<number> {
  const name = net.definition.name
  const controls = noticingControls(
    stores.controls,
    operatorNotice(stores.store, net, (line) => io.err(line)),
  )
  const input = { ...plan, ...author(values) }
  const signal = AbortSignal.timeout(WRITE_BOUND_MS)
  let result: Awaited<ReturnType<typeof requestBackfill>>
  try {
    result = await requestBackfill(controls, name, input, new Date(), { signal })
  } catch (error) {
    io.err(
      `leasecron backfill: ${name}: could not leave the request for the holder: ${describeMongoError(error)}`,
    )
    return EXIT.failure
  }
  const requested = result.outcome === 'backfill-requested'
  const holder = held.holder ?? 'another owner'
  if (values.json) {
    const end = requested ? 'requested' : 'pending'
    io.out(JSON.stringify({ ...held, end, holder, backfill: result.backfill }))
  } else if (requested) {
    io.out(
      `${name}: the lease "${net.definition.lease}" is held by ${holder}: ${result.message}. Cancel it with: leasecron backfill --cancel ${name}`,
    )
  } else io.err(`leasecron backfill: ${result.message}`)
  return requested ? EXIT.ok : EXIT.tempfail
}

/**
 * `backfill --cancel <net>`: the running backfill request ends after the slot in flight. Exit 0 (also
 * when none was running: said), 64 for an unknown net or a range given with it, 1 when the store did not
 * answer or there is no MONGO_URI.
 */
export async function cancelBackfillCommand(context: CommandContext): Promise<number> {
  const { args, values, config, io } = context
  const net = findNet('backfill', args[0], config, io, values.config)
  if (!net) return EXIT.usage
  const extra = (['from', 'to', 'dry-run', 'yes'] as const).filter((o) => values[o] !== undefined)
  if (extra.length > 0) {
    io.err(
      `leasecron backfill: --cancel ends the running backfill request; ${extra.map((o) => `--${o}`).join(', ')}: expected none with it`,
    )
    return EXIT.usage
  }
  const name = net.definition.name
  return withNoticedControls(
    { command: 'backfill', said: 'backfill --cancel' },
    { config, io, net },
    async (noticed, signal) => {
      const result = await cancelBackfill(noticed, name, author(values), new Date(), { signal })
      if (values.json)
        io.out(JSON.stringify({ net: name, outcome: result.outcome, backfill: result.backfill ?? null }))
      else
        io.out(result.backfill ? `${result.message} (${describeBackfill(result.backfill)})` : result.message)
      return undefined
    },
  )
}
