/**
 * The Lambda-style handler: `handler(event, context)` for EventBridge Scheduler (or an EventBridge rule)
 * invoking a function. It reads the event (scheduled-event.ts), runs the slot on the warm runtime
 * (run-trigger.ts) and resolves the `once --json` object for `ran`, `slot-taken`, `held`, `missed` and `paused`.
 *
 * A slot that failed, timed out or was aborted rejects with SERVERLESS_PASS_FAILED (carrying the object):
 * Lambda counts the invocation as an error — the metric an operator alarms on — and a platform retry of
 * it finds the slot claimed and answers `slot-taken`, so the retry never runs the slot twice.
 *
 * The pass is aborted shortly before the function's own timeout (context.getRemainingTimeInMillis), so the
 * slot is recorded `aborted` and the lease released rather than left to its TTL by a killed instance.
 */
import { describeOnce, type OnceResult } from '../term/one-slot.js'
import { runTrigger } from './run-trigger.js'
import { readScheduledEvent } from './scheduled-event.js'
import { ServerlessError } from './serverless-error.js'
import type { WarmRuntime } from './warm-runtime.js'

/** The part of Lambda's context object the handler reads (all of it optional). */
export interface LambdaContext {
  getRemainingTimeInMillis?: () => number
}

/** The handler Lambda calls. */
export type LambdaHandler = (event: unknown, context?: LambdaContext) => Promise<OnceResult>

/** Outcomes that make the invocation an error. */
const FAILED: ReadonlySet<OnceResult['outcome']> = new Set(['failed', 'timed-out', 'aborted'])
/** Time kept back from the function's timeout to record an aborted pass and release the lease. */
const DEADLINE_MARGIN_MS = 5_000

/** A Lambda handler on `runtime`; `defaultNet` serves events that name none. */
export function lambdaHandler(runtime: WarmRuntime, defaultNet: string | undefined): LambdaHandler {
  return async (event, context) => {
    const trigger = readScheduledEvent(event)
    // Read first: the time left shrinks while the runtime opens.
    const signal = deadline(context)
    const parts = await runtime.parts()
    const result = await runTrigger(parts, trigger, defaultNet, signal)
    if (FAILED.has(result.outcome))
      throw new ServerlessError('SERVERLESS_PASS_FAILED', describeOnce(result), { result })
    return result
  }
}

/**
 * Aborts before the function's timeout, keeping DEADLINE_MARGIN_MS (or half what is left) for the end.
 * A context whose getRemainingTimeInMillis throws is refused with SERVERLESS_CONTEXT_INVALID (its error
 * the cause) before the slot is claimed: a pass with no known deadline would outlive the function.
 */
function deadline(context: LambdaContext | undefined): AbortSignal {
  let remaining: number | undefined
  try {
    remaining = context?.getRemainingTimeInMillis?.()
  } catch (error) {
    throw new ServerlessError(
      'SERVERLESS_CONTEXT_INVALID',
      'context.getRemainingTimeInMillis() threw: expected a Lambda context that answers the milliseconds left (the slot was not run)',
      { cause: error },
    )
  }
  if (remaining === undefined || !Number.isFinite(remaining)) return new AbortController().signal
  const margin = Math.min(DEADLINE_MARGIN_MS, remaining / 2)
  return AbortSignal.timeout(Math.max(1, Math.floor(remaining - margin)))
}
