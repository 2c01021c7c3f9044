/**
 * Typed per-net options read from the environment (`LEASECRON_NET_<NET>_<OPTION>`), each a zod schema
 * from an optional string to its value, with a sentence of what it expects for error messages.
 *
 * Durations are whole numbers with a unit (`90s`, `60m`, `192h`, `500ms`); a bare number is refused,
 * so a value can never be read in the wrong unit.
 */
import * as z from 'zod'
import { formatDuration, parseDuration } from '../durations.js'
import { OptionDefinitionError } from './option-definition-error.js'

/**
 * How an option's raw variable (unset: undefined) becomes its value. The built-in options are zod schemas
 * (zod is inside leasecron's bundle), and any zod schema of your own from an optional string fits; the
 * public types name this interface instead, so they resolve without zod installed.
 */
export interface OptionSchema<T> {
  /** The value, or `success: false` when the raw text is not what the option expects. */
  safeParse(raw: string | undefined): { success: true; data: T } | { success: false }
  /** The value; throws when the raw text is not what the option expects. */
  parse(raw: string | undefined): T
}

/** One option: its schema, what it expects (for errors and the docs), and whether its value is secret. */
export interface NetOption<T = unknown> {
  schema: OptionSchema<T>
  expected: string
  /** The default as a user would write it, for the docs and `config`. */
  defaultText: string
  secret?: boolean
}

/** Throws OptionDefinitionError unless min ≤ default ≤ max. */
function checkBounds(
  helper: string,
  value: number,
  min: number,
  max: number,
  show: (n: number) => string,
): void {
  if (min > max)
    throw new OptionDefinitionError(helper, `expected min ≤ max; got min ${show(min)}, max ${show(max)}`)
  if (value < min || value > max)
    throw new OptionDefinitionError(
      helper,
      `expected the default within ${show(min)} to ${show(max)}; got ${show(value)}`,
    )
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

/** A duration in ms between `min` and `max`, written with a unit. */
export function durationOption(
  defaultText: string,
  bounds: { min?: number; max?: number } = {},
): NetOption<number> {
  const min = bounds.min ?? 1
  const max = bounds.max ?? 400 * 86_400_000
  // The bounds in the units the variable takes (`1m`, `400d`), not a count of milliseconds to decode.
  const expected = `a duration with a unit (ms, s, m, h, d) from ${formatDuration(min)} to ${formatDuration(max)}, e.g. ${defaultText}`
  // A JavaScript module may write the default as a number of milliseconds: named, not "text.trim is not a function".
  if (typeof defaultText !== 'string')
    throw new OptionDefinitionError(
      'durationOption',
      `expected a default with a unit, as a string (e.g. '90s'); got the ${typeof defaultText} ${String(defaultText)}`,
    )
  const fallback = parseDuration(defaultText)
  if (fallback === undefined)
    throw new OptionDefinitionError(
      'durationOption',
      `expected a default with a unit (e.g. 90s); got ${defaultText}`,
    )
  checkBounds('durationOption', fallback, min, max, formatDuration)
  const schema = z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = blankToUndefined(raw)
      if (text === undefined) return fallback
      const ms = parseDuration(text)
      if (ms === undefined || ms < min || ms > max) {
        ctx.addIssue({ code: 'custom', message: expected })
        return z.NEVER
      }
      return ms
    })
  return { schema, expected, defaultText }
}

/** A whole number between `min` and `max`. */
export function integerOption(defaultValue: number, bounds: { min: number; max: number }): NetOption<number> {
  // A JavaScript module may leave the bounds out: named, not "Cannot read properties of undefined".
  if (typeof bounds !== 'object' || bounds === null)
    throw new OptionDefinitionError(
      'integerOption',
      `expected its bounds as the second argument, e.g. integerOption(${Number.isSafeInteger(Number(defaultValue)) ? Number(defaultValue) : 7}, { min: 1, max: 365 }); got ${String(bounds)}`,
    )
  for (const [what, n] of [
    ['min', bounds.min],
    ['max', bounds.max],
    ['the default', defaultValue],
  ] as const)
    if (!Number.isSafeInteger(n))
      throw new OptionDefinitionError(
        'integerOption',
        `expected ${what} to be a whole number; got ${typeof n === 'string' ? `the string ${JSON.stringify(n)}` : n}`,
      )
  checkBounds('integerOption', defaultValue, bounds.min, bounds.max, String)
  const expected = `a whole number from ${bounds.min} to ${bounds.max}`
  const schema = z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = blankToUndefined(raw)
      if (text === undefined) return defaultValue
      const n = /^\d+$/.test(text) ? Number(text) : Number.NaN
      if (!Number.isSafeInteger(n) || n < bounds.min || n > bounds.max) {
        ctx.addIssue({ code: 'custom', message: expected })
        return z.NEVER
      }
      return n
    })
  return { schema, expected, defaultText: String(defaultValue) }
}

/** A non-blank string matching `pattern`, or the default. */
export function stringOption(
  defaultValue: string,
  expected: string,
  pattern: RegExp = /^.{1,200}$/,
): NetOption<string> {
  // `stringOption('fast', /^(fast|slow)$/)` (the pattern where the sentence goes) would check nothing.
  if (typeof expected !== 'string' || !(pattern instanceof RegExp))
    throw new OptionDefinitionError(
      'stringOption',
      `expected (default, what it expects in words, pattern), e.g. stringOption('fast', 'fast or slow', /^(fast|slow)$/); got ${misplaced(expected, pattern)}`,
    )
  const schema = z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = blankToUndefined(raw)
      if (text === undefined) return defaultValue
      if (!pattern.test(text)) {
        ctx.addIssue({ code: 'custom', message: expected })
        return z.NEVER
      }
      return text
    })
  return { schema, expected, defaultText: defaultValue || '(empty)' }
}

/** What stringOption was given in place of its sentence or its pattern, in words. */
function misplaced(expected: unknown, pattern: unknown): string {
  if (typeof expected === 'string') return `a pattern of ${String(pattern)}`
  const given = expected instanceof RegExp ? 'the pattern' : `the ${typeof expected}`
  return `${given} ${String(expected)} as what it expects`
}

const REPO = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/

/** A comma-separated list of `owner/name` repositories; empty means "all the installation can access". */
export function repositoryListOption(): NetOption<string[]> {
  const expected =
    'a comma-separated list of owner/name repositories, or empty for every repository the installation can access'
  const schema = z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = blankToUndefined(raw)
      if (text === undefined) return []
      const repos = text
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean)
      const bad = repos.filter((r) => !REPO.test(r))
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `${expected} (not a repository: ${bad.slice(0, 3).join(', ')})`,
        })
        return z.NEVER
      }
      return [...new Set(repos)]
    })
  return { schema, expected, defaultText: '(empty: all accessible)' }
}
