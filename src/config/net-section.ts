/**
 * The nets section: each net's ENABLED, SCHEDULE, TIME_ZONE, TTL_MS, RETRY_MS, CATCH_UP, CATCH_UP_WINDOW,
 * CATCH_UP_MAX, OVERLAP, DAY_MATCH, START_AT, END_AT, MAX_RUNS, JITTER, TIMEOUT, RETRIES, RETRY_BACKOFF, RETAKES, MIN_DURATION, MAX_DURATION,
 * PING_URL and its own options
 * (`LEASECRON_NET_<NET>_<OPTION>`, parsed by the option's schema from nets/options.ts).
 */
import * as z from 'zod'
import { formatDuration, parseDuration } from '../durations.js'
import { MAX_TIMER_MS } from '../lease/clock.js'
import { type LeasePacing, leasePacing } from '../leases.js'
import { CATCH_UP_POLICIES, type CatchUpPolicy, type NetDefinition, OVERLAP_POLICIES } from '../nets/net.js'
import { checkSchedule, DAY_MATCHES, type DayMatch, SCHEDULE_TIME_ZONE } from '../schedule/schedule.js'
import { canonicalTimeZone } from '../schedule/zoned-time.js'
import { type EnvReader, wholeMs } from './env-reader.js'
import { readWindow } from './net-window.js'
import { PING_URL_EXPECTED, parsePingUrl } from './ping-url.js'
import { rememberSecret } from './scrub.js'
import { netEnvPrefix } from './variables.js'
import type { AttemptPolicy, NetConfig } from './worker-config.js'

/**
 * The shortest TTL accepted: a term renews every TTL/3, and below a second a renewal's round trip to the
 * store takes the whole term, so the net would never stay elected. A value under it is most likely a
 * unit slip (`30` meant as seconds).
 */
export const MIN_TTL_MS = 1_000

/** The most retries a slot's pass may make: each is bounded by the next slot anyway; more is a typo. */
export const MAX_RETRIES = 10
/** The most RETAKES: each is a holder lost mid-pass; more is a typo. */
export const MAX_RETAKES = 10
/** The shortest TIMEOUT and RETRY_BACKOFF accepted. */
const MIN_ATTEMPT_MS = 100
/** The default RETRY_BACKOFF: long enough for a transient fault (a 502, a failover) to pass. */
export const DEFAULT_RETRY_BACKOFF_MS = 10_000

/**
 * The default CATCH_UP_WINDOW: a day covers the outage users complain of (a deployment down overnight,
 * kubernetes#42649) while a slot older than that is rarely worth running late — its work is stale, and the
 * next slot's pass (nets are idempotent) repairs what it would have.
 */
export const DEFAULT_CATCH_UP_WINDOW_MS = 86_400_000
/** The shortest window: a second, the finest slot a schedule has; a shorter one could hold no slot. */
const MIN_CATCH_UP_WINDOW_MS = 1_000
/** The longest window: a year; more is most likely a unit slip (`365` days meant as hours). */
const MAX_CATCH_UP_WINDOW_MS = 366 * 86_400_000
/** The default CATCH_UP_MAX: an election runs at most this many missed slots before the schedule resumes. */
export const DEFAULT_CATCH_UP_MAX = 10
/**
 * The most slots one election looks back over (and so the largest CATCH_UP_MAX): the catch-up reads this
 * many of the net's newest runs and accounts at most this many slots, each a ledger write.
 */
export const MAX_CATCH_UP_SLOTS = 1_000

