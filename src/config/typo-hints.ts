/**
 * Typos: every `LEASECRON_*` variable the worker does not read is refused, with the known name it most
 * likely meant, so a misspelt variable never silently leaves the worker or a net on its defaults.
 */
import type { NetDefinition } from '../nets/net.js'
import type { EnvReader } from './env-reader.js'
import { nearestName } from './nearest-name.js'
import { GLOBAL_VARIABLES, netEnvPrefix, OTHER_GLOBAL_NAMES, TOOL_NAMES, TOOL_PREFIXES } from './variables.js'

/** Every `LEASECRON_*` the worker does not read is refused: a typo must not leave a default in place. */
export function refuseUnknownVariables(
  r: EnvReader,
  nets: readonly NetDefinition[],
  knownNet: Set<string>,
): void {
  const known = new Set<string>([...GLOBAL_VARIABLES.map(([name]) => name), ...OTHER_GLOBAL_NAMES])
  const prefixes = nets.map((n) => `${netEnvPrefix(n.name)}*`).join(', ')
  for (const name of Object.keys(r.env)) {
    if (!name.startsWith('LEASECRON_') || TOOL_PREFIXES.some((p) => name.startsWith(p))) continue
    if (TOOL_NAMES.includes(name)) continue
    if (known.has(name) || knownNet.has(name)) continue
    const near = nearestName(name, [...known, ...knownNet])
    r.issues.push({
      variable: name,
      expected: name.startsWith('LEASECRON_NET_')
        ? `a known per-net variable (${prefixes} followed by ENABLED, SCHEDULE, TIME_ZONE, TTL_MS, RETRY_MS, CATCH_UP, CATCH_UP_WINDOW, CATCH_UP_MAX, OVERLAP, DAY_MATCH, START_AT, END_AT, MAX_RUNS, JITTER, TIMEOUT, RETRIES, RETRY_BACKOFF, RETAKES, MIN_DURATION, MAX_DURATION, PING_URL or the net's options); this one is unknown${near ? ` — did you mean ${near}?` : ''}`
        : `a known variable (${[...known].filter((n) => n.startsWith('LEASECRON_')).join(', ')}); this one is unknown${near ? ` — did you mean ${near}?` : ''}`,
    })
  }
}
