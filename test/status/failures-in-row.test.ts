import { describe, expect, it } from 'vitest'
import { failuresInRow, stateLabel } from '../../src/status/failures-in-row.js'

describe('failuresInRow', () => {
  it('counts the failed and timed-out verdicts at the head, up to the first other verdict', () => {
    const runs = [{ outcome: 'failed' }, { outcome: 'timed-out' }, { outcome: 'ok' }, { outcome: 'failed' }]
    expect(failuresInRow(runs)).toBe(2)
    expect(
      failuresInRow([{ outcome: 'missed' }, { outcome: 'failed' }]),
      'a missed slot ends the count',
    ).toBe(0)
    expect(failuresInRow([])).toBe(0)
  })

  it('passes over running, aborted, skipped, paused and deferred slots and manual runs, as netState does', () => {
    const runs = [
      { outcome: 'running' },
      { outcome: undefined },
      { outcome: 'aborted' },
      { outcome: 'ok', manual: true },
      { outcome: 'failed' },
      { outcome: 'skipped' },
      { outcome: 'paused' },
      { outcome: 'deferred' },
      { outcome: 'failed' },
      { outcome: 'ok' },
    ]
    expect(failuresInRow(runs), 'a slot with no verdict or a manual success broke the count').toBe(2)
  })
})

describe('stateLabel', () => {
  it('says failing ×N from two failures in a row, and leaves every other state as it is', () => {
    expect(stateLabel('failing', 3)).toBe('failing ×3')
    expect(stateLabel('failing', 1)).toBe('failing')
    expect(stateLabel('late', 5)).toBe('late')
  })
})