/** One net's ENABLED, SCHEDULE, TTL_MS, RETRY_MS and options; records the names it read in `known`. */
export function readNet(r: EnvReader, net: NetDefinition, known: Set<string>): NetConfig {
  const prefix = netEnvPrefix(net.name)
  const variable = (suffix: string) => {
    known.add(prefix + suffix)
    return prefix + suffix
  }
  const enabled = r.parse(
    variable('ENABLED'),
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
    true,
    '`true` or `false`',
  )
  const { schedule, dayMatch, intervalMs } = readSchedule(r, net, variable('SCHEDULE'), variable('DAY_MATCH'))
  const timeZone = readTimeZone(r, net, variable('TIME_ZONE'))
  const pacing = readPacing(r, intervalMs, variable('TTL_MS'), variable('RETRY_MS'))
  const { catchUp, catchUpWindowMs, catchUpMax } = readCatchUp(r, net, variable)
  const overlap = r.parse(
    variable('OVERLAP'),
    z.enum(OVERLAP_POLICIES),
    net.overlap ?? 'buffer-one',
    '`buffer-one` (a tick that finds the previous pass running has its slot run next), `buffer-all` (every such slot runs, in order, at most CATCH_UP_MAX waiting), `skip` (recorded skipped), `replace` (the running pass is aborted for the new slot) or `allow` (the new slot runs beside it)',
  )
  const jitterMs = readJitter(r, net, intervalMs, variable('JITTER'))
  const attempts = readAttempts(r, intervalMs, variable)
  const durations = readDurationBounds(r, variable)
  const window = readWindow(r, net, variable)
  const maxRuns = readMaxRuns(r, net, variable('MAX_RUNS'))
  const pingUrl = readPingUrl(r, net, variable('PING_URL'))
  const options: Record<string, unknown> = {}
  for (const [suffix, option] of Object.entries(net.options)) {
    const name = variable(suffix)
    const result = option.schema.safeParse(r.env[name])
    if (result.success) options[suffix] = result.data
    else if (option.secret) r.issues.push({ variable: name, expected: option.expected })
    else r.problem(name, option.expected)
  }
  return {
    ...{ definition: net, enabled, schedule, dayMatch, timeZone, intervalMs, pacing },
    ...{ catchUp, catchUpWindowMs, catchUpMax, overlap, jitterMs, attempts, ...durations, ...window },
    ...{ pingUrl, options, ...(maxRuns === undefined ? {} : { maxRuns }) },
  }
}

const MAX_RUNS_EXPECTED = `a whole number of runs from 1 to ${MAX_CATCH_UP_SLOTS} (the most an election reads back)`

/**
 * MAX_RUNS over the net's own `maxRuns`; unset, none. At most MAX_CATCH_UP_SLOTS: the runs are counted in
 * the ledger, and an election reads that many of the net's newest runs (term/run-cap.ts).
 */
function readMaxRuns(r: EnvReader, net: NetDefinition, maxRunsVar: string): number | undefined {
  if (r.value(maxRunsVar) !== undefined) return r.parse(maxRunsVar, slotCount, 1, MAX_RUNS_EXPECTED)
  if (net.maxRuns === undefined) return undefined
  if (Number.isSafeInteger(net.maxRuns) && net.maxRuns >= 1 && net.maxRuns <= MAX_CATCH_UP_SLOTS)
    return net.maxRuns
  r.issues.push({
    variable: `net "${net.name}" (worker configuration module)`,
    expected: `its maxRuns ${JSON.stringify(net.maxRuns)} to be ${MAX_RUNS_EXPECTED} (or ${maxRunsVar} set to one)`,
  })
  return undefined
}

/**
 * PING_URL over the net's own `pingUrl`; unset, none. A secret either way (scrub.ts names the variable
 * one; the net's own URL is remembered here), so an error names it without its value.
 */
function readPingUrl(r: EnvReader, net: NetDefinition, pingVar: string): string | undefined {
  const given = r.value(pingVar)
  if (given !== undefined) {
    if (parsePingUrl(given)) return given.trim()
    r.problem(pingVar, PING_URL_EXPECTED)
    return undefined
  }
  if (net.pingUrl === undefined) return undefined
  rememberSecret(net.pingUrl)
  if (parsePingUrl(net.pingUrl)) return net.pingUrl.trim()
  r.issues.push({
    variable: `net "${net.name}" (worker configuration module)`,
    expected: `its pingUrl to be ${PING_URL_EXPECTED} (or ${pingVar} set to one)`,
  })
  return undefined
}

/**
 * JITTER over the net's own `jitter`; unset, 0 (none). It must stay below the schedule's shortest gap
 * between slots (checkSchedule's, over its next 50), or a pass would start after the next slot's instant.
 */
function readJitter(r: EnvReader, net: NetDefinition, intervalMs: number, jitterVar: string): number {
  const expected = `a duration with a unit (ms, s, m, h, d) from 0 to below the schedule's shortest gap between slots (${formatDuration(intervalMs)}), e.g. 30s; unset, none`
  const given = r.value(jitterVar)
  if (given !== undefined) return r.parse(jitterVar, durationBelow(intervalMs), 0, expected)
  if (net.jitter === undefined) return 0
  const ms = parseDuration(net.jitter)
  if (ms !== undefined && ms < intervalMs) return ms
  r.issues.push({
    variable: `net "${net.name}" (worker configuration module)`,
    expected: `its jitter ${JSON.stringify(net.jitter)} to be ${expected} (or ${jitterVar} set to one)`,
  })
  return 0
}

