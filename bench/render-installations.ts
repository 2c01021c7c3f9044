/**
 * The `installations` section of docs/benchmarks.md (issue 25, "Measure") and its chart
 * (docs/bench-installations.svg), from bench/results/installations.json: per cell (N installations × R
 * replicas) the holdings balance after start, a join and a SIGKILL, the takeover against TTL + retry, store
 * operations per lease per hour beside the model, the slots run once, and forge requests per installation.
 * Only reads the JSON the scenario wrote.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { barChart } from './svg-charts.js'

// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by the installations scenario
type Json = Record<string, any>

/** The bar chart renderer the caller passes in (svg-charts.ts's own signature). */
type Chart = typeof barChart

const ratio = (b: Json) => (b.maxOverMin === null ? '∞ (one holds none)' : String(b.maxOverMin))
const cellName = (c: Json) => `${c.installations} × ${c.replicas}`

/** Writes docs/bench-installations.svg and returns the markdown lines of the section. */
export async function renderInstallations(
  result: Json,
  docsDir: string,
  barChart: Chart,
  mdTable: (rows: string[][]) => string,
) {
  const cells = result.cells as Json[]
  const bars = cells.flatMap((c) => [
    { label: `${cellName(c)} measured`, value: c.window.store.perLeasePerHour.lease, color: '#2563eb' },
    { label: `${cellName(c)} model`, value: c.window.store.perLeasePerHour.leaseModel, color: '#93c5fd' },
  ])
  await writeFile(
    join(docsDir, 'bench-installations.svg'),
    barChart(
      'Lease operations per lease per hour, by N installations × R replicas',
      'lease operations / lease / hour (steady window; model leases × 3/TTL + replicas × 1/retry)',
      bars,
    ),
  )
  return [
    '## 8. Installations: N installations × R replicas with the fair share (issue 25)',
    '',
    `\`${result.command}\` (${result.durationS} s; load average ${result.machine.loadAverage.join(' / ')} at the end; ${result.machine.server.kind} ${result.machine.server.version}). One App with N installations on the sandbox forge, discovered with \`GITHUB_INSTALLATION_IDS=all\`; R built workers with \`LEASECRON_FAIR_SHARE=on\`; one per-installation net (\`bench/nets/per-installation.mjs\`: each pass one \`GET /installation/repositories\` and one line in a file). Phases per cell: ${result.inputs.phases}. Paces: ${paceText(result)}. Balance is max ÷ min leases held per live replica, read from the \`leases\` collection (goal ≤ ${result.inputs.balanceGoal}; “best” is what an integer split allows). What the matrix leaves out and why is in the closing notes (“Installations”).`,
    '',
    ...provenance(result),
    mdTable(balanceRows(cells)),
    '',
    mdTable(loadRows(cells)),
    '',
    '![lease operations per lease per hour](bench-installations.svg)',
    '',
  ]
}

/** Which cells an earlier run measured (each with its own command and commit), and which did not complete. */
function provenance(result: Json): string[] {
  const lines: string[] = []
  const kept = new Set((result.inputs.keptFromEarlierRuns ?? []) as string[])
  for (const c of result.cells as Json[]) {
    if (!kept.has(`${c.installations}x${c.replicas}`)) continue
    const { command, measuredAt, commit } = c.run
    lines.push(
      `- ${cellName(c)}: measured by an earlier run, \`${command}\` at ${measuredAt} (commit ${String(commit).slice(0, 8)}).`,
    )
  }
  for (const u of (result.inputs.unfinished ?? []) as Json[])
    lines.push(`- ${u.cell}: did not complete after ${u.afterS} s: ${u.error}`)
  return lines.length > 0 ? [...lines, ''] : []
}

function paceText(result: Json): string {
  return Object.entries(result.inputs.paces as Record<string, Json>)
    .map(([n, p]) => `N = ${n}: TTL ${p.ttlMs / 1000} s, retry ${p.retryMs} ms, schedule \`${p.schedule}\``)
    .join('; ')
}

/** Balance after each phase and the takeover, per cell. */
function balanceRows(cells: Json[]): string[][] {
  return [
    [
      'N × R',
      'balance 3 TTLs after start (best)',
      'after a join (best)',
      'after a SIGKILL (best)',
      'takeover of the killed replica’s leases / TTL + retry',
      'leases held at the end',
    ],
    ...cells.map((c) => {
      const b = c.balance
      const best = (x: Json) => `${ratio(x)} (${x.bestPossible ?? '—'}) · ${x.perReplica.join('/')}`
      return [
        cellName(c),
        best(b.start),
        best(b.join),
        best(b.kill),
        `${c.takeover.takeoverMs === null ? 'not within 3 TTLs' : `${c.takeover.takeoverMs} ms`} / ${c.takeover.boundMs} ms (${c.takeover.killedHeld} leases)`,
        `${b.kill.held} of ${c.installations}`,
      ]
    }),
  ]
}

/** Store operations per lease, forge requests per installation and the slot accounting, per cell. */
function loadRows(cells: Json[]): string[][] {
  return [
    [
      'N × R',
      'lease ops / lease / h (model)',
      'measured ÷ model',
      'announcements / h (model)',
      'ledger ops / lease / h',
      'forge requests / installation / h (window · whole cell)',
      'slots run once / expected',
      'duplicates',
      'not run (recorded · unaccounted)',
    ],
    ...cells.map((c) => {
      const s = c.window.store
      const perLease = (n: number) => String(Math.round(n / c.installations))
      return [
        cellName(c),
        `${s.perLeasePerHour.lease} (${s.perLeasePerHour.leaseModel})`,
        `${s.leaseOverModel}×`,
        `${s.perHour.replicas} (${s.model.announcementsPerHour})`,
        perLease(s.perHour.ledger),
        `${c.window.forge.perInstallationPerHour} · ${c.whole.forge.perInstallationPerHour}`,
        `${c.slots.ranOnce} / ${c.slots.expected}`,
        String(c.slots.duplicateLines),
        `${c.slots.notRun} (${c.slots.recordedNotRun} · ${c.slots.unaccounted})`,
      ]
    }),
  ]
}
