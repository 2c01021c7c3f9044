/**
 * describePause: how a pause reads in `leasecron status`, a log line and a ledger record — one plain line,
 * bounded, whatever store handed the pause over (a store of your own need not have checked its texts).
 */
import { describe, expect, it } from 'vitest'
import { describePause } from '../../src/control/net-control-store.js'

describe('describePause', () => {
  it('writes a reason and an author without control characters and bounded', () => {
    const text = describePause({
      at: new Date('2026-10-01T12:00:00.000Z'),
      until: new Date('2026-10-01T14:00:00.000Z'),
      abort: false,
      reason: `\u001b[2J\u001b]52;c;ZWNobyBwd25lZA==\u0007disk full${'!'.repeat(100_000)}`,
      by: 'ann\u001b[8m',
    })
    expect(
      text.startsWith('paused by ann[8m until 2026-10-01T14:00:00.000Z: [2J]52;c;ZWNobyBwd25lZA==disk full!'),
    ).toBe(true)
    expect(text).toMatch(/…\(99\d{3} more\)$/)
    expect(text.length).toBeLessThan(600)
  })
})
