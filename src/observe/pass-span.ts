/**
 * A pass's trace: one OpenTelemetry span per slot whose claim was won and whose pass started, named
 * `leasecron.pass <net>` (kind INTERNAL), with `leasecron.net`, `leasecron.slot` (the UTC instant, ISO),
 * `leasecron.fence`, `leasecron.pass` (its number in the term) and `leasecron.owner` from the start, and
 * `leasecron.attempts` and `leasecron.outcome` at the end. Each attempt is an event on it
 * (`leasecron.attempt`: its number, outcome and, on failure, `error.type` and the scrubbed message)
 * rather than a span of its own: the slot's attempts share one claim, one fence and one outcome, and the
 * forge requests of every attempt are direct children of the pass's span (forge/client/request-span.ts).
 *
 * Status: ERROR with the scrubbed message when the slot ended `failed` or `timed-out`; unset for `ok`
 * and for `aborted` (its term ended: a step down, not a fault of the pass).
 *
 * Through `@opentelemetry/api` alone: a no-op until the user registers an SDK (docs/operations.md, "Traces").
 * Not the ledger's record and not a log line: what it carries, they carry too.
 */
import { type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api'
import { scrubbedErrorMessage } from '../config/scrub.js'
import { TRACER_NAME } from '../forge/client/request-span.js'
import type { PassOutcome } from '../runs/run-ledger.js'

/** What the pass's span is opened with. */
export interface PassSpanStart {
  net: string
  slot: Date
  fence: number
  owner: string
  /** The pass's number in its term. */
  number: number
}

/** One pass's span, from its start to its slot's outcome. */
export interface PassSpan {
  /** Runs `fn` with the span active, so the forge requests it makes are the span's children. */
  within<T>(fn: () => Promise<T>): Promise<T>
  /** Records one attempt's end as an event. */
  attempt(attempt: number, outcome: PassOutcome, error?: unknown): void
  /** Ends the span with the slot's outcome. */
  end(ended: { outcome: PassOutcome; error?: unknown; attempts: number }): void
}

/** Opens the span of a pass that is starting (see the module doc). */
export function startPassSpan(start: PassSpanStart): PassSpan {
  const span = trace.getTracer(TRACER_NAME).startSpan(`leasecron.pass ${start.net}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'leasecron.net': start.net,
      'leasecron.slot': start.slot.toISOString(),
      'leasecron.fence': start.fence,
      'leasecron.pass': start.number,
      'leasecron.owner': start.owner,
    },
  })
  const active = trace.setSpan(context.active(), span)
  return {
    within: (fn) => context.with(active, fn),
    attempt: (attempt, outcome, error) =>
      span.addEvent('leasecron.attempt', {
        'leasecron.attempt': attempt,
        'leasecron.outcome': outcome,
        ...(error === undefined ? {} : failure(error)),
      }),
    end: (ended) => endPassSpan(span, ended),
  }
}

function endPassSpan(span: Span, ended: { outcome: PassOutcome; error?: unknown; attempts: number }): void {
  span.setAttributes({ 'leasecron.attempts': ended.attempts, 'leasecron.outcome': ended.outcome })
  if (ended.outcome === 'failed' || ended.outcome === 'timed-out') {
    const { 'error.type': type, 'exception.message': message } = failure(ended.error ?? ended.outcome)
    span.setAttribute('error.type', ended.outcome === 'timed-out' ? 'timed-out' : type)
    span.setStatus({ code: SpanStatusCode.ERROR, message })
  }
  span.end()
}

/** An error as span attributes: its class and its scrubbed message (never its stack). */
function failure(error: unknown): { 'error.type': string; 'exception.message': string } {
  return {
    'error.type': error instanceof Error ? error.name : '_OTHER',
    'exception.message': scrubbedErrorMessage(error).split('\n')[0]!,
  }
}
