/**
 * netState: a net's verdict from its ledger runs and its schedule, counted in the schedule's own slots in
 * the net's zone — runs written through a real MemoryRunLedger and read back as a worker reads them.
 */
import { describe, expect, it } from 'vitest'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import type { RunOutcome } from '../../src/runs/run-ledger.js'
import { netState, type StateRun } from '../../src/status/net-state.js'

const HOURLY = { schedule: '0 * * * *', timeZone: 'UTC' }
const NOW = new Date('2026-06-10T12:20:00Z') // newest hourly slot due: 12:00

/** The newest runs of a net after recording `outcomes` (undefined: claimed, still running) at `slots`. */
async function ledgerRuns(runs: [string, RunOutcome | undefined][]): Promise<StateRun[]> {
  const ledger = new MemoryRunLedger()
  for (const [iso, outcome] of runs) {
    const slot = new Date(iso)
    await ledger.claim({ net: 'n', slot, owner: 'o', fence: 1, startedAt: slot })
    if (outcome) await ledger.finish('n', slot, 'o', 1, { finishedAt: slot, outcome })
  }
  return ledger.history('n', 20)
}

describe('netState', () => {
  it('is ok when the newest due slot succeeded', async () => {
    expect(netState(await ledgerRuns([['2026-06-10T12:00:00Z', 'ok']]), HOURLY, NOW)).toBe('ok')
  })

  it('is failing when the newest finished slot failed or timed out, whatever succeeded before', async () => {
    const failed = await ledgerRuns([
      ['2026-06-10T11:00:00Z', 'ok'],
      ['2026-06-10T12:00:00Z', 'failed'],
    ])
    expect(netState(failed, HOURLY, NOW), 'a failed slot shows as ok').toBe('failing')
    const timedOut = await ledgerRuns([['2026-06-10T12:00:00Z', 'timed-out']])
    expect(netState(timedOut, HOURLY, NOW), 'a timed-out slot shows as ok').toBe('failing')
  })

  it('passes over aborted and running slots: they say nothing of the net itself', async () => {
    const runs = await ledgerRuns([
      ['2026-06-10T10:00:00Z', 'failed'],
      ['2026-06-10T11:00:00Z', 'aborted'],
      ['2026-06-10T12:00:00Z', undefined],
    ])
    expect(netState(runs, HOURLY, NOW)).toBe('failing')
    const recovered = await ledgerRuns([
      ['2026-06-10T11:00:00Z', 'ok'],
      ['2026-06-10T12:00:00Z', 'aborted'],
    ])
    expect(netState(recovered, HOURLY, NOW)).toBe('ok')
  })

  it('is missed when the newest slot with a verdict was recorded missed (catch-up’s outcome)', () => {
    const runs: StateRun[] = [
      { slot: new Date('2026-06-10T11:00:00Z'), outcome: 'ok' },
      { slot: new Date('2026-06-10T12:00:00Z'), outcome: 'missed' },
    ]
    expect(netState(runs, HOURLY, NOW)).toBe('missed')
  })

  it('is late only when no success came within two schedule intervals of the newest due slot', async () => {
    // Due at 12:00; a success for 10:00 (two intervals before) still counts, one for 09:00 does not.
    expect(netState(await ledgerRuns([['2026-06-10T10:00:00Z', 'ok']]), HOURLY, NOW)).toBe('ok')
    expect(netState(await ledgerRuns([['2026-06-10T09:00:00Z', 'ok']]), HOURLY, NOW)).toBe('late')
    expect(netState([], HOURLY, NOW), 'a net with no success at all shows as not late').toBe('late')
  })

  it('is starting, not late, while a pass runs for a slot within the window and nothing succeeded in it', async () => {
    const first = await ledgerRuns([['2026-06-10T12:00:00Z', undefined]])
    expect(netState(first, HOURLY, NOW), 'a new holder’s first pass showed the net late').toBe('starting')
    // After a hand-over: the killed holder's slot aborted, the successor catching up on the one before it.
    const handedOver = await ledgerRuns([
      ['2026-06-10T08:00:00Z', 'ok'],
      ['2026-06-10T10:00:00Z', undefined],
      ['2026-06-10T12:00:00Z', 'aborted'],
    ])
    expect(netState(handedOver, HOURLY, NOW)).toBe('starting')
    // A pass stuck since a slot older than the window does not keep the net out of `late`.
    const stuck = await ledgerRuns([['2026-06-10T09:00:00Z', undefined]])
    expect(netState(stuck, HOURLY, NOW), 'a pass running since before the window hid a late net').toBe('late')
    // A success within the window is `ok`, whatever runs.
    const both = await ledgerRuns([
      ['2026-06-10T11:00:00Z', 'ok'],
      ['2026-06-10T12:00:00Z', undefined],
    ])
    expect(netState(both, HOURLY, NOW)).toBe('ok')
  })

  it('is slow when the newest pass took longer than MAX_DURATION, or runs past it now', () => {
    const bounded = { ...HOURLY, minDurationMs: 60_000, maxDurationMs: 600_000 }
    const took = (minutes: number, outcome = 'ok'): StateRun => ({
      slot: new Date('2026-06-10T12:00:00Z'),
      outcome,
      startedAt: new Date('2026-06-10T12:00:00Z'),
      finishedAt: new Date(Date.parse('2026-06-10T12:00:00Z') + minutes * 60_000),
    })
    expect(netState([took(11)], bounded, NOW), 'an 11-minute pass under a 10-minute bound').toBe('slow')
    expect(netState([took(10)], bounded, NOW), 'a pass of exactly MAX_DURATION is within it').toBe('ok')
    expect(netState([took(11)], HOURLY, NOW), 'no bound set, no verdict on duration').toBe('ok')
    const hung: StateRun = {
      slot: new Date('2026-06-10T12:00:00Z'),
      startedAt: new Date('2026-06-10T12:05:00Z'),
    }
    expect(netState([hung], bounded, NOW), 'a pass running 15 minutes past a 10-minute bound').toBe('slow')
    const young: StateRun = { ...hung, startedAt: new Date('2026-06-10T12:15:00Z') }
    expect(netState([young, took(5)], bounded, NOW)).toBe('ok')
    expect(netState([took(11, 'failed')], bounded, NOW), 'a failure is failing first').toBe('failing')
  })

  it('is too-fast when the newest success took less than MIN_DURATION', () => {
    const bounded = { ...HOURLY, minDurationMs: 60_000 }
    const run = (ms: number): StateRun => ({
      slot: new Date('2026-06-10T12:00:00Z'),
      outcome: 'ok',
      startedAt: new Date('2026-06-10T12:00:00Z'),
      finishedAt: new Date(Date.parse('2026-06-10T12:00:00Z') + ms),
    })
    expect(netState([run(59_999)], bounded, NOW), 'a success in under a minute').toBe('too-fast')
    expect(netState([run(60_000)], bounded, NOW)).toBe('ok')
  })

  it('counts intervals in the schedule’s own slots and zone: a weekday net is not late over a weekend', async () => {
    const weekdays = { schedule: '0 9 * * 1-5', timeZone: 'Europe/Berlin' }
    const monday = new Date('2026-06-15T07:30:00Z') // 09:30 in Berlin: Monday's slot (07:00Z) is due
    // Due: Monday; before it Friday, then Thursday — Thursday's success is within two intervals.
    const thursday = await ledgerRuns([['2026-06-11T07:00:00Z', 'ok']])
    expect(netState(thursday, weekdays, monday), 'a weekend counted as slots').toBe('ok')
    const wednesday = await ledgerRuns([['2026-06-10T07:00:00Z', 'ok']])
    expect(netState(wednesday, weekdays, monday)).toBe('late')
    // Read in UTC, Monday's 09:00 is not due yet at 07:30Z: the slots back are Friday, Thursday, Wednesday.
    const inUtc = { schedule: '0 9 * * 1-5', timeZone: 'UTC' }
    expect(netState(await ledgerRuns([['2026-06-10T09:00:00Z', 'ok']]), inUtc, monday)).toBe('ok')
  })
})
