/**
 * The scheduler on real daylight-saving change days, driven by fake timers: the slots its passes serve are
 * exactly the DST rule's (test/schedule/dst-rule.test.ts), each claimed once in the ledger.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, MemoryRunLedger } from '../../src/index.js'
import type { RunLedger } from '../../src/runs/run-ledger.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { formatLocal } from '../../src/schedule/zoned-time.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'
import { campaignOptions } from '../support/term-specs.js'

interface Drive {
  schedule: string
  zone: string
  /** When the campaign starts (the term is elected at once). */
  from: string
  /** How long the clock is driven. */
  hours: number
  catchUp?: 'latest' | 'none'
  ledger?: RunLedger
  owner?: string
}

/** Runs one campaign from `from` for `hours` of driven time; the slots its passes served, as `UTC = local`. */
async function drive(options: Drive): Promise<string[]> {
  vi.setSystemTime(new Date(options.from))
  const { net, passes } = recordingNet({ schedule: options.schedule })
  const env = {
    LEASECRON_NET_TICK_NET_TIME_ZONE: options.zone,
    LEASECRON_NET_TICK_NET_CATCH_UP: options.catchUp ?? 'none',
  }
  const loaded = loadConfig(env, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded)}`)
  const stop = new AbortController()
  const done = runNetCampaign(
    campaignOptions(loaded.config.nets[0]!, {
      ...{ ledger: options.ledger ?? new MemoryRunLedger(), runHistory: 100_000 },
      ...{ owner: options.owner ?? 'alpha', signal: stop.signal },
    }),
  )
  for (let minute = 0; minute < options.hours * 60; minute++) await vi.advanceTimersByTimeAsync(60_000)
  stop.abort()
  await vi.advanceTimersByTimeAsync(1000)
  await done
  return passes.map(
    (p) => `${p.slot!.slice(11, 16)}Z = ${formatLocal(new Date(p.slot!), options.zone).slice(11)}`,
  )
}

function fakeTime(): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  })
}
afterEach(() => vi.useRealTimers())

describe('the scheduler on daylight-saving change days', () => {
  it('runs 30 2 * * * in Europe/Berlin once on each change day: at 03:00 in spring, at the first 02:30 in autumn', async () => {
    fakeTime()
    const spring = await drive({
      schedule: '30 2 * * *',
      zone: 'Europe/Berlin',
      from: '2026-03-28T22:00:00Z',
      hours: 6,
    })
    expect(spring, 'the spring slot inside the gap must run once, after the jump').toEqual([
      '01:00Z = 03:00 +02:00',
    ])
    const autumn = await drive({
      schedule: '30 2 * * *',
      zone: 'Europe/Berlin',
      from: '2026-10-24T22:00:00Z',
      hours: 6,
    })
    expect(autumn, 'the repeated 02:30 must run at its first occurrence only').toEqual([
      '00:30Z = 02:30 +02:00',
    ])
  })

  it('runs 30 2 * * * in America/New_York once on each change day', async () => {
    fakeTime()
    expect(
      await drive({
        schedule: '30 2 * * *',
        zone: 'America/New_York',
        from: '2026-03-08T04:00:00Z',
        hours: 6,
      }),
    ).toEqual(['07:00Z = 03:00 -04:00'])
    expect(
      await drive({
        schedule: '30 2 * * *',
        zone: 'America/New_York',
        from: '2026-11-01T04:00:00Z',
        hours: 6,
      }),
    ).toEqual(['07:30Z = 02:30 -05:00'])
  })

  it('runs 0 * * * * once per wall-clock hour across both New York changes and Lord Howe’s half-hour shifts', async () => {
    fakeTime()
    expect(
      await drive({
        schedule: '0 * * * *',
        zone: 'America/New_York',
        from: '2026-03-08T04:30:00Z',
        hours: 4.75,
      }),
    ).toEqual([
      '05:00Z = 00:00 -05:00',
      '06:00Z = 01:00 -05:00',
      '07:00Z = 03:00 -04:00',
      '08:00Z = 04:00 -04:00',
      '09:00Z = 05:00 -04:00',
    ])
    expect(
      await drive({
        schedule: '0 * * * *',
        zone: 'America/New_York',
        from: '2026-11-01T03:30:00Z',
        hours: 5.75,
      }),
    ).toEqual([
      '04:00Z = 00:00 -04:00',
      '05:00Z = 01:00 -04:00',
      '07:00Z = 02:00 -05:00',
      '08:00Z = 03:00 -05:00',
      '09:00Z = 04:00 -05:00',
    ])
    expect(
      await drive({
        schedule: '0 * * * *',
        zone: 'Australia/Lord_Howe',
        from: '2026-04-04T13:30:00Z',
        hours: 3.25,
      }),
    ).toEqual(['14:00Z = 01:00 +11:00', '15:30Z = 02:00 +10:30', '16:30Z = 03:00 +10:30'])
    expect(
      await drive({
        schedule: '0 * * * *',
        zone: 'Australia/Lord_Howe',
        from: '2026-10-03T13:15:00Z',
        hours: 3.75,
      }),
    ).toEqual([
      '13:30Z = 00:00 +10:30',
      '14:30Z = 01:00 +10:30',
      '15:30Z = 02:30 +11:00',
      '16:00Z = 03:00 +11:00',
      '17:00Z = 04:00 +11:00',
    ])
  })

  it('runs */15 * * * * every quarter hour of real time through Berlin’s repeated hour and Lord Howe’s gap', async () => {
    fakeTime()
    expect(
      await drive({
        schedule: '*/15 * * * *',
        zone: 'Europe/Berlin',
        from: '2026-10-24T23:50:00Z',
        hours: 2,
      }),
    ).toEqual([
      '00:00Z = 02:00 +02:00',
      '00:15Z = 02:15 +02:00',
      '00:30Z = 02:30 +02:00',
      '00:45Z = 02:45 +02:00',
      '01:00Z = 02:00 +01:00',
      '01:15Z = 02:15 +01:00',
      '01:30Z = 02:30 +01:00',
      '01:45Z = 02:45 +01:00',
    ])
    expect(
      await drive({
        schedule: '*/15 * * * *',
        zone: 'Europe/Berlin',
        from: '2026-03-29T00:40:00Z',
        hours: 0.75,
      }),
    ).toEqual(['00:45Z = 01:45 +01:00', '01:00Z = 03:00 +02:00', '01:15Z = 03:15 +02:00'])
    expect(
      await drive({
        schedule: '*/15 * * * *',
        zone: 'Australia/Lord_Howe',
        from: '2026-10-03T15:10:00Z',
        hours: 0.75,
      }),
    ).toEqual(['15:15Z = 01:45 +10:30', '15:30Z = 02:30 +11:00', '15:45Z = 02:45 +11:00'])
    expect(
      await drive({
        schedule: '*/15 * * * *',
        zone: 'Australia/Lord_Howe',
        from: '2026-04-04T14:25:00Z',
        hours: 0.75,
      }),
    ).toEqual(['14:30Z = 01:30 +11:00', '14:45Z = 01:45 +11:00', '15:00Z = 01:30 +10:30'])
  })

  it('runs the gap’s slot for a holder elected after the jump, and a successor in the repeated hour finds its slot taken', async () => {
    fakeTime()
    // Elected at 03:10 CEST on the spring day: its first pass is the 02:30 that became 03:00.
    expect(
      await drive({
        schedule: '30 2 * * *',
        zone: 'Europe/Berlin',
        from: '2026-03-29T01:10:00Z',
        hours: 1,
        catchUp: 'latest',
      }),
    ).toEqual(['01:00Z = 03:00 +02:00'])
    // Autumn: alpha runs the first 02:30; beta, elected at the second 02:20, catches up on the same slot
    // (refused by the ledger) and starts nothing at the second 02:30.
    const ledger = new MemoryRunLedger()
    const first = await drive({
      schedule: '30 2 * * *',
      zone: 'Europe/Berlin',
      from: '2026-10-25T00:00:00Z',
      hours: 1,
      ledger,
    })
    expect(first).toEqual(['00:30Z = 02:30 +02:00'])
    const second = await drive({
      schedule: '30 2 * * *',
      zone: 'Europe/Berlin',
      from: '2026-10-25T01:20:00Z',
      hours: 1,
      catchUp: 'latest',
      ledger,
      owner: 'beta',
    })
    expect(second, 'the repeated 02:30 must not run a second time after a takeover').toEqual([])
    const runs = await ledger.history('tick-net', 10)
    expect(runs.map((r) => [r.slot.toISOString(), r.owner])).toEqual([['2026-10-25T00:30:00.000Z', 'alpha']])
  })
})
