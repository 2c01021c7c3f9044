/**
 * Where an operator command's control write leaves its notice (worker/noticing-controls.ts): on the lease
 * of the one net it acts on, and, when the notice does not land, a line saying when the holder learns of
 * the write instead — never a silent wait.
 */
import type { NetConfig } from '../config/worker-config.js'
import type { LeaseStore } from '../lease/store.js'
import { NOTICED_CONTROL_POLL_MS } from '../term/control-poll.js'
import type { NoticeTarget } from '../worker/noticing-controls.js'
import { describeMongoError } from '../worker/mongo-connection.js'

/** The notice target of `net`'s lease in `store`; `say` gets one line when a notice fails. */
export function operatorNotice(
  store: LeaseStore,
  net: NetConfig,
  say?: (line: string) => void,
): NoticeTarget {
  return {
    store,
    leaseOf: (name) => (name === net.definition.name ? net.definition.lease : undefined),
    onUnnoticed: (name, error) =>
      say?.(
        `${name}: written, but the notice to its holder did not land (${describeMongoError(error)}): the holder sees a pause at its next tick, a request within ${NOTICED_CONTROL_POLL_MS / 1000} s`,
      ),
  }
}
