/**
 * The net control store's errors: a call with bad arguments, a store that did not answer, a call aborted
 * before its answer. Each carries a stable `code`, the component, the operation and the net, and the
 * underlying error as `cause`. Not used for expected outcomes (a resume of a net not paused is undefined).
 */
import { StoreError } from '../store-call/store-error.js'

export type NetControlErrorCode = 'NET_CONTROL_INVALID' | 'NET_CONTROL_FAILED' | 'NET_CONTROL_ABORTED'

export interface NetControlErrorContext {
  /** `MemoryNetControlStore` or `MongoNetControlStore`. */
  component: string
  /** `get`, `list`, `pause`, `resume`, `request`, `take`. */
  operation: string
  net?: string | undefined
}

/** A control call failed; the message names the component, the operation, the net and what was expected. */
export class NetControlError extends StoreError {
  override readonly name = 'NetControlError'
  declare readonly code: NetControlErrorCode
  readonly net: string | undefined

  constructor(
    code: NetControlErrorCode,
    context: NetControlErrorContext,
    detail: string,
    options?: { cause?: unknown },
  ) {
    const subject = context.net === undefined ? undefined : `net "${context.net}"`
    super(code, { ...context, subject }, detail, options)
    this.net = context.net
  }
}
