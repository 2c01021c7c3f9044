/**
 * A Term's renewals on a clock whose timers fire up to a millisecond early, as Node's can: each cadence
 * still sends one renewal, never two at one grid instant.
 */
import { describe, expect, it } from 'vitest'
import type { Clock, TimerHandle } from '../../src/lease/clock.js'
import { renewalPhaseMs, Term } from '../../src/lease/term.js'

/** A clock the test moves; every timer fires 0.5 ms before its delay is up. */
function earlyClock() {
  let at = 0
  let next = 0
  const timers = new Map<number, { due: number; fn: () => void }>()
  const clock: Clock = {
    now: () => new Date(at),
    monotonic: () => at,
    setTimeout: (fn, ms) => {
      timers.set(++next, { due: at + Math.max(0, ms - 0.5), fn })
      return next as unknown as TimerHandle
    },
    clearTimeout: (handle) => void timers.delete(handle as unknown as number),
  }
  /** Runs the timers due up to `until`, in order, letting each one's promises settle. */
  async function advance(until: number): Promise<void> {
    for (let fired = 0; ; fired++) {
      if (fired > 1_000) throw new Error('timers kept firing at one instant: renewals in a loop')
      const due = [...timers.entries()].sort((a, b) => a[1].due - b[1].due)[0]
      if (!due || due[1].due > until) break
      timers.delete(due[0])
      at = due[1].due
      due[1].fn()
      for (let i = 0; i < 5; i++) await Promise.resolve()
    }
    at = until
  }
  return { clock, advance }
}

describe('a term’s renewals on a clock whose timers fire early', () => {
  it('send one renewal a cadence, not a second one at the same grid instant', async () => {
    const { clock, advance } = earlyClock()
    const ttlMs = 3_000
    const sent: number[] = []
    const term = new Term({
      clock,
      ttlMs,
      grant: { name: 'net-a', owner: 'alpha', token: 't', fence: 1, expiresAt: new Date(ttlMs) },
      grantSentAt: 0,
      renew: async () => {
        sent.push(clock.monotonic())
        return { ok: true, value: true }
      },
      onRenewal: () => undefined,
      onEnd: () => undefined,
    })
    expect(term.begin()).toBe(true)
    await advance(10 * ttlMs)
    term.finish('stopped')
    const every = ttlMs / 3
    const phase = renewalPhaseMs('net-a', every)
    // One early renewal to join the phase (when it is not 0), then one each cadence until 30 s.
    expect(sent.length, 'a renewal went twice at one grid instant').toBeLessThanOrEqual(31)
    for (const [i, at] of sent.entries())
      if (i > 0) expect(at - sent[i - 1]!, 'two renewals went a moment apart').toBeGreaterThan(every / 2)
    expect((sent.at(-1)! - phase) % every).toBeCloseTo(every - 0.5, 0)
  })
})
