/**
 * The shipped Grafana dashboard (deploy/grafana/leasecron.json) is what its builder makes, reads one data
 * source chosen on import, and names only metrics a worker registers. That every query answers series
 * from real workers is the Prometheus end-to-end test's part (test/e2e/prometheus-alerts-e2e.test.ts).
 */
import { readFileSync } from 'node:fs'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { dashboardText, leasecronDashboard } from '../../deploy/grafana/leasecron-dashboard.js'
import { registerForgeMetrics } from '../../src/forge/meter/meter-metrics.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import type { StatusSnapshot } from '../../src/status/status-snapshot.js'
import { registerLedgerMetrics } from '../../src/worker/ledger-metrics.js'

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, read by Grafana
const GRAFANA_DATASOURCE = '${datasource}'
const committed = readFileSync(new URL('../../deploy/grafana/leasecron.json', import.meta.url), 'utf8')
const dashboard = leasecronDashboard()
const panels = (dashboard.panels ?? []).filter((p) => p.type !== 'row')
const targets = panels.flatMap((p) =>
  ((p as { targets?: { expr?: string; datasource?: { uid?: string } }[] }).targets ?? []).map((t) => ({
    panel: p.title ?? '',
    ...t,
  })),
)

describe('the shipped Grafana dashboard', () => {
  it('is the file its builder writes (npm run dashboard)', () => {
    expect(committed, 'deploy/grafana/leasecron.json is stale: run npm run dashboard').toBe(
      dashboardText(dashboard),
    )
  })

  it('gives every panel a query on the data source chosen on import, and panels ids of their own', () => {
    expect(panels.length).toBeGreaterThanOrEqual(12)
    for (const panel of panels)
      expect(
        targets.filter((t) => t.panel === panel.title),
        `panel ${panel.title} queries nothing`,
      ).not.toEqual([])
    for (const target of targets)
      expect(target.datasource?.uid, `${target.panel} reads a fixed data source`).toBe(GRAFANA_DATASOURCE)
    const ids = (dashboard.panels ?? []).map((p) => p.id)
    expect(new Set(ids).size, 'two panels share an id').toBe(ids.length)
  })

  it('names only metrics a worker registers', async () => {
    const worker = createWorkerMetrics().registry
    const more = new Registry()
    registerForgeMetrics(more)
    // No nets: the gauges are registered (what is asked here), not filled.
    registerLedgerMetrics(more, async () => ({ nets: [] }) as unknown as StatusSnapshot)
    const exposition = `${await worker.metrics()}\n${await more.metrics()}`
    const known = new Set<string>()
    for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm))
      for (const suffix of type === 'histogram' ? ['_bucket', '_sum', '_count'] : [''])
        known.add(`${name}${suffix}`)
    const named = targets.flatMap((t) => (t.expr ?? '').match(/\b(?:leasecron|forge)_[a-z_]+/g) ?? [])
    expect(named.length).toBeGreaterThanOrEqual(12)
    expect(
      named.filter((n) => !known.has(n)),
      'the dashboard asks for metrics no worker exports',
    ).toEqual([])
  })
})
