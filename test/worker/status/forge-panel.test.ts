/**
 * The page's Forge panel when it counted nothing although the runs it lists made requests: it says how
 * many, and why this panel did not count them (render-status-page.ts), instead of "No forge requests".
 */
import { describe, expect, it } from 'vitest'
import { renderForge, runRequests } from '../../../src/worker/status/render-status-page.js'
import type { ForgeStatus, NetStatus, RunStatus } from '../../../src/status/status-snapshot.js'

const forge = (scope: ForgeStatus['scope']): ForgeStatus => ({
  scope,
  hourStart: '2026-12-06T07:00:00.000Z',
  lanes: [],
  rateLimits: [],
})

describe('the Forge panel with no lanes', () => {
  it('says there were no requests when the runs listed made none either', () => {
    expect(renderForge(forge('replica'), 0)).toContain('No forge requests in the last 24 hours.')
  })

  it('names the requests the listed runs made elsewhere, and why this replica did not count them', () => {
    const html = renderForge(forge('replica'), 4)
    expect(html, 'the panel denied requests the runs above show').not.toContain('No forge requests in the')
    expect(html).toContain('the runs listed above made 4 requests')
    expect(html).toContain('this panel counts this replica’s own requests only')
  })

  it('on Mongo, says a once or a backfill made them', () => {
    const html = renderForge(forge('installation'), 1)
    expect(html).toContain('the runs listed above made 1 request:')
    expect(html).toContain('<code>once</code> or <code>backfill</code>')
  })
})

describe('the requests of the runs the page lists', () => {
  const run = (startedAt: string, requests: number | null) => ({ startedAt, requests }) as RunStatus
  it('adds those of the runs that started within 24 hours, over every net', () => {
    const nets = [
      {
        runs: [
          run('2026-12-06T07:00:00Z', 4),
          run('2026-12-05T07:59:59Z', 100),
          run('2026-12-06T06:00:00Z', null),
        ],
      },
      { runs: [run('2026-12-05T08:00:00Z', 2)] },
      { runs: null },
    ] as NetStatus[]
    expect(runRequests({ generatedAt: '2026-12-06T08:00:00.000Z', nets })).toBe(6)
  })
})
