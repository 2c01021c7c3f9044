/**
 * The board's store errors: bad arguments, or a store that did not answer. Expected outcomes (a card that
 * exists, a lost compare-and-set) are return values, never errors.
 */

import { StoreError } from '../../store-call/store-error.js'

export type BoardStoreErrorCode = 'BOARD_INVALID_ARGUMENT' | 'BOARD_STORE_FAILED' | 'BOARD_STORE_ABORTED'

/** A board-store call failed; `message` names the component, operation and card or repository. */
export class BoardStoreError extends StoreError {
  override readonly name = 'BoardStoreError'
  declare readonly code: BoardStoreErrorCode
  /** The card id or repository the call concerned, when there was one. */
  declare readonly subject: string | undefined

  constructor(
    code: BoardStoreErrorCode,
    context: { component: string; operation: string; subject?: string | undefined },
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(code, context, detail, options)
  }
}
