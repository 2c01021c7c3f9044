/**
 * The status snapshot and page from real sources: a MemoryStore holding leases, a MemoryRunLedger with
 * runs, forge hours — read by collectStatus and rendered by renderStatusPage.
 */
import { describe, expect, it } from 'vitest'
import { MemoryStore } from '../../src/lease/memory-store.js'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import { collectStatus, LANES_SHOWN } from '../../src/status/collect-status.js'
import { HOUR_MS, hourStart } from '../../src/forge/meter/forge-hour-store.js'
import { MemoryForgeHourStore } from '../../src/forge/meter/memory-forge-hour-store.js'
import { renderStatusPage } from '../../src/worker/status/render-status-page.js'
import type { StatusSources } from '../../src/status/status-sources.js'

const NOW = new Date('2026-12-01T10:30:00Z')
const ME = 'host-a-111111111111'
const OTHER = 'host-b-222222222222'

async function sources(overrides: Partial<StatusSources> = {}): Promise<StatusSources> {
  const store = new MemoryStore()
  await store.acquire('sweep', ME, new Date(NOW.getTime() - 1000), 30_000)
  await store.acquire('board', OTHER, new Date(NOW.getTime() - 60_000), 30_000) // expired at NOW
  const ledger = new MemoryRunLedger()
  for (let i = 0; i < 25; i++) {
    const slot = new Date(NOW.getTime() - (25 - i) * 60_000)
    await ledger.claim({ net: 'sweeper', slot, owner: ME, fence: 3, startedAt: slot })
    const failed = i === 23
    await ledger.finish('sweeper', slot, ME, 3, {
      finishedAt: new Date(slot.getTime() + 1500),
      outcome: failed ? 'failed' : 'ok',
      ...(failed ? { error: 'forge answered 502 <twice>' } : {}),
      requests: { sweeper: 4, auth: 1 },
    })
  }
  const hours = new MemoryForgeHourStore()
  const h = hourStart(NOW.getTime())
  await hours.put(ME, [
    { hour: h, lane: 'sweeper', requests: 40, notModified: 30, points: 10 },
    { hour: h - 3 * HOUR_MS, lane: 'sweeper', requests: 7, notModified: 0, points: 7 },
  ])
  await hours.put(OTHER, [{ hour: h, lane: 'sweeper', requests: 2, notModified: 1, points: 1 }])
  return {
    replica: { owner: ME, version: '9.9.9', startedAt: NOW.toISOString() },
    nets: [
      {
        name: 'sweeper',
        leaseName: 'sweep',
        enabled: true,
        schedule: '*/5 * * * *',
        timeZone: 'Europe/Berlin',
      },
      { name: 'board', leaseName: 'board', enabled: true, schedule: '0 * * * *', timeZone: 'UTC' },
    ],
    storeKind: 'memory',
    forgeScope: 'replica',
    ping: async () => true,
    serverVersion: async () => null,
    leases: () => store.list(),
    history: (net, limit) => ledger.history(net, limit),
    forgeHours: (since) => hours.read(since),
    rateLimits: async () => [
      {
        host: 'api.github.com',
        resource: 'core',
        installation: 7,
        limit: 5000,
        remaining: 4200,
        resetAt: null,
      },
    ],
    skippedTicks: async () => new Map([['sweeper', { overlap: 2 }]]),
    ...overrides,
  }
}