/** A duration with a unit (durations.ts) from 0 to below `limit` ms, as a variable's text. */
const durationBelow = (limit: number) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text)
    if (ms !== undefined && ms < limit) return ms
    ctx.addIssue({ code: 'custom', message: `a duration below ${limit} ms` })
    return z.NEVER
  })

const CATCH_UP_EXPECTED =
  '`latest` (the newest due slot runs), `all` (the slots within CATCH_UP_WINDOW run, oldest first) or `none`'
const WINDOW_EXPECTED = `a duration with a unit (ms, s, m, h, d) from 1s to 366d, e.g. 6h; unset, 24h`
const MAX_EXPECTED = `a whole number of slots from 1 to ${MAX_CATCH_UP_SLOTS}`

/** CATCH_UP, CATCH_UP_WINDOW and CATCH_UP_MAX over the net's own catchUp, catchUpWindow and catchUpMax. */
function readCatchUp(
  r: EnvReader,
  net: NetDefinition,
  variable: (suffix: string) => string,
): { catchUp: CatchUpPolicy; catchUpWindowMs: number; catchUpMax: number } {
  const own = ownCatchUp(r, net)
  const catchUp = r.parse(variable('CATCH_UP'), z.enum(CATCH_UP_POLICIES), own.catchUp, CATCH_UP_EXPECTED)
  const catchUpWindowMs = r.parse(
    variable('CATCH_UP_WINDOW'),
    durationMs(MIN_CATCH_UP_WINDOW_MS, MAX_CATCH_UP_WINDOW_MS),
    own.windowMs,
    WINDOW_EXPECTED,
  )
  const catchUpMax = r.parse(variable('CATCH_UP_MAX'), slotCount, own.max, MAX_EXPECTED)
  return { catchUp, catchUpWindowMs, catchUpMax }
}

const slotCount = z
  .string()
  .trim()
  .regex(/^\d{1,4}$/)
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_CATCH_UP_SLOTS)

/** The net's own catch-up settings (worker configuration module), checked as the variables are. */
function ownCatchUp(r: EnvReader, net: NetDefinition) {
  const policy = net.catchUp ?? 'latest'
  const windowMs =
    net.catchUpWindow === undefined ? DEFAULT_CATCH_UP_WINDOW_MS : parseDuration(net.catchUpWindow)
  const max = net.catchUpMax ?? DEFAULT_CATCH_UP_MAX
  const problem = (field: string, value: unknown, expected: string) =>
    r.issues.push({
      variable: `net "${net.name}" (worker configuration module)`,
      expected: `its ${field} ${JSON.stringify(value)} to be ${expected}`,
    })
  const validPolicy: readonly string[] = CATCH_UP_POLICIES
  if (!validPolicy.includes(policy)) problem('catchUp', policy, CATCH_UP_EXPECTED)
  const windowOk =
    windowMs !== undefined && windowMs >= MIN_CATCH_UP_WINDOW_MS && windowMs <= MAX_CATCH_UP_WINDOW_MS
  if (!windowOk) problem('catchUpWindow', net.catchUpWindow, WINDOW_EXPECTED)
  const maxOk = Number.isSafeInteger(max) && max >= 1 && max <= MAX_CATCH_UP_SLOTS
  if (!maxOk) problem('catchUpMax', max, MAX_EXPECTED)
  return {
    catchUp: validPolicy.includes(policy) ? policy : 'latest',
    windowMs: windowOk ? windowMs : DEFAULT_CATCH_UP_WINDOW_MS,
    max: maxOk ? max : DEFAULT_CATCH_UP_MAX,
  }
}

const TIME_ZONE_EXPECTED =
  'an IANA time zone name, e.g. `Europe/Berlin`, `America/New_York` or `UTC` (the zone the schedule is read in)'

/** TIME_ZONE over the net's own `timeZone` over UTC, by its canonical name; an unknown zone is refused. */
function readTimeZone(r: EnvReader, net: NetDefinition, zoneVar: string): string {
  const given = r.value(zoneVar)
  if (given !== undefined) {
    const zone = canonicalTimeZone(given)
    if (zone) return zone
    r.problem(zoneVar, `${TIME_ZONE_EXPECTED}; this one is not known to the runtime's time zone database`)
    return SCHEDULE_TIME_ZONE
  }
  if (net.timeZone === undefined) return SCHEDULE_TIME_ZONE
  const zone = canonicalTimeZone(net.timeZone)
  if (zone) return zone
  // As with its schedule: the net's own zone is the configuration module's, so the error names the net.
  r.issues.push({
    variable: `net "${net.name}" (worker configuration module)`,
    expected: `its timeZone ${JSON.stringify(net.timeZone)} to be ${TIME_ZONE_EXPECTED} (or ${zoneVar} set to one)`,
  })
  return SCHEDULE_TIME_ZONE
}

