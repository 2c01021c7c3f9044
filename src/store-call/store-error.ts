/**
 * The one base type of every store error: a store call that could not be made as asked (bad arguments)
 * or got no answer (the store failed, or the caller's signal aborted it). Each store keeps its own
 * subclass with a stable `name` and `code` (LeaseStoreError, RunLedgerError, GateRunError,
 * BoardStoreError…); code that handles any store failure matches `instanceof StoreError`.
 *
 * Not for expected outcomes: a lost election, a slot already claimed or a lost compare-and-set is a
 * return value.
 */

/** What failed where: the store (component), the call (operation) and what it concerned (subject). */
export interface StoreErrorContext {
  /** The store: `MongoStore`, `MongoRunLedger`, `MongoGateRunStore`… */
  component: string
  /** The store call: `acquire`, `claim`, `page`, `ping`… */
  operation: string
  /** What the call concerned, as the message names it (`lease "a", owner "b"`); absent when nothing. */
  subject?: string | undefined
}

/** Codes of the base type itself, for stores without their own subclass. */
export type StoreCallErrorCode = 'STORE_CALL_FAILED' | 'STORE_CALL_ABORTED'

/**
 * A store call failed; the message reads `<component>: <operation> (<subject>): <detail>`, and `cause`
 * holds the underlying error (the driver's, or the signal's reason).
 */
export class StoreError extends Error {
  override readonly name: string = 'StoreError'
  readonly code: string
  readonly component: string
  readonly operation: string
  readonly subject: string | undefined

  constructor(code: string, context: StoreErrorContext, detail: string, options?: { cause?: unknown }) {
    const subject = context.subject ? ` (${context.subject})` : ''
    super(`${context.component}: ${context.operation}${subject}: ${detail}`, options)
    this.code = code
    this.component = context.component
    this.operation = context.operation
    this.subject = context.subject
  }
}
