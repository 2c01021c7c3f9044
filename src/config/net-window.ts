/**
 * A net's START_AT and END_AT: the instants its schedule is served between (both inclusive), from the
 * variables over the net's own `startAt`/`endAt`. A slot before START_AT or after END_AT is not the net's:
 * no tick serves it, no catch-up or backfill runs it, `once` refuses it, and a net past its END_AT shows
 * `finished` (status/net-state.ts). Unset: no bound.
 */
import type { NetDefinition } from '../nets/net.js'
import { INSTANT_FORM, parseIsoInstant } from '../term/iso-instant.js'
import type { EnvReader } from './env-reader.js'

export interface NetWindow {
  startAt?: Date | undefined
  endAt?: Date | undefined
}

/** START_AT and END_AT of `net`; an issue for each unreadable one, and for an END_AT not after START_AT. */
export function readWindow(
  r: EnvReader,
  net: NetDefinition,
  variable: (suffix: string) => string,
): NetWindow {
  const startAt = readInstant(r, net, variable('START_AT'), 'startAt')
  const endAt = readInstant(r, net, variable('END_AT'), 'endAt')
  if (startAt && endAt && endAt.getTime() <= startAt.getTime()) {
    r.issues.push({
      variable: variable('END_AT'),
      expected: `an instant after START_AT (${startAt.toISOString()}); got ${endAt.toISOString()}`,
    })
    return {}
  }
  return { ...(startAt ? { startAt } : {}), ...(endAt ? { endAt } : {}) }
}

function readInstant(
  r: EnvReader,
  net: NetDefinition,
  name: string,
  field: 'startAt' | 'endAt',
): Date | undefined {
  const given = r.value(name)
  const text = given ?? net[field]
  if (text === undefined) return undefined
  const parsed = parseIsoInstant(text)
  if (parsed.ok) return parsed.instant
  const why = 'impossible' in parsed ? `${INSTANT_FORM}; ${parsed.impossible}` : INSTANT_FORM
  if (given !== undefined) r.problem(name, why)
  else
    r.issues.push({
      variable: `net "${net.name}" (worker configuration module)`,
      expected: `its ${field} ${JSON.stringify(text)} to be ${why} (or ${name} set to one)`,
    })
  return undefined
}

/** Whether `slot` lies within the net's START_AT and END_AT (both inclusive). */
export function inNetWindow(window: NetWindow, slot: Date): boolean {
  const t = slot.getTime()
  return (
    (window.startAt === undefined || t >= window.startAt.getTime()) &&
    (window.endAt === undefined || t <= window.endAt.getTime())
  )
}
