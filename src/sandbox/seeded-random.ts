/**
 * A small deterministic PRNG (mulberry32) so a generated sandbox is the same for the same seed on every
 * machine. Not for anything secret.
 */

/** Draws from one seeded stream. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number
  /** An integer in [min, max], inclusive. */
  int(min: number, max: number): number
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T
  /** `length` lowercase hex digits (commit shas). */
  hex(length: number): string
}

/** Creates a stream from a 32-bit seed; the same seed yields the same sequence. */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    hex: (length) => {
      let out = ''
      while (out.length < length) out += Math.floor(next() * 16).toString(16)
      return out
    },
  }
}