/** A whole number of one or two digits, from 0 to `max`. */
function countUpTo(max: number) {
  return z
    .string()
    .trim()
    .regex(/^\d{1,2}$/)
    .transform(Number)
    .refine((n) => n <= max)
}

/** TIMEOUT (the schedule's interval by default), RETRIES, RETRY_BACKOFF and RETAKES: durations take a unit. */
function readAttempts(r: EnvReader, intervalMs: number, variable: (suffix: string) => string): AttemptPolicy {
  const between = `from ${MIN_ATTEMPT_MS} ms to ${MAX_TIMER_MS} ms`
  const timeoutMs = r.parse(
    variable('TIMEOUT'),
    durationMs(MIN_ATTEMPT_MS, MAX_TIMER_MS),
    Math.min(Math.max(intervalMs, MIN_ATTEMPT_MS), MAX_TIMER_MS),
    `a duration with a unit (ms, s, m, h, d) ${between}, e.g. 30s; unset, the schedule's interval`,
  )
  const retries = r.parse(
    variable('RETRIES'),
    countUpTo(MAX_RETRIES),
    0,
    `a whole number of retries from 0 to ${MAX_RETRIES}`,
  )
  const retryBackoffMs = r.parse(
    variable('RETRY_BACKOFF'),
    durationMs(MIN_ATTEMPT_MS, MAX_TIMER_MS),
    DEFAULT_RETRY_BACKOFF_MS,
    `a duration with a unit (ms, s, m, h, d) ${between}, e.g. 10s (doubled for each later retry)`,
  )
  const retakes = r.parse(
    variable('RETAKES'),
    countUpTo(MAX_RETAKES),
    retries,
    `a whole number from 0 (a pass cut off by its holder's end is recorded aborted, never run again) to ${MAX_RETAKES}; unset, the net's RETRIES`,
  )
  return { timeoutMs, retries, retryBackoffMs, retakes }
}

/**
 * MIN_DURATION and MAX_DURATION: how long a healthy pass of the net takes, each unset by default. A
 * minimum at or above the maximum could never be met, and is refused naming both.
 */
function readDurationBounds(
  r: EnvReader,
  variable: (suffix: string) => string,
): { minDurationMs?: number; maxDurationMs?: number } {
  const expected = (what: string) =>
    `a duration with a unit (ms, s, m, h, d) from 1 ms to ${MAX_TIMER_MS} ms, e.g. 5m: ${what}; unset, none`
  const minVar = variable('MIN_DURATION')
  const maxVar = variable('MAX_DURATION')
  const bound = durationMs(1, MAX_TIMER_MS)
  const min = r.parse(
    minVar,
    bound,
    undefined as number | undefined,
    expected('a pass that ends sooner shows the net too-fast'),
  )
  const max = r.parse(
    maxVar,
    bound,
    undefined as number | undefined,
    expected('a pass that takes longer shows the net slow'),
  )
  if (min !== undefined && max !== undefined && min >= max) {
    r.problem(minVar, `a duration below ${maxVar} (${formatDuration(max)}): no pass could take between them`)
    return {}
  }
  return {
    ...(min === undefined ? {} : { minDurationMs: min }),
    ...(max === undefined ? {} : { maxDurationMs: max }),
  }
}

/** A duration with a unit (durations.ts) from `min` to `max` ms, as a variable's text. */
const durationMs = (min: number, max: number) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text)
    if (ms !== undefined && ms >= min && ms <= max) return ms
    ctx.addIssue({ code: 'custom', message: `a duration from ${min} ms to ${max} ms` })
    return z.NEVER
  })

