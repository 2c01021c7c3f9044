/**
 * What a Lambda invocation's event says: the slot's time and, optionally, the net.
 *
 * - EventBridge Scheduler, a Lambda target whose input is `{"net": "<net>", "time":
 *   "<aws.scheduler.scheduled-time>"}`: Scheduler replaces the keyword with the schedule's time
 *   (`2022-03-22T18:59:43Z`) on every attempt, retries included.
 * - An EventBridge rule's "Scheduled Event" (`detail-type: "Scheduled Event"`, `source: "aws.events"`): its
 *   `time` is the scheduled time; the net comes from the factory (its `detail` is `{}`), or `detail.net`.
 *
 * No `time` (a test invocation from the console): the slot due now, as `once` without `--slot`. Not a
 * validator of the instant itself (run-trigger.ts parses it, as `once --slot` does).
 */
import { ServerlessError } from './serverless-error.js'
import { boundedTime, type Trigger } from './run-trigger.js'

const TIME_SOURCE = 'the event’s "time"'

/** The trigger in `event`; throws SERVERLESS_TRIGGER_INVALID naming the field and its expected form. */
export function readScheduledEvent(event: unknown): Trigger {
  if (event === null || typeof event !== 'object' || Array.isArray(event))
    throw invalid(
      `event: expected a JSON object such as {"net": "…", "time": "<aws.scheduler.scheduled-time>"}; got ${describe(event)}`,
    )
  const fields = event as Record<string, unknown>
  const time = fields.time
  if (time !== undefined && typeof time !== 'string')
    throw invalid(
      `${TIME_SOURCE}: expected an ISO 8601 instant such as 2026-09-30T15:05:00Z; got ${describe(time)}`,
    )
  const detail = fields.detail
  const net =
    fields.net ?? (detail && typeof detail === 'object' ? (detail as { net?: unknown }).net : undefined)
  if (net !== undefined && typeof net !== 'string')
    throw invalid(`the event’s "net": expected a net's name; got ${describe(net)}`)
  return { net, time: boundedTime(time, TIME_SOURCE), timeSource: TIME_SOURCE }
}

function invalid(message: string): ServerlessError {
  return new ServerlessError('SERVERLESS_TRIGGER_INVALID', message)
}

/** A short, safe description of a value that was not what was expected. */
function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80))
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}
