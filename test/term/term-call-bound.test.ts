/**
 * The signal of one call's bound within a term, which a fraction must not break (AbortSignal.timeout throws
 * ERR_OUT_OF_RANGE for one: issue #36). The bound itself: test/lease/call-bound.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { followerCount } from '../../src/lease/follow-abort.js'
import { callBoundSignal } from '../../src/term/term-call-bound.js'
import { anyDependants } from '../support/abort-dependants.js'

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

describe('callBoundSignal on a long-lived term', () => {
  it('leaves nothing on the term’s signal once each call’s bound has passed', async () => {
    const term = new AbortController()
    const signals = Array.from({ length: 1_000 }, () => callBoundSignal(5, term.signal))
    await Promise.all(
      signals.map((s) => new Promise((resolve) => s.addEventListener('abort', resolve, { once: true }))),
    )
    expect(anyDependants(term.signal), 'each call would stay on the term for its life (Node 20)').toBe(0)
    expect(followerCount(term.signal), 'each call would stay on the term until it ends').toBe(0)
    expect(signals.every((s) => s.reason?.name === 'TimeoutError')).toBe(true)
  })
})
