/**
 * The Grafana dashboard leasecron ships (deploy/grafana/leasecron.json), built with Grafana's own
 * Foundation SDK so that its shape is the one Grafana's schema defines, not one written by hand.
 * `npm run dashboard` writes the JSON; test/deploy/grafana-dashboard.test.ts holds the committed file to
 * this builder, and the real-Prometheus end-to-end test (test/e2e/prometheus-alerts-e2e.test.ts) runs
 * every panel's query against two scraped workers, so a renamed metric or label breaks the build.
 *
 * What it is not: an alerting source. The alerts are deploy/prometheus/rules.yaml's; the dashboard shows
 * what they watch (net states, last success, failures in a row) beside the holders, the forge budget and
 * the store.
 */
import type * as cog from '@grafana/grafana-foundation-sdk/cog'
import {
  type Dashboard,
  DashboardBuilder,
  DatasourceVariableBuilder,
  type Panel,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
} from '@grafana/grafana-foundation-sdk/dashboard'
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus'
import { PanelBuilder as StatPanel } from '@grafana/grafana-foundation-sdk/stat'
import { PanelBuilder as TablePanel } from '@grafana/grafana-foundation-sdk/table'
import { PanelBuilder as TimeseriesPanel } from '@grafana/grafana-foundation-sdk/timeseries'

/** A panel builder of any kind, with the id the dashboard gives it. */
type PanelOf = cog.Builder<Panel> & { id(id: number): cog.Builder<Panel> }

/** The data source every panel reads: the dashboard's `datasource` variable, chosen on import. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, read by Grafana, not JavaScript
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' }
/** The nets the net panels show: the `net` variable (all of them by default). */
const NET = 'net=~"$net"'

/** A Prometheus query on the dashboard's data source; `instant` for tables of the current values. */
function query(expr: string, legend: string, instant = false): DataqueryBuilder {
  const built = new DataqueryBuilder().refId('A').datasource(DATASOURCE).expr(expr).legendFormat(legend)
  return instant ? built.instant() : built.range()
}

/** A table of the series an instant query answers (one row per series, its labels as columns). */
function table(title: string, description: string, expr: string) {
  return new TablePanel()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .withTarget(query(expr, '', true).format(PromQueryFormat.Table))
    .height(8)
    .span(12)
}

/** A graph over the dashboard's range. */
function graph(title: string, description: string, expr: string, legend: string, unit: string) {
  return new TimeseriesPanel()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .withTarget(query(expr, legend))
    .unit(unit)
    .height(8)
    .span(12)
}

/** One number per series, now. */
function stat(title: string, description: string, expr: string, legend: string, unit: string) {
  return new StatPanel()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .withTarget(query(expr, legend, true))
    .unit(unit)
    .height(8)
    .span(12)
}

function netPanels() {
  return [
    table(
      'Net state',
      'Each net’s state from its ledger: ok, starting, late, slow, too-fast, failing, missed, paused.',
      `max by (net, state) (leasecron_net_state{${NET}}) == 1`,
    ),
    stat(
      'Since the last success',
      'How long ago each net’s newest successful pass finished (read from the ledger).',
      `time() - max by (net) (leasecron_net_last_success_timestamp_seconds{${NET}})`,
      '{{net}}',
      's',
    ),
    graph(
      'Slots by outcome (newest 20)',
      'Outcomes among each net’s newest 20 slots in the ledger: the same on every replica.',
      `max by (net, outcome) (leasecron_slots_total{${NET}})`,
      '{{net}} {{outcome}}',
      'none',
    ),
    stat(
      'Failures in a row',
      'Slots that failed or timed out one after another, newest first; 0 after a success.',
      `max by (net) (leasecron_net_failures_in_row{${NET}})`,
      '{{net}}',
      'none',
    ),
    graph(
      'Pass duration, p95',
      'The 95th percentile of pass durations on the replica that ran them.',
      `histogram_quantile(0.95, sum by (net, le) (rate(leasecron_pass_duration_seconds_bucket{${NET}}[$__rate_interval])))`,
      '{{net}}',
      's',
    ),
    graph(
      'Pass attempts by outcome',
      'Attempts per interval: ok, failed, timed-out, aborted.',
      `sum by (net, outcome) (increase(leasecron_pass_attempts_total{${NET}}[$__rate_interval]))`,
      '{{net}} {{outcome}}',
      'none',
    ),
  ]
}

function leasePanels() {
  return [
    table(
      'Holder per lease',
      'The replica (owner) serving a term of each lease now.',
      'max by (lease, owner) (leasecron_lease_held) == 1',
    ),
    graph(
      'Terms started (takeovers)',
      'Terms begun per lease and interval: more than the replicas’ starts means holders changed.',
      'sum by (lease) (increase(leasecron_terms_started_total[$__rate_interval]))',
      '{{lease}}',
      'none',
    ),
  ]
}

function forgeAndStorePanels() {
  return [
    graph(
      'Forge points per hour, by lane',
      'Requests that spent a point of the installation’s REST budget, at an hourly pace.',
      'sum by (lane) (rate(forge_points_total[$__rate_interval])) * 3600',
      '{{lane}}',
      'none',
    ),
    graph(
      'Forge budget left',
      'The last x-ratelimit-remaining each installation’s answers carried.',
      'min by (installation, resource) (forge_ratelimit_remaining)',
      '{{installation}} {{resource}}',
      'none',
    ),
    stat(
      'Store up',
      '1 while the lease store answers each replica’s readiness probe.',
      'min by (instance) (leasecron_store_up)',
      '{{instance}}',
      'none',
    ),
    graph(
      'Clock offset from the store',
      'Each replica’s wall clock minus the Mongo server’s; beyond a net’s ttl/6 it stops campaigning.',
      'max by (instance) (leasecron_clock_offset_seconds)',
      '{{instance}}',
      's',
    ),
  ]
}

/** The dashboard as Grafana's JSON model. */
export function leasecronDashboard(): Dashboard {
  const builder = new DashboardBuilder('leasecron')
    .uid('leasecron')
    .description('leasecron nets, leases, forge budget and store, from the workers’ /metrics')
    .tags(['leasecron'])
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .withVariable(new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'))
    .withVariable(
      new QueryVariableBuilder('net')
        .label('Net')
        .datasource(DATASOURCE)
        .query('label_values(leasecron_net_state, net)')
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .multi(true)
        .includeAll(true)
        .allValue('.+'),
    )
  const rows: [string, PanelOf[]][] = [
    ['Nets', netPanels()],
    ['Leases', leasePanels()],
    ['Forge and store', forgeAndStorePanels()],
  ]
  // Ids of our own: Grafana keys a panel's links and state by its id, and the SDK leaves them unset.
  let id = 0
  for (const [title, panels] of rows) {
    builder.withRow(new RowBuilder(title).id(++id))
    for (const panel of panels) builder.withPanel(panel.id(++id))
  }
  return builder.build()
}

/** The committed file's text for `dashboard`: two-space JSON and a final newline. */
export function dashboardText(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`
}
