/**
 * Two parts of the page, rendered alone: the Forge panel that counted nothing although the runs it lists
 * made requests (it says how many, and why it did not count them, instead of "No forge requests"), and a
 * net's state in words (`failing ×N`, `slow`, `too fast`, `starting`).
 */
import { describe, expect, it } from 'vitest'
import { renderForge, renderState, runRequests } from '../../../src/worker/status/render-status-page.js'
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

describe('a net’s state on the page', () => {
  it('says how many slots failed in a row, and names the duration and starting states', () => {
    expect(renderState('failing', 3)).toContain('failing ×3: the newest finished slot failed')
    expect(renderState('failing', 1)).toContain('>failing: the newest finished slot failed<')
    expect(renderState('slow')).toContain('slow: its newest pass took longer than MAX_DURATION')
    expect(renderState('too-fast')).toContain('too fast: its newest pass ended sooner than MIN_DURATION')
    expect(renderState('starting')).toContain('starting: its first pass runs')
  })
})