describe('collectStatus', () => {
  it('names this replica as the holder of its lease and nobody for an expired one', async () => {
    const snapshot = await collectStatus(await sources(), NOW)
    const [sweeper, board] = snapshot.nets
    expect(sweeper?.holder).toMatchObject({ owner: ME, thisReplica: true, expiresInMs: 29_000 })
    expect(sweeper?.holder?.fence).toBeGreaterThan(0)
    expect(board?.holder, 'an expired lease was shown as held').toBeNull()
  })

  it('lists the newest 20 runs with durations, outcomes and requests, and the lag since the last finished slot', async () => {
    const { nets } = await collectStatus(await sources(), NOW)
    const runs = nets[0]!.runs!
    expect(runs).toHaveLength(20)
    expect(runs[0]).toMatchObject({
      slot: '2026-12-01T10:29:00.000Z',
      slotLocal: '2026-12-01 11:29 +01:00',
      durationMs: 1500,
      outcome: 'ok',
      requests: 5,
    })
    expect(runs[1]).toMatchObject({ outcome: 'failed', error: 'forge answered 502 <twice>' })
    expect(nets[0]!.runLagMs).toBe(60_000)
    expect(nets[0]!.skippedTicks).toEqual({ overlap: 2 })
    expect(nets[0]!.nextFireAt).toBe('2026-12-01T10:35:00.000Z')
    expect(nets[0]!.nextFireLocal).toBe('2026-12-01 11:35 +01:00')
    expect(nets[0]!.timeZone).toBe('Europe/Berlin')
  })

  // A control store of your own need not have read its texts through control/'s checks.
  it('shows a pause’s reason and author as one plain line, bounded, on the snapshot and the page', async () => {
    const raw = {
      at: new Date(NOW.getTime() - 60_000),
      abort: false,
      reason: `\u001b[2J\u001b]52;c;ZWNobyBwd25lZA==\u0007why${'x'.repeat(10_000)}`,
      by: 'ann\u009b31m',
    }
    const controls = async () => [{ net: 'sweeper', paused: raw }]
    const snapshot = await collectStatus(await sources({ controls }), NOW)
    const paused = snapshot.nets[0]!.paused!
    expect(paused.reason?.startsWith('[2J]52;c;ZWNobyBwd25lZA==why')).toBe(true)
    expect(paused.reason?.length).toBeLessThanOrEqual(500)
    expect(paused.by).toBe('ann31m')
    const page = renderStatusPage(snapshot)
    for (const control of ['\u001b', '\u0007', '\u009b'])
      expect(page, `${JSON.stringify(control)} reached the page`).not.toContain(control)
  })

  it('shows a backfill request’s progress as done / left / failed on the snapshot and the page', async () => {
    const backfill = {
      ...{ id: 'b#1', at: new Date(NOW.getTime() - 60_000), by: 'ann', owner: 'host-a' },
      ...{ from: new Date('2026-09-01T00:00:00Z'), to: new Date('2026-09-02T00:00:00Z') },
      ...{ total: 12, done: 5, counts: { ok: 3, failed: 1, taken: 1, aborted: 0 } },
    }
    const controls = async () => [{ net: 'sweeper', backfill }]
    const snapshot = await collectStatus(await sources({ controls }), NOW)
    expect(snapshot.nets[0]!.backfill).toMatchObject({
      ...{ id: 'b#1', state: 'running', by: 'ann', owner: 'host-a', total: 12, done: 5, left: 7, failed: 1 },
      ...{ from: '2026-09-01T00:00:00.000Z', cancelledAt: null },
    })
    expect(renderStatusPage(snapshot)).toContain(
      '<dt>Backfill</dt><dd>running: 5 of 12 done, 7 left, 1 failed, on host-a (requested by ann for 2026-09-01T00:00:00.000Z to 2026-09-02T00:00:00.000Z)</dd>',
    )
    const admin = { ...snapshot, admin: { enabled: true } }
    expect(renderStatusPage(admin), 'a running backfill had no cancel button').toContain(
      '<button type="button" data-action="cancel-backfill">Cancel backfill</button>',
    )
    const cancelled = { ...backfill, cancelled: { at: NOW, by: 'bob' } }
    const after = await collectStatus(
      await sources({ controls: async () => [{ net: 'sweeper', backfill: cancelled }] }),
      NOW,
    )
    expect(after.nets[0]!.backfill).toMatchObject({ state: 'cancelled', left: 0, cancelledBy: 'bob' })
    expect(renderStatusPage({ ...after, admin: { enabled: true } })).not.toContain(
      'data-action="cancel-backfill"',
    )
  })

  it('gives each net its state from its runs and schedule, and none without a ledger', async () => {
    const { nets } = await collectStatus(await sources(), NOW)
    expect(nets.map((n) => [n.name, n.state])).toEqual([
      ['sweeper', 'ok'], // its newest finished run succeeded, well within two intervals
      ['board', 'late'], // hourly, and no success recorded at all
    ])
    const blind = await collectStatus(await sources({ history: undefined }), NOW)
    expect(
      blind.nets.map((n) => n.state),
      'a state guessed without runs',
    ).toEqual([null, null])
  })

  it('draws 24 hours per lane, summing every owner, with this hour’s requests, 304s and points', async () => {
    const { forge } = await collectStatus(await sources(), NOW)
    const lane = forge.lanes.find((l) => l.lane === 'sweeper')!
    expect(lane.hours).toHaveLength(24)
    expect(lane.thisHour).toEqual({ requests: 42, notModified: 31, points: 11 })
    expect(lane.hours[20]).toMatchObject({ requests: 7, points: 7 })
  })

  it('lists at most LANES_SHOWN lanes, the busiest, and says how many there were', async () => {
    const h = hourStart(NOW.getTime())
    const rows = Array.from({ length: LANES_SHOWN + 100 }, (_, i) => ({
      hour: h,
      lane: `lane-${String(i).padStart(4, '0')}`,
      requests: i,
      notModified: 0,
      points: 0,
    }))
    // A row of the hour ahead (a clock running early) adds no lane.
    rows.push({ hour: h + HOUR_MS, lane: 'ahead', requests: 1_000_000, notModified: 0, points: 0 })
    const { forge, notes } = await collectStatus(await sources({ forgeHours: async () => rows }), NOW)
    expect(forge.lanes, 'a lane past the bound was listed').toHaveLength(LANES_SHOWN)
    expect(forge.lanes[0]?.lane, 'a quieter lane was kept over a busier one').toBe('lane-0100')
    expect(
      forge.lanes.some((l) => l.lane === 'ahead'),
      'a lane seen only ahead was listed',
    ).toBe(false)
    expect(notes.join('\n')).toContain(`${LANES_SHOWN + 100} lanes`)
  })

  it('turns a failing source into null and a note instead of failing the snapshot', async () => {
    const snapshot = await collectStatus(
      await sources({
        ping: async () => false,
        leases: async () => {
          throw new Error('store unreachable')
        },
        history: undefined,
      }),
      NOW,
    )
    expect(snapshot.store.answering).toBe(false)
    expect(snapshot.nets[0]?.holder).toBeNull()
    expect(snapshot.nets[0]?.runs).toBeNull()
    expect(snapshot.nets[0]?.state).toBeNull()
    expect(snapshot.notes.join('\n')).toMatch(/store unreachable[\s\S]*no run ledger/)
  })
})

describe('renderStatusPage', () => {
  it('marks failed runs, escapes what it shows, names the schedule’s zone and stays under 100 KB', async () => {
    const html = renderStatusPage(await collectStatus(await sources(), NOW))
    expect(html).toContain('<tr class="run-failed">')
    expect(html).toContain('✗ failed')
    expect(html).toContain('forge answered 502 &lt;twice&gt;')
    expect(html).not.toContain('<twice>')
    expect(html, 'the next fire in the net’s zone with its offset, then in UTC').toContain(
      '2026-12-01 11:35 +01:00 (2026-12-01 10:35:00 UTC)',
    )
    expect(html, 'the runs of a Berlin net in Berlin time').toContain(
      'runs <span class="muted">(Europe/Berlin)</span>',
    )
    expect(html).toContain('<svg class="chart"')
    expect(Buffer.byteLength(html), 'the page grew past 100 KB').toBeLessThan(100_000)
    expect(html, 'the page loads something from elsewhere').not.toMatch(/(src|href)="(https?:)?\/\//)
  })
})
