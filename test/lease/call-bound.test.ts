/**
 * A third of a term's TTL as whole milliseconds: the bound of every store call made for a term, the
 * renewal cadence and the default retry. A fraction must not reach `AbortSignal.timeout` (issue #36).
 */
import { describe, expect, it } from 'vitest'
import { termCallBoundMs } from '../../src/lease/call-bound.js'

describe('termCallBoundMs', () => {
  it('is a third of the TTL, rounded up to a whole millisecond, for TTLs that are not multiples of 3 ms', () => {
    expect(termCallBoundMs(4_000)).toBe(1_334)
    expect(termCallBoundMs(4_001)).toBe(1_334)
    expect(termCallBoundMs(1_001)).toBe(334)
    for (const ttl of [4_000, 4_001, 10_000, 20_000, 100_000])
      expect(Number.isInteger(termCallBoundMs(ttl)), `a TTL of ${ttl} ms gave a fraction`).toBe(true)
  })

  it('is exactly a third when the TTL is a multiple of 3 ms', () => {
    expect(termCallBoundMs(3_000)).toBe(1_000)
    expect(termCallBoundMs(180_000)).toBe(60_000)
  })

  it('is at least 1 ms', () => {
    expect(termCallBoundMs(0)).toBe(1)
    expect(termCallBoundMs(-30)).toBe(1)
  })

  it('never throws when it bounds a signal, whatever the TTL', () => {
    for (const ttl of [1_000, 4_000, 4_001, 10_000])
      expect(() => AbortSignal.timeout(termCallBoundMs(ttl)), `TTL ${ttl}`).not.toThrow()
  })
})
