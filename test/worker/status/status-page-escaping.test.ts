/**
 * The status page escapes every value it shows, whatever the store holds: a snapshot with hostile text in
 * every field (and, as a store document could carry them, text where figures belong) renders none of it
 * as markup, and a run's 8 MB error is shown capped. The page's Content-Security-Policy is a second wall;
 * these tests check the first one alone.
 */
import { describe, expect, it } from 'vitest'
import { renderStatusPage } from '../../../src/worker/status/render-status-page.js'
import { SHOWN_TEXT_CHARS } from '../../../src/status/shown-text.js'
import type { StatusSnapshot } from '../../../src/status/status-snapshot.js'
import { expectNoLiveMarkup, HOSTILE } from './fixtures/hostile.js'

const H = HOSTILE

/** Hostile text in every string field the snapshot's type allows. */
function hostileSnapshot(): StatusSnapshot {
  const hour = { hour: H, requests: 3, notModified: 1, points: 2 }
  return {
    schema: 1,
    generatedAt: H,
    replica: { owner: H, version: H, startedAt: H },
    store: { kind: 'mongo', serverVersion: H, answering: true },
    nets: [
      {
        name: H,
        leaseName: H,
        installation: 12,
        enabled: false,
        schedule: H,
        timeZone: H,
        nextFireAt: H,
        nextFireLocal: H,
        holder: { owner: H, thisReplica: false, fence: 7, expiresAt: H, expiresInMs: 1_000 },
        leaseCorrupt: H,
        runs: [
          {
            slot: H,
            slotLocal: H,
            owner: H,
            fence: 7,
            startedAt: H,
            finishedAt: null,
            durationMs: null,
            outcome: 'failed',
            attempts: 3,
            error: H,
            requests: 4,
            manual: false,
            installation: null,
          },
        ],
        lastFinishedSlot: H,
        runLagMs: 5,
        skippedTicks: { [H]: 2 },
        state: 'failing',
        paused: null,
        runRequestedAt: null,
        backfill: {
          ...{ id: H, state: 'running', requestedAt: H, by: H, reason: H, from: H, to: H },
          ...{ total: 3, done: 1, left: 2, failed: 0, counts: { ok: 1, failed: 0, taken: 0, aborted: 0 } },
          ...{ owner: H, updatedAt: H, cancelledAt: null, cancelledBy: H },
        },
      },
    ],
    installations: [
      {
        installation: 12,
        nets: [H],
        holders: [{ owner: H, leases: 1, thisReplica: false }],
        unheld: 1,
        runs: { failed: 1 },
        budget: { remaining: 40, limit: 5000, resetAt: H },
      },
    ],
    installationFilter: 12,
    forge: {
      scope: 'installation',
      hourStart: H,
      lanes: [{ lane: H, thisHour: { requests: 3, notModified: 1, points: 2 }, hours: [hour, hour] }],
      rateLimits: [{ host: H, resource: H, installation: null, limit: 5000, remaining: 4000, resetAt: H }],
    },
    admin: { enabled: true },
    notes: [H],
  }
}

describe('the status page escapes what the store holds', () => {
  it('renders hostile text in every string field as text, never as markup', () => {
    const html = renderStatusPage(hostileSnapshot())
    expectNoLiveMarkup(html)
    expect(html, 'the corrupt lease document is not named').toContain('corrupt lease document: ')
  })

  it('renders hostile text where figures and the run outcome belong as text too', () => {
    // A store document carries whatever was written into it: every number, and the outcome, made text.
    const parsed: StatusSnapshot = JSON.parse(JSON.stringify(hostileSnapshot()), (key, value) =>
      typeof value === 'number' || key === 'outcome' || key === 'state' ? H : value,
    )
    const html = renderStatusPage(parsed)
    expectNoLiveMarkup(html)
    expect(html, 'a run row takes its class from the stored outcome').toContain('<tr class="run-unknown">')
    expect(html, "the net's state is not shown as text").toContain('<dt>State</dt><dd>&lt;')
  })

  it('shows a slot skipped for overlap as skipped, in a row of its own class', () => {
    const snapshot = hostileSnapshot()
    const run = snapshot.nets[0]!.runs![0]!
    Object.assign(run, { outcome: 'skipped', attempts: 0, error: null })
    const html = renderStatusPage(snapshot)
    expect(html, 'a skipped slot is shown as an unknown outcome').toContain('<tr class="run-skipped">')
    expect(html).toContain('skipped</span>')
  })

  it('shows the first 500 characters of an 8 MB error and how many more there are', () => {
    const snapshot = hostileSnapshot()
    const run = snapshot.nets[0]!.runs![0]!
    run.error = 'x'.repeat(8_000_000)
    const html = renderStatusPage(snapshot)
    expect(html.length, 'the whole error is served on every refresh').toBeLessThan(64_000)
    expect(html).toContain(`${'x'.repeat(SHOWN_TEXT_CHARS)}…(${8_000_000 - SHOWN_TEXT_CHARS} more)`)
  })
})
