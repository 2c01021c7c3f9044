/**
 * The run ledger's errors: a call with bad arguments, a store that did not answer, a call aborted before
 * its answer. Each carries a stable `code`, the component, the operation, the net and slot when known, and
 * the underlying error as `cause`.
 *
 * Not used for expected outcomes: a slot already claimed, or a finish for another term's claim, is `false`.
 */
import { StoreError } from '../store-call/store-error.js'

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
export class RunLedgerError extends StoreError {
  override readonly name = 'RunLedgerError'
  declare readonly code: RunLedgerErrorCode
  readonly net: string | undefined
  readonly slot: Date | undefined

  constructor(
    code: RunLedgerErrorCode,
    context: RunLedgerErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(code, { ...context, subject: subject(context) }, detail, options)
    this.net = context.net
    this.slot = context.slot
  }
}

/** `net "a" slot 2026-…`: what a ledger error concerns, as its message names it. */
function subject(context: RunLedgerErrorContext): string | undefined {
  if (context.net === undefined) return undefined
  const slot =
    context.slot && Number.isFinite(context.slot.getTime()) ? ` slot ${context.slot.toISOString()}` : ''
  return `net "${context.net}"${slot}`
}
