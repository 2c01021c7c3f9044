import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { createForgeMeter, type ForgeApi } from '../../../src/forge/meter/meter.js'
import { apiOf } from '../../../src/forge/client/transport.js'
import { captureLogs } from '../../support/log-capture.js'

function fixedClock(iso: string) {
  let now = new Date(iso).getTime()
  return {
    clock: () => new Date(now),
    set: (next: string) => {
      now = new Date(next).getTime()
    },
  }
}

const hit = (
  lane: string,
  host = 'api.github.com',
  api: ForgeApi = 'rest',
  outcome: number | 'error' = 200,
  point = false,
) => ({
  host,
  api,
  lane,
  outcome,
  point,
})

describe('forge meter: the hourly line', () => {
  it('logs the finished hour when the first request of a later hour arrives, sorted by count then key', () => {
    const t = fixedClock('2026-09-30T14:00:00Z')
    const logs = captureLogs()
    const meter = createForgeMeter({ logger: logs.logger, clock: t.clock })
    t.set('2026-09-30T14:10:00Z')
    meter.record(hit('merge-gate-sweeper', 'api.github.com', 'rest', 200, true))
    meter.record(hit('merge-gate-sweeper', 'api.github.com', 'rest', 304))
    meter.record(hit('merge-gate-sweeper', 'api.github.com', 'rest', 304))
    meter.record(hit('auth'))
    meter.record(hit('board-issue-sync', 'api.github.com', 'graphql'))
    meter.record(hit('merge-gate-sweeper', 'api.github.com', 'rest', 'error'))
    t.set('2026-09-30T14:59:59.999Z')
    meter.record(hit('board-issue-sync', 'api.github.com', 'graphql', 403))
    expect(logs.lines).toHaveLength(0)

    t.set('2026-09-30T15:00:00Z')
    meter.record(hit('merge-gate-sweeper'))
    expect(logs.lines).toHaveLength(1)
    expect(logs.lines[0]!.message).toBe(
      'forge HTTP: 7 requests (2 not modified, 1 points) in the hour ending 2026-09-30T15:00Z — api.github.com rest merge-gate-sweeper=4, ' +
        'api.github.com graphql board-issue-sync=2, api.github.com rest auth=1',
    )
    expect(logs.lines[0]!.fields).toEqual({
      event: 'forge_http_hour',
      total: 7,
      notModified: 2,
      points: 1,
      hour: '2026-09-30T15:00Z',
      entries: [
        {
          host: 'api.github.com',
          api: 'rest',
          lane: 'merge-gate-sweeper',
          count: 4,
          notModified: 2,
          points: 1,
        },
        {
          host: 'api.github.com',
          api: 'graphql',
          lane: 'board-issue-sync',
          count: 2,
          notModified: 0,
          points: 0,
        },
        { host: 'api.github.com', api: 'rest', lane: 'auth', count: 1, notModified: 0, points: 0 },
      ],
    })
  })

  it('notes a mid-hour start, names a late hour correctly, and stays silent for idle hours', () => {
    const t = fixedClock('2026-09-30T14:20:05Z')
    const logs = captureLogs()
    const meter = createForgeMeter({ logger: logs.logger, clock: t.clock })
    t.set('2026-09-30T14:30:00Z')
    meter.record(hit('a'))
    meter.record(hit('b'))
    t.set('2026-09-30T17:05:00Z')
    meter.record(hit('a'))
    expect(logs.messages()).toEqual([
      'forge HTTP: 2 requests (0 not modified, 0 points) in the hour ending 2026-09-30T15:00Z (counted from 14:20:05Z) — api.github.com rest a=1, api.github.com rest b=1',
    ])
    expect(logs.lines[0]!.fields.countedFrom).toBe('14:20:05Z')
  })

  it('flushes the hour being counted at stop with both notes, once', () => {
    const t = fixedClock('2026-09-30T14:20:05Z')
    const logs = captureLogs()
    const meter = createForgeMeter({ logger: logs.logger, clock: t.clock })
    meter.record(hit('merge-gate-sweeper'))
    t.set('2026-09-30T14:50:00Z')
    meter.flush()
    meter.flush()
    expect(logs.messages()).toEqual([
      'forge HTTP: 1 requests (0 not modified, 0 points) in the hour ending 2026-09-30T15:00Z (counted from 14:20:05Z, until 14:50:00Z, stopping) — api.github.com rest merge-gate-sweeper=1',
    ])
    expect(logs.lines[0]!.fields).toMatchObject({
      until: '14:50:00Z',
      stopping: true,
      countedFrom: '14:20:05Z',
    })
  })

  it('flushes an hour that already ended without the stopping note, and nothing when nothing was counted', () => {
    const t = fixedClock('2026-09-30T13:00:00Z')
    const logs = captureLogs()
    const idle = createForgeMeter({ logger: logs.logger, clock: t.clock })
    idle.flush()
    expect(logs.lines).toHaveLength(0)

    const meter = createForgeMeter({ logger: logs.logger, clock: t.clock })
    t.set('2026-09-30T13:30:00Z')
    meter.record(hit('a'))
    t.set('2026-09-30T15:10:00Z')
    meter.flush()
    expect(logs.messages()).toEqual([
      'forge HTTP: 1 requests (0 not modified, 0 points) in the hour ending 2026-09-30T14:00Z — api.github.com rest a=1',
    ])
  })

  it('folds hosts past the 64th of an hour into (other hosts)', () => {
    const t = fixedClock('2026-09-30T14:00:00Z')
    const logs = captureLogs()
    const meter = createForgeMeter({ logger: logs.logger, clock: t.clock })
    for (let i = 0; i < 70; i++) meter.record(hit('x', `ghe-${String(i).padStart(2, '0')}.example:443`))
    meter.record(hit('x', 'ghe-69.example:443'))
    meter.record(hit('x', 'ghe-00.example:443'))
    t.set('2026-09-30T15:00:01Z')
    meter.record(hit('x'))
    const fields = logs.lines[0]!.fields as { total: number; entries: Array<{ host: string; count: number }> }
    expect(fields.total).toBe(72)
    expect(new Set(fields.entries.map((e) => e.host)).size).toBe(65)
    expect(fields.entries[0]).toMatchObject({ host: '(other hosts)', count: 7 })
    expect(fields.entries[1]).toMatchObject({ host: 'ghe-00.example:443', count: 2 })
  })
})

