import { describe, expect, it } from 'vitest'
import { boundedCall } from '../../src/lease/bounded-call.js'
import { DrivenClock } from '../support/driven-clock.js'

/** A call that never answers, rejecting at once (synchronously) when its signal aborts, as a driver does. */
function abortable(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('the driver saw the abort')), { once: true })
  })
}

describe('boundedCall: one store call, one bound', () => {
  it('answers the call’s value', async () => {
    const clock = new DrivenClock('2026-12-07T00:00:00Z')
    expect(await boundedCall(clock, 1000, undefined, async () => 7)).toEqual({ ok: true, value: 7 })
  })

  it('cuts a call that ignores its signal at the bound', async () => {
    const clock = new DrivenClock('2026-12-07T00:00:00Z')
    const answer = boundedCall(clock, 1000, undefined, () => new Promise<never>(() => {}))
    await Promise.resolve()
    clock.jump(1000)
    clock.fireDue()
    const settled = await answer
    expect(settled.ok).toBe(false)
    expect(String(!settled.ok && settled.error)).toContain('no answer within 1000 ms')
  })

  it('answers the bound’s reason, not the error the call rejects with on hearing of it', async () => {
    const clock = new DrivenClock('2026-12-07T00:00:00Z')
    const answer = boundedCall(clock, 1000, undefined, abortable)
    await Promise.resolve()
    await Promise.resolve()
    clock.jump(1000)
    clock.fireDue()
    const settled = await answer
    expect(String(!settled.ok && settled.error)).toContain('no answer within 1000 ms')
  })

  it('answers the parent’s reason when the parent aborts, and leaves no listener on it', async () => {
    const clock = new DrivenClock('2026-12-07T00:00:00Z')
    const parent = new AbortController()
    let listeners = 0
    const add = parent.signal.addEventListener.bind(parent.signal)
    const remove = parent.signal.removeEventListener.bind(parent.signal)
    parent.signal.addEventListener = (...args: Parameters<typeof add>) => {
      listeners++
      add(...args)
    }
    parent.signal.removeEventListener = (...args: Parameters<typeof remove>) => {
      listeners--
      remove(...args)
    }
    const answer = boundedCall(clock, 1000, parent.signal, abortable)
    await Promise.resolve()
    parent.abort(new Error('the term ended'))
    const settled = await answer
    expect(String(!settled.ok && settled.error)).toContain('the term ended')
    expect(listeners).toBe(0)
  })

  it('answers at once for a parent aborted before the call', async () => {
    const clock = new DrivenClock('2026-12-07T00:00:00Z')
    const parent = new AbortController()
    parent.abort(new Error('already over'))
    let called = false
    const settled = await boundedCall(clock, 1000, parent.signal, async (signal) => {
      called = signal.aborted
      return 1
    })
    expect(settled.ok).toBe(false)
    expect(String(!settled.ok && settled.error)).toContain('already over')
    expect(called).toBe(true)
  })
})
