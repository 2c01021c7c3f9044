/**
 * The signal of one call's bound within a term, which a fraction must not break (AbortSignal.timeout throws
 * ERR_OUT_OF_RANGE for one: issue #36). The bound itself: test/lease/call-bound.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { callBoundSignal } from '../../src/term/term-call-bound.js'

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
