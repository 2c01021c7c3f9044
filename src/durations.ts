/**
 * Durations as a user writes them (`90s`, `60m`, `192h`, `500ms`): parsed into milliseconds and printed
 * back, by one module so that what `leasecron config` prints can be pasted back into the variable.
 *
 * On the bottom floor (it imports nothing of the product) because both sides need it: the nets' options
 * parse durations (nets/options.ts) and the configuration prints them (config/redacted-config.ts), and
 * config/ reads the nets' option definitions, so a module inside either room would make them import each
 * other. A bare number is never a duration: a value can never be read in the wrong unit.
 */

const DURATION = /^(\d{1,12})(ms|s|m|h|d)$/
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** Parses `90s`, `60m`, `192h`…; undefined for anything else (a bare number, an unsafe integer). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim())
  if (!match) return undefined
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
  return Number.isSafeInteger(ms) ? ms : undefined
}

/** Milliseconds as a user writes a duration: the largest unit that divides it (`60m` → `1h`, `90s`). */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}
