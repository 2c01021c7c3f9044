/**
 * The bound of one call within a term: ttl/3 as whole milliseconds, and its signal, which a fraction must
 * not break (AbortSignal.timeout throws ERR_OUT_OF_RANGE for one: issue #36).
 */
import { describe, expect, it } from 'vitest'
import { callBoundSignal, termCallBoundMs } from '../../src/worker/term-call-bound.js'

describe('termCallBoundMs', () => {
  it('is a third of the TTL, rounded up to a whole millisecond', () => {
    expect(termCallBoundMs(4_000)).toBe(1_334)
    expect(termCallBoundMs(3_000)).toBe(1_000)
    expect(termCallBoundMs(1_001)).toBe(334)
  })

  it('is at least 1 ms', () => {
    expect(termCallBoundMs(0)).toBe(1)
    expect(termCallBoundMs(-30)).toBe(1)
  })
})

describe('callBoundSignal', () => {
  it('takes a bound with a fraction, and aborts by it', async () => {
    const signal = callBoundSignal(4_000 / 3 / 100)
    expect(signal.aborted).toBe(false)
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
    expect(signal.reason).toMatchObject({ name: 'TimeoutError' })
  })

  it('takes a bound under 1 ms', () => {
    expect(() => callBoundSignal(0.2)).not.toThrow()
    expect(() => callBoundSignal(-5)).not.toThrow()
  })

  it('aborts with the term, before its bound', () => {
    const term = new AbortController()
    const signal = callBoundSignal(60_000, term.signal)
    term.abort(new Error('term ended'))
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toMatchObject({ message: 'term ended' })
  })
})
