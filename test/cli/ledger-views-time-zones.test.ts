/**
 * `status`, `history` and `history --json` for a net read in another zone than UTC: its slots as UTC
 * instants and as the zone's local time with the offset, so a daylight-saving change reads as it happened.
 */
import { describe, expect, it } from 'vitest'
import type { LeaseRecord } from '../../src/lease/store.js'
import { historyJson, historyLines, statusLines } from '../../src/cli/ledger-views.js'
import type { RunRecord } from '../../src/runs/run-ledger.js'

const NOW = new Date('2026-03-29T01:05:00Z')
const run = (slot: string): RunRecord => ({
  id: `digest@${new Date(slot).toISOString()}`,
  net: 'digest',
  slot: new Date(slot),
  owner: 'host-a',
  fence: 4,
  startedAt: new Date(slot),
  finishedAt: new Date(new Date(slot).getTime() + 2_000),
  outcome: 'ok',
})
const lease: LeaseRecord = {
  name: 'digest',
  owner: 'host-a',
  fence: 4,
  expiresAt: new Date(NOW.getTime() + 10_000),
  renewedAt: NOW,
}

describe('the ledger views of a zoned net', () => {
  it('status shows the last slot in UTC and in the net’s local time with its offset and zone', () => {
    const lastRuns = new Map([['digest', run('2026-03-29T01:00:00Z')]])
    const [, line] = statusLines([lease], lastRuns, NOW, new Map([['digest', 'Europe/Berlin']]))
    expect(line).toContain(
      'last run 2026-03-29T01:00:00.000Z (2026-03-29 03:00 +02:00 Europe/Berlin) by host-a: ok',
    )
    const [, utc] = statusLines([lease], lastRuns, NOW)
    expect(utc, 'a UTC net’s line changed').toContain('last run 2026-03-29T01:00:00.000Z by host-a: ok')
  })

  it('status marks a manual run as history does, and gives no duration to a slot not run', () => {
    const manual = { ...run('2026-03-29T01:03:12Z'), manual: true }
    const paused: RunRecord = { ...run('2026-03-29T01:00:00Z'), outcome: 'paused' }
    const [, manualLine] = statusLines([lease], new Map([['digest', manual]]), NOW)
    expect(manualLine, 'a manual run read as a scheduled slot').toContain('by host-a: ok (manual) in 2.0 s')
    const [, pausedLine] = statusLines([lease], new Map([['digest', paused]]), NOW)
    expect(pausedLine, 'a paused slot was said to take time').toMatch(/by host-a: paused$/)
  })

  it('history adds a local column named after the zone, across Berlin’s spring change', () => {
    const lines = historyLines([run('2026-03-29T01:00:00Z'), run('2026-03-28T01:30:00Z')], 'Europe/Berlin')
    expect(lines[0]).toMatch(/^slot\s+local \(Europe\/Berlin\)\s+owner/)
    expect(lines[1]).toMatch(/^2026-03-29T01:00:00\.000Z\s+2026-03-29 03:00 \+02:00\s+host-a/)
    expect(lines[2]).toMatch(/^2026-03-28T01:30:00\.000Z\s+2026-03-28 02:30 \+01:00\s+host-a/)
    expect(historyLines([run('2026-03-29T01:00:00Z')])[0], 'a UTC net’s table changed').not.toContain('local')
  })

  it('history --json carries the zone and the local slot next to the UTC one', () => {
    expect(historyJson(run('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toMatchObject({
      slot: '2026-10-25T00:30:00.000Z',
      timeZone: 'Europe/Berlin',
      slotLocal: '2026-10-25 02:30 +02:00',
    })
    expect(historyJson(run('2026-10-25T00:30:00Z'))).toMatchObject({
      timeZone: 'UTC',
      slotLocal: '2026-10-25 00:30 +00:00',
    })
  })
})
