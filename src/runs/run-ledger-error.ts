/**
 * The run ledger's errors: a call with bad arguments, a store that did not answer, a call aborted before
 * its answer. Each carries a stable `code`, the component, the operation, the net and slot when known, and
 * the underlying error as `cause`.
 *
 * Not used for expected outcomes: a slot already claimed, or a finish for another term's claim, is `false`.
 */

/** Codes a RunLedgerError carries. */
export type RunLedgerErrorCode = 'RUN_LEDGER_INVALID' | 'RUN_LEDGER_FAILED' | 'RUN_LEDGER_ABORTED'

/** What failed where. */
export interface RunLedgerErrorContext {
  /** `MemoryRunLedger` or `MongoRunLedger`. */
  component: string
  /** `claim`, `finish`, `get`, `history`, `prune`, `ensureIndexes`. */
  operation: string
  net?: string | undefined
  slot?: Date | undefined
}

/** A ledger call failed; the message names the component, operation, net and slot, and what was expected. */
export class RunLedgerError extends Error {
  override readonly name = 'RunLedgerError'
  readonly code: RunLedgerErrorCode
  readonly component: string
  readonly operation: string
  readonly net: string | undefined
  readonly slot: Date | undefined

  constructor(
    code: RunLedgerErrorCode,
    context: RunLedgerErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${context.component}: ${context.operation}${subject(context)}: ${detail}`, options)
    this.code = code
    this.component = context.component
    this.operation = context.operation
    this.net = context.net
    this.slot = context.slot
  }
}

function subject(context: RunLedgerErrorContext): string {
  if (context.net === undefined) return ''
  const slot =
    context.slot && Number.isFinite(context.slot.getTime()) ? ` slot ${context.slot.toISOString()}` : ''
  return ` (net "${context.net}"${slot})`
}
