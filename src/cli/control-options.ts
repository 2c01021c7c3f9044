/**
 * What `pause` and `resume` read from the command line besides the net: when a pause ends (`--for D`,
 * `--until ISO`), who (`--by`, the OS user by default) and why (`--reason`). Each bad value is a usage
 * error naming the option and what was expected. Not the store: control/ checks again what it keeps.
 */
import { userInfo } from 'node:os'
import { ControlActionError } from '../control/control-action-error.js'
import { type PauseNetInput, pauseEnd as checkPauseEnd } from '../control/control-actions.js'
import type { OptionValues } from './command.js'

export type Parsed<T> = { ok: true; value: T } | { ok: false; expected: string }

/**
 * `--for` / `--until` as an end instant after `now` (undefined: until resumed), checked by the control
 * actions' own `pauseEnd` (the admin API's too), so both refuse the same values; a refusal names the
 * options (`--for: expected …`).
 */
export function pauseEnd(net: string, values: OptionValues, now: Date): Parsed<Date | undefined> {
  try {
    return { ok: true, value: checkPauseEnd(net, pauseTimes(values), now) }
  } catch (error) {
    if (!(error instanceof ControlActionError)) throw error
    return { ok: false, expected: `${error.fields.map((f) => `--${f}`).join(' and ')}: ${error.expected}` }
  }
}

/** `--for` and `--until` as the control actions take them. */
export function pauseTimes(values: OptionValues): PauseNetInput {
  return {
    ...(values.for === undefined ? {} : { for: values.for }),
    ...(values.until === undefined ? {} : { until: values.until.trim() }),
  }
}

/** Who and why: `--by` (the OS user when absent) and `--reason`. */
export function author(values: OptionValues): { by?: string; reason?: string } {
  const by = values.by ?? osUser()
  return { ...(by ? { by } : {}), ...(values.reason === undefined ? {} : { reason: values.reason }) }
}

function osUser(): string | undefined {
  try {
    return userInfo().username || undefined
  } catch {
    return undefined
  }
}
