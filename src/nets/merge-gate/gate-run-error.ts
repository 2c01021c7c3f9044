/**
 * The merge-gate's own errors: bad gating-run input, a run that is not there, a store that did not
 * answer, a forge request of an offer that failed, a sweep pass whose offers all failed. Each carries a
 * stable `code`, the component and the operation that failed, the run when known, and the underlying
 * error as `cause`.
 *
 * Not used for expected outcomes: a run already settled or a lost compare-and-set is a return value.
 */
import { StoreError } from '../../store-call/store-error.js'

/** Codes a GateRunError carries. */
export type GateRunErrorCode =
  | 'GATE_RUN_INVALID'
  | 'GATE_RUN_NOT_FOUND'
  | 'GATE_RUN_STORE_FAILED'
  | 'GATE_RUN_STORE_ABORTED'
  | 'GATE_RUN_OFFER_FAILED'
  | 'GATE_RUN_SWEEP_FAILED'

/** What failed where. */
export interface GateRunErrorContext {
  /** `MemoryGateRunStore`, `MongoGateRunStore`, `reconciler`, `recordGatingRun`… */
  component: string
  /** The store call or offer step: `record`, `update`, `page`, `read-pull`, `post-status`… */
  operation: string
  /** The gating run's id when the failure concerns one. */
  runId?: string | undefined
}

/** A merge-gate operation failed; `message` names the component, operation, run and what was expected. */
export class GateRunError extends StoreError {
  override readonly name = 'GateRunError'
  declare readonly code: GateRunErrorCode
  readonly runId: string | undefined

  constructor(
    code: GateRunErrorCode,
    context: GateRunErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    const subject = context.runId === undefined ? undefined : `gating run "${context.runId}"`
    super(code, { ...context, subject }, detail, options)
    this.runId = context.runId
  }
}
