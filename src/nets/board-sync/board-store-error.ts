/**
 * The board's store errors: bad arguments, or a store that did not answer. Expected outcomes (a card that
 * exists, a lost compare-and-set) are return values, never errors.
 */

export type BoardStoreErrorCode = 'BOARD_INVALID_ARGUMENT' | 'BOARD_STORE_FAILED'

/** A board-store call failed; `message` names the component, operation and card or repository. */
export class BoardStoreError extends Error {
  override readonly name = 'BoardStoreError'
  readonly code: BoardStoreErrorCode
  readonly component: string
  readonly operation: string
  /** The card id or repository the call concerned, when there was one. */
  readonly subject: string | undefined

  constructor(
    code: BoardStoreErrorCode,
    context: { component: string; operation: string; subject?: string | undefined },
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${context.component}: ${context.operation}${context.subject ? ` (${context.subject})` : ''}: ${detail}`,
      options,
    )
    this.code = code
    this.component = context.component
    this.operation = context.operation
    this.subject = context.subject
  }
}
