/**
 * The scrubber's cost is linear in its text (config/scrub.ts): every log line, ledger error and ping body
 * passes through it on the worker's one thread, and a pattern that backtracked on a long run once blocked
 * the worker 20 s a line for a 100 000-character pause reason.
 *
 * Measured against a baseline in the same run (the same text upper-cased: one linear pass), so a slow or
 * loaded machine moves both: each measure is the fastest of three, and the bound is a generous multiple
 * of the baseline plus a floor. Each shape grows 4 KiB → 1 MiB and stops at the first size over its bound,
 * so a quadratic pattern fails in a fraction of a second instead of hanging the run.
 */
import { describe, expect, it } from 'vitest'
import { scrubSecrets } from '../../src/config/scrub.js'

/** Milliseconds of the fastest of `times` runs of `run`. */
function fastest(run: () => unknown, times = 3): number {
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    run()
    best = Math.min(best, performance.now() - started)
  }
  return best
}

/** How many times the baseline scrubbing may take (it runs about ten linear patterns), and a floor in ms. */
const RATIO = 200
const FLOOR_MS = 50

const SIZES = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]

describe('scrubSecrets time', () => {
  it.each([
    ['letters', 'a'],
    ['a secret-named option without a value', '?password'],
    ['a scheme without its host', 'x://'],
    ['user info without a host', 'x://u:'],
    ['name=value pairs', 'token=a'],
    ['a JWT-like run', 'eyJ-'],
    ['a PEM header cut short', '-----BEGIN A'],
    ['bearer words', 'bearer '],
    ['mixed punctuation', 'Ab0-._~+/=:@?&;#%[]'],
  ])('is linear in the text for %s, up to 1 MiB', (_shape, unit) => {
    for (const size of SIZES) {
      const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
      const baseline = fastest(() => text.toUpperCase())
      const took = fastest(() => scrubSecrets(text))
      const bound = RATIO * baseline + FLOOR_MS
      expect(
        took,
        `${size} characters took ${took.toFixed(1)} ms (baseline ${baseline.toFixed(2)} ms)`,
      ).toBeLessThan(bound)
    }
  })
})
