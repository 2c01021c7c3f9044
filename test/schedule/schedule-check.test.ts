/**
 * checkSchedule's short way: an expression both cron libraries read into the same plain value sets is
 * checked on cron-parser's slots alone, without node-cron's ticking (which formats every candidate instant
 * through Intl and cost a cold start 45–85 ms). Held here: the short way gives the interval node-cron's own
 * ticks give, it formats no instant through Intl, and the expressions the two libraries read differently still
 * take the full comparison and are refused.
 */
import cron from 'node-cron'
import { afterEach, describe, expect, it } from 'vitest'
import { checkSchedule } from '../../src/schedule/schedule.js'

/** node-cron's own next 50 ticks, the shortest gap between two of them (what the full comparison measures). */
function nodeCronInterval(expression: string): number {
  const task = cron.createTask(expression, () => {})
  try {
    const runs = task.getNextRuns(50).map((d) => d.getTime())
    let gap = Number.POSITIVE_INFINITY
    for (let i = 1; i < runs.length; i++) gap = Math.min(gap, runs[i]! - runs[i - 1]!)
    return gap
  } finally {
    void task.destroy()
  }
}

const PLAIN = [
  '* * * * * *',
  '*/10 * * * * *',
  '*/5 * * * *',
  '*/7 * * * *',
  '15,45 * * * *',
  '5-10 * * * *',
  '0 */6 * * *',
  '0 2 * * *',
  '30 9 * * mon-fri',
  '0 0 * * 7',
  '0 0 * * 0,3',
  '0 0 1 * *',
  '0 0 31 * *',
  '0 12 * jan-mar *',
]

describe('checkSchedule without node-cron ticking', () => {
  const formatToParts = Intl.DateTimeFormat.prototype.formatToParts
  afterEach(() => {
    Intl.DateTimeFormat.prototype.formatToParts = formatToParts
  })

  it.each(PLAIN)('gives %s the interval node-cron’s own ticks give', (expression) => {
    const check = checkSchedule(expression)
    expect(check, 'a plain schedule was refused').toEqual({
      ok: true,
      intervalMs: nodeCronInterval(expression),
    })
  })

  it('checks a plain expression without formatting a single instant through Intl', () => {
    let formatted = 0
    Intl.DateTimeFormat.prototype.formatToParts = function counted(date) {
      formatted += 1
      return formatToParts.call(this, date)
    }
    // An expression no other test of this file checks, so the remembered checks do not answer it.
    expect(checkSchedule('17 */3 * * *')).toEqual({ ok: true, intervalMs: 3 * 3_600_000 })
    expect(formatted, 'the configuration check formats instants through ICU on every cold start').toBe(0)
  })

  it('still refuses, through the full comparison, what the libraries read differently', () => {
    const both = checkSchedule('0 0 1 * 1')
    expect(both.ok, 'both day fields restricted was accepted').toBe(false)
    expect(both.ok ? '' : both.expected).toMatch(/the day of month and the day of week are both restricted/)
    const backwards = checkSchedule('1-0 * * * *')
    expect(backwards.ok, 'a wrapping range was accepted').toBe(false)
    expect(backwards.ok ? '' : backwards.expected).toMatch(/the range 1-0 runs backwards/)
  })

  it('takes the full comparison for node-cron’s own day tokens and accepts what both read alike', () => {
    const last = checkSchedule('0 0 L * *')
    // Either answer is node-cron's and cron-parser's own comparison; the short way must not have guessed.
    expect(last.ok ? last.intervalMs : last.expected).toEqual(
      last.ok ? expect.any(Number) : expect.any(String),
    )
  })
})
