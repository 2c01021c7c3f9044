/**
 * One platform trigger turned into one `once` slot: the net it names (or the factory's), the slot its
 * scheduled time falls in (normalized to the net's schedule, as `once --slot` does: parseSlotOption), run
 * on the warm runtime through runOnceOnRuntime — the claim, attempts and release `leasecron once` runs —
 * with the net's catch-up window as the bound on lateness (a slot older than it is recorded `missed`).
 *
 * Not a reader of any platform's event (scheduled-event.ts, fetch-handler.ts read them) and not a retry:
 * a redelivered trigger finds its slot claimed and answers `slot-taken`.
 */
import type { NetConfig } from '../config/worker-config.js'
import { ownerId } from '../lease/owner-id.js'
import { type OnceResult, parseSlotOption } from '../term/one-slot.js'
import { runOnceOnRuntime } from '../worker/one-slot-on-runtime.js'
import { ServerlessError } from './serverless-error.js'
import type { WarmParts } from './warm-runtime.js'
import { scheduleOf } from '../schedule/schedule.js'

/** What a platform's event or request said. */
export interface Trigger {
  /** The net it names; undefined: the factory's `net`. */
  net: string | undefined
  /** The scheduled instant as the platform wrote it; undefined: now (the slot due now). */
  time: string | undefined
  /** Where `time` came from, for the error that refuses it (`the event's "time"`, a header's name). */
  timeSource: string
}

/**
 * Runs the trigger's slot; resolves the `once --json` object. Throws SERVERLESS_TRIGGER_INVALID, before
 * anything runs, for a net it does not know or a time that is not an instant (or is over a minute ahead).
 */
export async function runTrigger(
  parts: WarmParts,
  trigger: Trigger,
  defaultNet: string | undefined,
  signal: AbortSignal,
): Promise<OnceResult> {
  const net = findNet(parts, trigger.net ?? defaultNet)
  const parsed = parseSlotOption(trigger.time, scheduleOf(net), new Date(), net.timeZone)
  if (!parsed.ok)
    throw new ServerlessError(
      'SERVERLESS_TRIGGER_INVALID',
      `${trigger.timeSource}: ${parsed.expected.replace(/^--slot: /, '')}`,
    )
  const owner = ownerId(parts.config.workerId)
  const log = parts.log.child({ owner, net: net.definition.name, lease: net.definition.lease })
  return runOnceOnRuntime({
    ...{ runtime: parts.runtime, config: parts.config, net, slot: parsed.slot, owner, log, signal },
    missAfterMs: net.catchUpWindowMs,
    setUp: parts.setUp,
  })
}

/** The most characters of a trigger's time read: an RFC 3339 instant with nanoseconds takes 35. */
export const MAX_TIME_CHARS = 64

/**
 * `time` when it is short enough to be an instant; throws SERVERLESS_TRIGGER_INVALID saying only its
 * length otherwise, so a header or an event of any size costs no parse, and is never echoed (in the
 * answer, the log line, the rejection) beyond MAX_TIME_CHARS.
 */
export function boundedTime(time: string | undefined, timeSource: string): string | undefined {
  if (time === undefined || time.length <= MAX_TIME_CHARS) return time
  throw new ServerlessError(
    'SERVERLESS_TRIGGER_INVALID',
    `${timeSource}: expected an ISO 8601 instant of at most ${MAX_TIME_CHARS} characters (e.g. 2026-09-30T15:05:00Z); got ${time.length} characters (not shown)`,
  )
}

function findNet(parts: WarmParts, name: string | undefined): NetConfig {
  const net = parts.config.nets.find((n) => n.definition.name === name)
  if (net) return net
  const names = parts.config.nets.map((n) => n.definition.name).join(', ')
  throw new ServerlessError(
    'SERVERLESS_TRIGGER_INVALID',
    `net: expected one of ${names} (in the event or request, or the handlers' \`net\`); got ${name === undefined ? 'none' : JSON.stringify(name)}`,
  )
}
