/** The checker's figure slots accounted ÷ slots scheduled, on ledgers written by hand (pure, no processes). */
import { describe, expect, it } from 'vitest'
import { accountSlots } from './checker.js'

const at = (second: number) => new Date(Date.UTC(2026, 9, 1, 12, 0, second))

describe('slots accounted ÷ slots scheduled', () => {
  it('is 100 % when every second of the span has a record with an outcome, whatever the outcome', () => {
    const outcomes = ['ok', 'missed', 'skipped', 'aborted', 'failed']
    const figure = accountSlots(outcomes.map((outcome, i) => ({ slot: at(i), outcome })))
    expect(figure).toMatchObject({
      scheduled: 5,
      accounted: 5,
      percent: 100,
      missingCount: 0,
      unfinishedCount: 0,
    })
    expect(figure.outcomes).toEqual({ ok: 1, missed: 1, skipped: 1, aborted: 1, failed: 1 })
  })

  it('counts a second with no record and a claim never finished against it, and names them', () => {
    const figure = accountSlots([
      { slot: at(0), outcome: 'ok' },
      { slot: at(1), outcome: null },
      { slot: at(3), outcome: 'ok' },
    ])
    expect(figure).toMatchObject({
      scheduled: 4,
      accounted: 2,
      percent: 50,
      missing: [at(2).toISOString()],
      unfinished: [at(1).toISOString()],
    })
  })

  it('is 100 % of nothing for an empty ledger', () => {
    expect(accountSlots([])).toMatchObject({ scheduled: 0, accounted: 0, percent: 100, from: null })
  })
})
