/**
 * What `backfill` accepts before anything opens (backfill-plan.ts): the range read strictly, its slots in
 * the net's zone, and each refusal naming what was wrong and what is expected.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
import type { NetConfig } from '../../src/config/worker-config.js'
import { type BackfillRequest, planBackfill } from '../../src/term/backfill-plan.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const NOW = new Date('2026-12-01T12:00:00Z')

function net(schedule: string, timeZone = 'UTC'): NetConfig {
  const env = { LEASECRON_NET_TICK_NET_SCHEDULE: schedule, LEASECRON_NET_TICK_NET_TIME_ZONE: timeZone }
  const loaded = loadConfig(env, [recordingNet().net], TEST_LEASES, { needsForge: false })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return loaded.config.nets[0]!
}

function plan(overrides: Partial<BackfillRequest>) {
  return planBackfill({
    net: net('0 * * * *'),
    from: '2026-11-30T00:00:00Z',
    to: '2026-11-30T02:00:00Z',
    now: NOW,
    dryRun: false,
    yes: false,
    runHistory: 1000,
    ...overrides,
  })
}

function problem(overrides: Partial<BackfillRequest>): string {
  const result = plan(overrides)
  expect(result.ok, 'a request that should be refused was accepted').toBe(false)
  return result.ok ? '' : result.problem
}

describe('a backfill’s plan', () => {
  it('lists the slots of the range in the net’s zone, both ends included', () => {
    const berlin = net('30 2 * * *', 'Europe/Berlin')
    const result = plan({ net: berlin, from: '2026-03-28T01:30:00Z', to: '2026-03-30T00:30:00+00:00' })
    expect(result.ok && result.slots.map((s) => s.toISOString())).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ])
  })

  it('accepts a range without slots: there is nothing to run', () => {
    expect(plan({ from: '2026-11-30T00:00:01Z', to: '2026-11-30T00:59:59Z' })).toMatchObject({
      ok: true,
      slots: [],
    })
  })

  it('requires --from and --to, each an instant with a zone that exists', () => {
    expect(problem({ from: undefined })).toMatch(
      /^--from is required: the first instant of the range, an ISO 8601 instant with a time zone/,
    )
    expect(problem({ to: undefined })).toMatch(/^--to is required: the last instant of the range/)
    expect(problem({ from: 'yesterday' })).toBe(
      '--from: expected an ISO 8601 instant with a time zone (e.g. 2026-09-30T15:05:00Z); got "yesterday"',
    )
    expect(problem({ to: '2026-11-30T02:00:00' })).toMatch(
      /^--to: expected an ISO 8601 instant with a time zone/,
    )
    expect(problem({ from: '2026-02-30T00:00:00Z' })).toMatch(
      /not a real instant: day 30 \(2026-02 has 28 days\)/,
    )
  })

  it('refuses a range whose --from is after its --to', () => {
    expect(problem({ from: '2026-11-30T03:00:00Z' })).toBe(
      '--from 2026-11-30T03:00:00.000Z is after --to 2026-11-30T02:00:00.000Z: expected --from at or before --to',
    )
  })

  it('refuses a --to in the future, saying slots not yet due cannot be backfilled, but lists them in a dry run', () => {
    const future = { to: '2026-12-01T13:00:00Z' }
    expect(problem(future)).toMatch(
      /^--to 2026-12-01T13:00:00.000Z is in the future \(now is 2026-12-01T12:00:00.000Z\): slots not yet due cannot be backfilled/,
    )
    const dry = plan({ ...future, dryRun: true })
    expect(dry.ok && dry.slots).toHaveLength(38)
  })

  it('asks for --yes above 100 slots, and takes them with it', () => {
    const range = { from: '2026-11-25T00:00:00Z', to: '2026-11-29T04:00:00Z' } // 101 hourly slots
    expect(problem(range)).toBe(
      'the range holds 101 slots, more than 100: add --yes to run them all (--dry-run lists them)',
    )
    const confirmed = plan({ ...range, yes: true })
    expect(confirmed.ok && confirmed.slots).toHaveLength(101)
    expect(
      plan({ from: '2026-11-25T00:00:00Z', to: '2026-11-29T03:00:00Z' }).ok,
      '100 slots need no --yes',
    ).toBe(true)
  })

  it('refuses more slots than the ledger keeps, since running the command again would run the pruned ones twice', () => {
    expect(problem({ runHistory: 2 })).toMatch(
      /^the range holds 3 slots, more than the 2 runs the ledger keeps per net \(LEASECRON_RUN_HISTORY\)/,
    )
  })

  it('refuses a range of more than 10000 slots, dry run or not, asking to split it', () => {
    const everySecond = net('* * * * * *')
    expect(problem({ net: everySecond, to: '2026-11-30T03:00:00Z', dryRun: true, yes: true })).toBe(
      'the range holds more than 10000 slots of "* * * * * *" (UTC): split it into smaller ranges',
    )
  })
})
