/**
 * untilDueLookMs: when a standby looks at the lease before its work's next due instant (due-look.ts).
 */
import { describe, expect, it } from 'vitest'
import { DUE_LOOK_AHEAD_MS, untilDueLookMs } from '../../src/lease/due-look.js'

const MINUTE = 60_000
/** A minute schedule's next instant after `after`. */
const everyMinute = (after: Date) => new Date((Math.floor(after.getTime() / MINUTE) + 1) * MINUTE)
const NOW = 10 * MINUTE + 15_000

describe('a standby’s look before its work falls due', () => {
  it('comes the look-ahead before the next due instant', () => {
    expect(untilDueLookMs(everyMinute, NOW, 30_000)).toBe(MINUTE - 15_000 - DUE_LOOK_AHEAD_MS)
  })

  it('comes half a retry ahead when the retry is shorter than twice the look-ahead', () => {
    expect(untilDueLookMs(everyMinute, NOW, 1_000)).toBe(MINUTE - 15_000 - 500)
  })

  it('comes half an odd retry ahead too (a TTL of 4001 ms retries every 1333.67 ms)', () => {
    const retryMs = 4001 / 3
    expect(untilDueLookMs(everyMinute, NOW, retryMs)).toBeCloseTo(MINUTE - 15_000 - retryMs / 2, 6)
  })

  it('is not repeated once its moment has passed: the next look is the following instant’s', () => {
    const lookedAt = 11 * MINUTE - DUE_LOOK_AHEAD_MS + 5
    expect(untilDueLookMs(everyMinute, lookedAt, 30_000), 'a standby would not look once per slot').toBe(
      12 * MINUTE - DUE_LOOK_AHEAD_MS - lookedAt,
    )
  })

  it('is skipped for instants no more than twice the look-ahead apart, which its reads already cover', () => {
    const everyFourSeconds = (after: Date) => new Date((Math.floor(after.getTime() / 4_000) + 1) * 4_000)
    const everyFiveSeconds = (after: Date) => new Date((Math.floor(after.getTime() / 5_000) + 1) * 5_000)
    expect(untilDueLookMs(everyFourSeconds, 1_000, 30_000), 'a read every 4 s slot would be added').toBe(
      undefined,
    )
    expect(untilDueLookMs(everyFiveSeconds, 1_000, 30_000)).toBe(5_000 - DUE_LOOK_AHEAD_MS - 1_000)
  })

  it('is not taken without a next instant, or from a function that throws or answers no later Date', () => {
    expect(untilDueLookMs(undefined, NOW, 30_000)).toBe(undefined)
    expect(untilDueLookMs(() => undefined, NOW, 30_000)).toBe(undefined)
    expect(
      untilDueLookMs(
        () => {
          throw new Error('no schedule')
        },
        NOW,
        30_000,
      ),
    ).toBe(undefined)
    expect(untilDueLookMs(() => new Date(NOW - 1), NOW, 30_000)).toBe(undefined)
    expect(untilDueLookMs(() => new Date(Number.NaN), NOW, 30_000)).toBe(undefined)
  })

  it('still comes for the last instant a schedule has, and not again after it', () => {
    const once = (after: Date) => (after.getTime() < 11 * MINUTE ? new Date(11 * MINUTE) : undefined)
    expect(untilDueLookMs(once, NOW, 30_000)).toBe(MINUTE - 15_000 - DUE_LOOK_AHEAD_MS)
    expect(untilDueLookMs(once, 11 * MINUTE - 1_000, 30_000)).toBe(undefined)
  })
})
