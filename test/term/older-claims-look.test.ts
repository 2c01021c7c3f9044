/**
 * OlderClaimsLook on a clock the test moves: a term looks on every pass until one ends a call bound after
 * it began, then on every tenth.
 */
import { describe, expect, it } from 'vitest'
import type { Clock } from '../../src/lease/clock.js'
import { CLOSE_EVERY_PASSES, OlderClaimsLook } from '../../src/term/older-claims-look.js'

function movedClock(): Clock & { ms: number } {
  const clock = {
    ms: 1_000,
    now: () => new Date(clock.ms),
    monotonic: () => clock.ms,
    setTimeout: () => {
      throw new Error('the look sets no timer')
    },
    clearTimeout: () => undefined,
  }
  return clock as Clock & { ms: number }
}

describe('a term’s looks for older terms’ unfinished claims', () => {
  it('happen on every pass before the bound, on the first pass ending at it, then only every tenth', () => {
    const clock = movedClock()
    const look = new OlderClaimsLook(clock, 10_000)
    const looked: number[] = []
    for (let number = 1; number <= 3 * CLOSE_EVERY_PASSES; number++) {
      // Three passes in the first 9 s (a catch-up), the fourth exactly at the bound, then one a minute.
      clock.ms = number <= 3 ? 1_000 + number * 3_000 : 11_000 + (number - 4) * 60_000
      if (look.due(number)) looked.push(number)
    }
    expect(looked, 'a look before every older claim landed was the last one, or looks went on').toEqual([
      1, 2, 3, 4, 10, 20, 30,
    ])
  })
})
