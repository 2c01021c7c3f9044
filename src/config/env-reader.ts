/**
 * Reading the environment: one reader every section parser takes, which collects every problem (the
 * variable, what was expected, the value unless it is a secret) instead of stopping at the first.
 */
import * as z from 'zod'
import type { ConfigIssue } from './config-error.js'
import { isSecretVariable, scrubSecrets } from './scrub.js'
import { editDistance } from './nearest-name.js'

/** Reads variables and collects every problem; each section parser takes one. */
export interface EnvReader {
  readonly env: NodeJS.ProcessEnv
  readonly issues: ConfigIssue[]
  /** The variable's value, or undefined when unset or blank (blank means "the default"). */
  value(name: string): string | undefined
  /** Records that `variable` is wrong; its value is shown unless it is a secret. */
  problem(variable: string, expected: string): void
  /** Parses `variable` with `schema`; the fallback when unset, or (recording a problem) when invalid. */
  parse<T>(variable: string, schema: z.ZodType<T, string>, fallback: T, expected: string): T
}

/** Variables never echoed in a configuration error (scrub.ts's secret variables, and the URIs whole). */
const isUnechoed = (name: string) => isSecretVariable(name) || name === 'MONGO_URI' || name === 'MONGO_URL'

/** A whole number of milliseconds from `min` to `max`, as a variable's text. */
export const wholeMs = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,16}$/, `a whole number of milliseconds from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `a whole number of milliseconds from ${min} to ${max}`)

/** A reader over `env` with an empty list of issues. */
export function envReader(env: NodeJS.ProcessEnv): EnvReader {
  const issues: ConfigIssue[] = []
  const value = (name: string): string | undefined => {
    const raw = env[name]
    return raw === undefined || raw.trim() === '' ? undefined : raw
  }
  const problem = (variable: string, expected: string, hint?: string) => {
    const raw = env[variable]
    issues.push({
      ...(isUnechoed(variable) || raw === undefined
        ? { variable, expected }
        : { variable, expected, value: scrubSecrets(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw) }),
      ...(hint === undefined ? {} : { hint }),
    })
  }
  return {
    env,
    issues,
    value,
    problem,
    parse(variable, schema, fallback, expected) {
      const raw = value(variable)
      if (raw === undefined) return fallback
      const result = schema.safeParse(raw)
      if (result.success) return result.data
      problem(variable, expected, choiceHint(schema, raw))
      return fallback
    },
  }
}

/**
 * For a variable that takes one of a few words (a `z.enum`, bare — OVERLAP, CATCH_UP, DAY_MATCH, LOG_LEVEL —
 * or behind a transform — the on/off and true/false switches), the word a wrong value most likely meant, in
 * any case (`Skip`, `skp` → `did you mean skip?`; `Onn` → `on`). None when no word is within half the
 * value's length in edits (at most 2), so `no` is not read as `on` nor `2` as `1`, and none when two words
 * are as near (`of`: on or off?) — a wrong guess at a switch would say the opposite of what was meant.
 */
function choiceHint(schema: z.ZodType, raw: string): string | undefined {
  const words = choiceWords(schema)
  if (words === undefined) return undefined
  const value = raw.trim().toLowerCase()
  const limit = Math.min(2, Math.floor(value.length / 2))
  const [best, next] = words
    .map((word) => ({ word, edits: editDistance(value, word) }))
    .sort((a, b) => a.edits - b.edits)
  if (best === undefined || best.edits > limit || next?.edits === best.edits) return undefined
  return `did you mean ${best.word}?`
}

/** The words a one-of-a-few schema takes: a `z.enum`'s, or the enum's a transform reads. */
function choiceWords(schema: z.ZodType): string[] | undefined {
  if (schema instanceof z.ZodEnum) return schema.options.map(String)
  if (schema instanceof z.ZodPipe && schema.in instanceof z.ZodEnum) return schema.in.options.map(String)
  return undefined
}
