/**
 * The heading above a net's runs on the status page counts them in words a person reads: "Last run" for one,
 * "Last 3 runs" for three — never "Last 1 runs".
 */
import { describe, expect, it } from 'vitest'
import { renderRuns } from '../../../src/worker/status/render-status-page.js'
import type { RunStatus } from '../../../src/status/status-snapshot.js'

function run(slot: string): RunStatus {
  return {
    slot,
    slotLocal: slot,
    owner: 'worker-1-0123456789ab',
    fence: 1,
    startedAt: slot,
    finishedAt: slot,
    durationMs: 120,
    outcome: 'ok',
    attempts: 1,
    error: null,
    requests: 2,
    manual: false,
    installation: null,
  }
}

describe('the runs heading on the status page', () => {
  it('says "Last run" above a single run', () => {
    const html = renderRuns([run('2026-09-30T15:00:00.000Z')], '2026-09-30T15:01:00.000Z')
    expect(html, 'one run is announced as a plural').toContain('<h3>Last run <span')
    expect(html).not.toContain('Last 1 runs')
  })

  it('counts several runs in the heading', () => {
    const runs = ['15:00', '15:01', '15:02'].map((t) => run(`2026-09-30T${t}:00.000Z`))
    expect(renderRuns(runs, '2026-09-30T15:03:00.000Z')).toContain('<h3>Last 3 runs <span')
  })
})
