/**
 * The `peers` section of docs/benchmarks.md and its two charts, from bench/results/peers.json: per system,
 * the slots run once, twice or more, and never (overall and in each fault window), the starts that came
 * before their slot, the delay to the handler, the SIGKILL → next run, the delay of the slot after a clean
 * stop, store operations at rest and RSS; then each system's set-up, then the
 * hand-written reading of the committed run (bench/PEERS-NOTES.md) when present. Renders; measures nothing.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { barChart } from './svg-charts.js'

// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by the peers scenario
type Json = Record<string, any>

/** The bar chart renderer the caller passes in (svg-charts.ts's own signature). */
type Chart = typeof barChart

const COLOR_OF: Record<string, string> = {
  leasecron: '#16a34a',
  'leasecron CATCH_UP=all': '#86efac',
  'node-cron': '#0891b2',
}
const counts = (c: Json | undefined) => (c ? `${c.once} / ${c.twiceOrMore} / ${c.never}` : 'not run')
const seconds = (ms: number | null) => (ms === null ? 'none' : `${(ms / 1000).toFixed(1)} s`)

function peersTable(systems: Json[], mdTable: (rows: string[][]) => string): string {
  const rows = [
    [
      'system',
      'store',
      'all slots: once / 2+ / never',
      'kill window',
      'store window',
      'partition window',
      'skew window (early starts)',
      'delay p50 / p99 (p99 at rest)',
      'SIGKILL → next run',
      'clean stop → next slot’s delay',
      'store ops/h at rest',
      'ops per slot',
      'RSS MiB (each process)',
    ],
  ]
  for (const s of systems)
    rows.push([
      `**${s.system}**`,
      s.store,
      counts(s.overall),
      counts(s.windows.kill),
      counts(s.windows.store),
      counts(s.windows.partition),
      `${counts(s.windows.skew)} (${s.startedEarly ?? '?'})`,
      s.delayMs
        ? `${seconds(s.delayMs.p50)} / ${seconds(s.delayMs.p99)}${s.delayAtRestMs ? ` (${seconds(s.delayAtRestMs.p99)})` : ''}`
        : 'none ran',
      seconds(s.killToNextRunMs),
      s.afterCleanStop ? seconds(s.afterCleanStop.delayMs) : 'not run',
      s.storeOpsAtRest.perHour.toLocaleString('en-US'),
      String(s.storeOpsAtRest.perSlot),
      s.rssMiB.join(', '),
    ])
  return mdTable(rows)
}

async function writeCharts(systems: Json[], docsDir: string, barChart: Chart): Promise<void> {
  const bar = (value: (s: Json) => number, label: (s: Json) => string = (s) => s.system) =>
    systems.map((s) => ({ label: label(s), value: value(s), color: COLOR_OF[s.system] ?? '#6b7280' }))
  const split = (s: Json) => `${s.system} (${s.overall.twiceOrMore} twice+, ${s.overall.never} never)`
  await writeFile(
    join(docsDir, 'bench-peers-ops.svg'),
    barChart(
      'Backing-store operations per hour at rest (3 processes, one job a minute)',
      'operations / hour',
      bar((s) => s.storeOpsAtRest.perHour),
    ),
  )
  await writeFile(
    join(docsDir, 'bench-peers-slots.svg'),
    barChart(
      'Slots not run exactly once (run twice or more + never)',
      'slots',
      bar((s) => s.overall.twiceOrMore + s.overall.never, split),
    ),
  )
}

/** Writes docs/bench-peers-*.svg and returns the markdown lines of the section. */
export async function renderPeers(
  peers: Json,
  docsDir: string,
  barChart: Chart,
  mdTable: (rows: string[][]) => string,
) {
  const systems: Json[] = peers.systems
  await writeCharts(systems, docsDir, barChart)
  const i = peers.inputs
  const skipped = Object.entries(peers.skipped ?? {}).map(([name, why]) => `- **${name} skipped:** ${why}`)
  const notesPath = join(docsDir, '..', 'bench', 'PEERS-NOTES.md')
  const notes = existsSync(notesPath) ? [(await readFile(notesPath, 'utf8')).trim(), ''] : []
  return [
    '## 7. Peers: BullMQ, pg-boss, graphile-worker, agenda, node-cron + leaseCoordinator, leasecron',
    '',
    `\`${peers.command}\` (scenario ${peers.durationS} s, ${new Date(peers.generatedAt).toISOString().slice(0, 16)} UTC, commit \`${String(peers.commit).slice(0, 10)}\`${peers.quick ? '; QUICK — not a real run' : ''}). Schedule ${i.schedule.replace(/^(\S+ \S+ \S+ \S+ \S+)/, '`$1`')}; ${i.processesPerSystem} processes per system on one store, ${i.plan.slots} slots. Faults: ${i.faults}. Windows: ${i.windows}. ${i.concurrency.charAt(0).toUpperCase()}${i.concurrency.slice(1)}. Slot of a handler start: ${i.slotAttribution}. Operations at rest: ${i.opsAtRest}, over ${(i.plan.restTo - i.plan.restFrom) / 60_000} min before any fault.`,
    '',
    'Slot counts are read from files each handler appended; every cell is *once / twice or more / never*.',
    '',
    peersTable(systems, mdTable),
    '',
    ...skipped,
    ...(skipped.length ? [''] : []),
    '![store operations per hour at rest](bench-peers-ops.svg)',
    '',
    '![slots not run exactly once](bench-peers-slots.svg)',
    '',
    'Set-up, each as its own documentation recommends:',
    '',
    ...systems.map(
      (s) =>
        `- **${s.version}** on ${i.stores[s.store]?.server ?? s.store} — ${s.settings}. Docs: ${s.docs}.`,
    ),
    `- Stores: ${Object.entries(i.stores)
      .map(([k, v]) => `${k}: ${(v as Json).server} (${(v as Json).settings})`)
      .join('; ')}.`,
    '',
    ...notes,
  ]
}