function readSchedule(
  r: EnvReader,
  net: NetDefinition,
  scheduleVar: string,
  dayMatchVar: string,
): { schedule: string; dayMatch: DayMatch | undefined; intervalMs: number } {
  const text = r.value(scheduleVar) ?? net.schedule
  const dayMatch = readDayMatch(r, net, dayMatchVar)
  // A DAY_MATCH given but refused is its own issue: the schedule is then read as either day, not refused again.
  const given = dayMatch ?? (r.value(dayMatchVar) === undefined ? undefined : 'any')
  const check = checkSchedule({ expression: text, dayMatch: given })
  if (check.ok) return { schedule: text.trim(), dayMatch, intervalMs: check.intervalMs }
  const choose = ` (${dayMatchVar}, or dayMatch in the net's definition)`
  const expected = check.expected.replace('a DAY_MATCH,', `a DAY_MATCH${choose},`)
  // A net's own schedule comes from the configuration module (the shipped one or the user's): its fault
  // is a configuration error too (78), named after the net rather than a variable.
  if (r.value(scheduleVar) === undefined)
    r.issues.push({
      variable: `net "${net.name}" (worker configuration module)`,
      expected: `its schedule ${JSON.stringify(net.schedule)} to be valid (or ${scheduleVar} set to one): ${expected}`,
    })
  else r.problem(scheduleVar, expected)
  return { schedule: net.schedule, dayMatch, intervalMs: 60_000 }
}

/** DAY_MATCH over the net's own `dayMatch`; unset, none (a schedule restricting both day fields is then refused). */
function readDayMatch(r: EnvReader, net: NetDefinition, dayMatchVar: string): DayMatch | undefined {
  const expected =
    '`any` (a day matching the day of month or the day of week) or `all` (a day matching both); unset, none'
  if (r.value(dayMatchVar) !== undefined)
    return r.parse(dayMatchVar, z.enum(DAY_MATCHES), undefined, expected)
  if (net.dayMatch === undefined || DAY_MATCHES.includes(net.dayMatch)) return net.dayMatch
  r.issues.push({
    variable: `net "${net.name}" (worker configuration module)`,
    expected: `its dayMatch ${JSON.stringify(net.dayMatch)} to be ${expected} (or ${dayMatchVar} set to one)`,
  })
  return undefined
}

/**
 * TTL_MS and RETRY_MS over the schedule's default pacing. A retry below TTL/30 would campaign in a hot
 * loop against the store, so it is refused with that reason rather than accepted.
 */
function readPacing(r: EnvReader, intervalMs: number, ttlVar: string, retryVar: string): LeasePacing {
  const ttlMs = r.parse(
    ttlVar,
    wholeMs(MIN_TTL_MS, MAX_TIMER_MS),
    undefined as number | undefined,
    ttlExpected(r.value(ttlVar)),
  )
  const ttlForFloor = leasePacing(intervalMs, { ttlMs }).ttlMs
  const minRetry = Math.max(1, Math.ceil(ttlForFloor / 30))
  const maxRetry = Math.floor(MAX_TIMER_MS / 1.2)
  const retryMs = r.parse(
    retryVar,
    wholeMs(minRetry, maxRetry),
    undefined as number | undefined,
    `a whole number of milliseconds from ${minRetry} (TTL/30: a shorter pause, or 0, would campaign in a hot loop against the store) to ${maxRetry}${unitHint(r.value(retryVar))}`,
  )
  const pacing = leasePacing(intervalMs, { ttlMs, retryMs })
  if (pacing.ttlMs > MAX_TIMER_MS) {
    r.issues.push({
      variable: ttlVar,
      expected: `set: the schedule's pace gives a TTL over ${MAX_TIMER_MS} ms`,
    })
  }
  return pacing
}

/** What a TTL must be; for a small whole number, the value it likely meant in milliseconds. */
function ttlExpected(raw: string | undefined): string {
  const expected = `a whole number of milliseconds from ${MIN_TTL_MS} (a shorter term cannot be renewed in time, so the net would never stay elected) to ${MAX_TIMER_MS} (timers cannot wait longer)`
  const n = raw !== undefined && /^\d{1,4}$/.test(raw.trim()) ? Number(raw) : undefined
  if (n === undefined || n >= MIN_TTL_MS || n === 0) return `${expected}${unitHint(raw)}`
  return `${expected}; the value is in milliseconds — if ${n} meant seconds, write ${n * 1000}`
}

/**
 * For a duration written with a unit (`6s`, `1m`) where a `_MS` variable takes bare milliseconds (every other
 * duration variable takes the unit): the number to write instead. Empty for anything else.
 */
function unitHint(raw: string | undefined): string {
  const ms = raw === undefined ? undefined : parseDuration(raw)
  return ms === undefined
    ? ''
    : `; this variable takes milliseconds without a unit — for ${raw!.trim()}, write ${ms}`
}
