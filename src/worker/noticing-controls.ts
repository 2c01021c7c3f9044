/**
 * The net controls as operators write them (the admin API, `leasecron pause|resume|once --request`):
 * each write that the holder must act on — a pause, a resume, a run, catch-up or backfill request, a
 * backfill's cancel — is followed by a
 * notice on the net's lease (LeaseStore.notify), which the holder hears at its next renewal and answers
 * with a read of its controls (term/control-poll.ts `wake`). So a holder reads its controls when they
 * change, not every few seconds (issue #39).
 *
 * The control is written first and stands on its own: a notice that fails (the lease store did not
 * answer) is reported through `onUnnoticed` and the write still succeeds; the holder then finds the
 * control at its next tick (a pause) or its fallback poll (a request, NOTICED_CONTROL_POLL_MS).
 *
 * What it is not: a change to the control store (control/ knows no lease), nor a read: reads and the
 * holder's `take` and backfill progress pass straight through.
 */
import type { NetControlStore } from '../control/net-control-store.js'
import type { LeaseStore } from '../lease/store.js'
import type { StoreCallOptions } from '../store-call/store-call.js'

/** What the notices need: the lease store's `notify`, and which lease a net elects through. */
export interface NoticeTarget {
  store: Pick<LeaseStore, 'notify'>
  /** The lease of `net` (installation-scoped where it is); undefined for a net this process does not know. */
  leaseOf(net: string): string | undefined
  /** A notice that did not land: the write stands, and the holder finds it later (see the module's doc). */
  onUnnoticed?(net: string, error: unknown): void
}

/** `controls` whose operator writes leave a notice on the net's lease; `controls` itself without `notify`. */
export function noticingControls(controls: NetControlStore, target: NoticeTarget): NetControlStore {
  const notify = target.store.notify?.bind(target.store)
  if (!notify) return controls
  const notice = async (net: string, options: StoreCallOptions | undefined) => {
    const lease = target.leaseOf(net)
    if (lease === undefined) return
    try {
      await notify(lease, options?.signal ? { signal: options.signal } : {})
    } catch (error) {
      target.onUnnoticed?.(net, error)
    }
  }
  return {
    get: (net, now, options) => controls.get(net, now, options),
    getMany: (nets, now, options) => controls.getMany(nets, now, options),
    list: (now, options) => controls.list(now, options),
    take: (net, kind, id, options) => controls.take(net, kind, id, options),
    backfillSlots: (net, id, options) => controls.backfillSlots(net, id, options),
    advanceBackfill: (net, advance, now, options) => controls.advanceBackfill(net, advance, now, options),
    pause: async (net, request, now, options) => {
      const pause = await controls.pause(net, request, now, options)
      await notice(net, options)
      return pause
    },
    resume: async (net, input, now, options) => {
      const lifted = await controls.resume(net, input, now, options)
      if (lifted) await notice(net, options)
      return lifted
    },
    request: async (net, kind, input, now, options) => {
      const result = await controls.request(net, kind, input, now, options)
      if (result.created) await notice(net, options)
      return result
    },
    requestBackfill: async (net, input, now, options) => {
      const result = await controls.requestBackfill(net, input, now, options)
      if (result.created) await notice(net, options)
      return result
    },
    cancelBackfill: async (net, cancel, now, options) => {
      const cancelled = await controls.cancelBackfill(net, cancel, now, options)
      if (cancelled) await notice(net, options)
      return cancelled
    },
  }
}