describe('forge meter: Prometheus', () => {
  it('counts by host, api, lane and status class, and shares one set of metrics per registry', async () => {
    const registry = new Registry()
    const logs = captureLogs()
    const a = createForgeMeter({ logger: logs.logger, registry })
    const b = createForgeMeter({ logger: logs.logger, registry })
    a.record(hit('l', 'h:1', 'rest', 204))
    a.record(hit('l', 'h:1', 'rest', 304))
    b.record(hit('l', 'h:1', 'rest', 404))
    b.record(hit('l', 'h:1', 'rest', 503))
    b.record(hit('l', 'h:1', 'rest', 'error'))
    b.record(hit('l', 'h:1', 'rest', 200))
    const values = (await registry.getSingleMetric('forge_requests_total')!.get()).values
    const by = Object.fromEntries(values.map((v) => [v.labels.status, v.value]))
    expect(by).toEqual({ '2xx': 2, '3xx': 1, '4xx': 1, '5xx': 1, error: 1 })
  })

  it('counts 304s and points apart, by lane, without changing the request count', async () => {
    const registry = new Registry()
    const meter = createForgeMeter({ logger: captureLogs().logger, registry })
    meter.record(hit('sweep', 'h:1', 'rest', 304))
    meter.record(hit('sweep', 'h:1', 'rest', 304))
    meter.record(hit('sweep', 'h:1', 'rest', 200, true))
    meter.record(hit('board', 'h:1', 'rest', 200, true))
    meter.record(hit('auth', 'h:1', 'rest', 201))
    const value = async (name: string, lane: string) =>
      (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.lane === lane)?.value ?? 0
    expect(await value('forge_not_modified_total', 'sweep')).toBe(2)
    expect(await value('forge_points_total', 'sweep')).toBe(1)
    expect(await value('forge_points_total', 'board')).toBe(1)
    expect(await value('forge_points_total', 'auth')).toBe(0)
    const requests = (await registry.getSingleMetric('forge_requests_total')!.get()).values
    expect(requests.reduce((n, v) => n + v.value, 0)).toBe(5)
  })
})

describe('forge meter: hourly figures for the status page', () => {
  it('keeps per-lane requests, 304s and points for the last 24 hours, oldest first, and the current hour', () => {
    const t = fixedClock('2026-09-30T00:10:00Z')
    const meter = createForgeMeter({ logger: captureLogs().logger, clock: t.clock })
    for (let h = 0; h < 30; h++) {
      t.set(
        `2026-09-${h < 24 ? '30' : '31'}T${String(h % 24).padStart(2, '0')}:30:00Z`.replace('09-31', '10-01'),
      )
      meter.record(hit('sweep', 'h:1', 'rest', 304))
      meter.record(hit('sweep', 'h:1', 'rest', 200, true))
      meter.record(hit('board', 'h:1', 'rest', 200, true))
    }
    const hours = meter.hourly()
    // 23 finished hours inside the last 24 hours, plus the one being counted.
    expect(hours).toHaveLength(24)
    expect(hours[0]!.hour, 'an hour is named by its start').toBe(Date.parse('2026-09-30T06:00:00Z'))
    expect(hours.at(-1)).toEqual({
      hour: Date.parse('2026-10-01T05:00:00Z'),
      requests: 3,
      notModified: 1,
      points: 2,
      lanes: [
        { lane: 'sweep', requests: 2, notModified: 1, points: 1 },
        { lane: 'board', requests: 1, notModified: 0, points: 1 },
      ],
    })
    expect(meter.current()).toEqual(hours.at(-1))
    t.set('2026-10-01T07:00:00Z')
    expect(meter.current()).toEqual({
      hour: Date.parse('2026-10-01T07:00:00Z'),
      requests: 0,
      notModified: 0,
      points: 0,
      lanes: [],
    })
  })
})

describe('forge transport: the API of a path', () => {
  it('classifies GraphQL by path', () => {
    expect(apiOf('/graphql')).toBe('graphql')
    expect(apiOf('/api/graphql')).toBe('graphql')
    expect(apiOf('/repos/a/graphql')).toBe('rest')
  })
})
