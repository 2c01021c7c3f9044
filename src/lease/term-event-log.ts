/**
 * The log lines of a campaign, as one subscriber of its term events: `termEventLog(log)` turns each
 * TermEvent into the line run() has always written (message, `event`, `fence`, and the event's fields).
 *
 * It is not the metrics: those subscribe to the events themselves.
 */
import type { Logger } from '../logger.js'
import type { TermEvent } from './term-event.js'

type Line = { level: 'info' | 'warn'; msg: string; fields: Record<string, unknown> }

const lines: { [K in TermEvent['type']]: (e: Extract<TermEvent, { type: K }>) => Line } = {
  elected: (e) => info('elected', { fence: e.fence, previousHolder: e.previousHolder }),
  waiting: (e) =>
    info('waiting: another owner holds the lease', {
      holder: e.holder,
      fence: e.fence,
      expiresAt: e.expiresAt.toISOString(),
    }),
  'renew-failed': (e) =>
    warn(
      `renewal got no answer: stepping down in ${Math.max(0, Math.round(e.stepDownInMs))} ms unless one lands`,
      {
        fence: e.fence,
        stepDownInMs: Math.max(0, Math.round(e.stepDownInMs)),
        err: e.error,
      },
    ),
  lost: (e) => warn('lost to another owner', { fence: e.fence }),
  'stepped-down': (e) =>
    warn('stepping down: no renewal it can prove', { event: 'stepping-down', fence: e.fence }),
  'work-failed': (e) => warn('term work failed', { fence: e.fence, err: e.error }),
  released: (e) => info('released', { fence: e.fence }),
  'release-lost': (e) => info('had already lost it', { fence: e.fence, holder: e.holder }),
  'release-failed': (e) =>
    warn('could not release: a successor waits out the TTL', { fence: e.fence, err: e.error }),
  'store-failing': (e) =>
    warn(
      e.holding
        ? 'lease store not answering: this holder keeps serving its term until its step-down deadline unless a renewal lands'
        : 'lease store not answering: this candidate cannot be elected until it answers',
      {
        operation: e.operation,
        holding: e.holding,
        stepDownInMs: e.stepDownInMs === undefined ? undefined : Math.max(0, Math.round(e.stepDownInMs)),
        err: e.error,
      },
    ),
  'attempt-failed': (e) =>
    warn('campaign attempt failed unexpectedly: trying again after the retry pause', { err: e.error }),
  'store-recovered': (e) => info('lease store answering again', { outageMs: Math.round(e.outageMs) }),
}

function info(msg: string, fields: Record<string, unknown>): Line {
  return { level: 'info', msg, fields }
}
function warn(msg: string, fields: Record<string, unknown>): Line {
  return { level: 'warn', msg, fields }
}

/**
 * The subscriber that writes each term event to `log` as one line: fields `lease`, `owner`, `ttlMs`,
 * `event` (the event type; `stepping-down` for `stepped-down`, as before events existed), `fence` where the
 * event has one, and the event's own fields (errors as `err`). Undefined fields are left out.
 */
export function termEventLog(log: Logger): (event: TermEvent) => void {
  return (event) => {
    const render = lines[event.type] as (e: TermEvent) => Line
    const line = render(event)
    const fields: Record<string, unknown> = {
      lease: event.lease,
      owner: event.owner,
      ttlMs: event.ttlMs,
      event: event.type,
    }
    for (const [key, value] of Object.entries(line.fields)) if (value !== undefined) fields[key] = value
    log[line.level](fields, line.msg)
  }
}
