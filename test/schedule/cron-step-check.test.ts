/**
 * A step past its field's range (a step of 90 over the minute field's `*`) is refused: cron restarts the step each hour, so the
 * schedule would fire once an hour at minute 0 instead of every 90 minutes.
 */
import { describe, expect, it } from 'vitest'
import { checkSchedule } from '../../src/schedule/schedule.js'

function refusal(expression: string): string {
  const check = checkSchedule(expression)
  if (check.ok) throw new Error(`"${expression}" was accepted, with an interval of ${check.intervalMs} ms`)
  return check.expected
}

describe('a cron step past its field’s range', () => {
  it('refuses */90 in the minute field, saying it would fire only at minute 0 of each hour', () => {
    // Before: accepted with an interval of one hour, the net running every 60 minutes, not every 90.
    expect(refusal('*/90 * * * *')).toContain(
      'minute: the step in "*/90" reaches past 0–59, so it fires only at minute 0 of each hour, not every 90',
    )
  })

  it('refuses a step past the hour, the day of month, the month and the seconds', () => {
    expect(refusal('0 */36 * * *')).toContain('hour: the step in "*/36" reaches past 0–23')
    expect(refusal('0 0 */45 * *')).toContain('day of month: the step in "*/45" reaches past 1–31')
    expect(refusal('0 0 1 */12 *')).toContain('month: the step in "*/12" reaches past 1–12')
    expect(refusal('*/75 * * * * *')).toContain('second: the step in "*/75" reaches past 0–59')
    expect(refusal('10-20/15 * * * *')).toContain('the step in "10-20/15" reaches past 10–20')
  })

  it('accepts the steps that fit their field, up to one below its span', () => {
    for (const expression of [
      '*/59 * * * *',
      '*/30 * * * *',
      '0 */12 * * *',
      '0 0 */2 * *',
      '10-40/15 * * * *',
    ])
      expect(checkSchedule(expression).ok, expression).toBe(true)
  })
})
