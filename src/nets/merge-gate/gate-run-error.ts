/**
 * The merge-gate's own errors: bad gating-run input, a run that is not there, a store that did not
 * answer, a forge request of an offer that failed. Each carries a stable `code`, the component and the
 * operation that failed, the run when known, and the underlying error as `cause`.
 *
 * Not used for expected outcomes: a run already settled or a lost compare-and-set is a return value.
 */

/** Codes a GateRunError carries. */
export type GateRunErrorCode =
  | 'GATE_RUN_INVALID'
  | 'GATE_RUN_NOT_FOUND'
  | 'GATE_RUN_STORE_FAILED'
  | 'GATE_RUN_OFFER_FAILED'

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
export class GateRunError extends Error {
  override readonly name = 'GateRunError'
  readonly code: GateRunErrorCode
  readonly component: string
  readonly operation: string
  readonly runId: string | undefined

  constructor(
    code: GateRunErrorCode,
    context: GateRunErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    const subject = context.runId === undefined ? '' : ` (gating run "${context.runId}")`
    super(`${context.component}: ${context.operation}${subject}: ${detail}`, options)
    this.code = code
    this.component = context.component
    this.operation = context.operation
    this.runId = context.runId
  }
}

/** One line describing an error for a log or a wrapping message (first line only, driver codes kept). */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code =
      (error as { code?: unknown; status?: unknown }).code ?? (error as { status?: unknown }).status
    return `${error.name}${code === undefined ? '' : ` ${String(code)}`}: ${error.message.split('\n')[0]}`
  }
  return String(error)
}
