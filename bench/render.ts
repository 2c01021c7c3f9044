/**
 * Renders `docs/benchmarks.md` and its charts (`docs/bench-*.svg`) from whatever `bench/results/*.json`
 * hold: one section per scenario result present, each a renderer that writes its chart and returns its
 * markdown (prose, then its table), composed in a fixed order by `renderDocs`. The charts are drawn by
 * bench/svg-charts.ts. Runnable alone (`node --import tsx bench/render.ts`, or `npm run bench -- render`) to
 * re-render committed results. Not a measurement: it only reads the JSON the scenarios wrote.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderBudget } from './render-budget.js'
import { renderInstallations } from './render-installations.js'
import { renderPeers } from './render-peers.js'
import { renderPeersThousand } from './render-peers-thousand.js'
import { renderStandInLoad } from './render-stand-in-load.js'
import { renderStandInPool } from './render-stand-in-pool.js'
import { replicaCells } from './scenarios/replicas.js'
import { repoRoot, resultsDir } from './support.js'
import { barChart, COLORS, lineChart, stripChart } from './svg-charts.js'

const docsDir = join(repoRoot, 'docs')
// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by this suite's scenarios
type Json = any

/** A section of the docs: writes its chart (if any) and returns its markdown lines. */
type Section = (result: Json) => Promise<string[]>

/** The scenario sections in page order, each rendered only when its result file exists. */
const SECTIONS: Array<[result: string, render: Section]> = [
  ['replicas', replicasSection],
  ['takeover', takeoverSection],
  ['store-load', storeLoadSection],
  ['footprint', footprintSection],
  ['agenda', agendaSection],
  ['budget', (budget) => renderBudget(budget, docsDir, barChart, mdTable)],
  ['peers', (peers) => renderPeers(peers, docsDir, barChart, mdTable)],
  ['peers-thousand', async (result) => renderPeersThousand(result, mdTable)],
  ['installations', (result) => renderInstallations(result, docsDir, barChart, mdTable)],
  ['stand-in-load', async (result) => renderStandInLoad(result, mdTable)],
  ['stand-in-pool', async (result) => renderStandInPool(result, mdTable)],
]

/** Writes the charts and docs/benchmarks.md; returns the markdown's path. */
export async function renderDocs(): Promise<string> {
  const results = new Map<string, Json>()
  for (const name of [...SECTIONS.map(([n]) => n), 'suite']) results.set(name, await load(name))
  const md = [...introduction(), ...machineLine(results)]
  for (const [name, section] of SECTIONS) {
    const result = results.get(name)
    if (result) md.push(...(await section(result)))
  }
  const notes = join(repoRoot, 'bench', 'NOTES.md')
  if (existsSync(notes)) md.push((await readFile(notes, 'utf8')).trim(), '')
  const path = join(docsDir, 'benchmarks.md')
  await writeFile(path, md.join('\n'))
  return path
}

async function load(name: string): Promise<Json | undefined> {
  const path = join(resultsDir, `${name}.json`)
  if (!existsSync(path)) return undefined
  return JSON.parse(await readFile(path, 'utf8'))
}

function mdTable(rows: string[][]): string {
  const [head, ...rest] = rows
  return [
    `| ${head!.join(' | ')} |`,
    `| ${head!.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rest.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')
}

function introduction(): string[] {
  return [
    '# Benchmarks',
    '',
    'Measured by `npm run bench` (`bench/run.ts`; one scenario alone: `npm run bench -- replicas`). Every',
    'scenario runs real worker processes from the built `dist/`, a real MongoDB-wire server (the tests’',
    'selection: `MONGO_URL`, else mongodb-memory-server, else FerretDB) and the sandbox forge in its own',
    'process, all on loopback. Time is compressed by configuration — schedules of one or two seconds, TTLs of',
    'a few seconds — never by faking clocks. The raw numbers, inputs and machine are in `bench/results/*.json`;',
    'these tables and charts are rendered from them by `bench/render.ts`. Benchmarks are scripts, not tests:',
    'nothing here gates CI.',
    '',
    '`npm run bench` takes about 17 minutes on a 2-core machine: forge requests per hour by replica count',
    '(elected and unelected), takeover times after SIGTERM and SIGKILL, Mongo operations per lease-hour, an idle',
    'worker’s footprint, and agenda side by side. Not part of the default run: `npm run bench -- peers` (about',
    '22 minutes) puts leasecron next to BullMQ, pg-boss, graphile-worker, agenda and node-cron’s distributed',
    'mode on one minute schedule, three processes each, through a SIGKILL, a crash of each backing store (it',
    'starts its own Redis, PostgreSQL and FerretDB), a 30 s partition of one process from its store, a clean',
    'stop and +5 s of clock skew (§7); `npm run bench -- peers-thousand` (about 45 minutes) runs N = 1,000',
    'every-minute jobs per system, one system at a time, with leasecron’s store operations printed beside their',
    'model; `npm run bench -- installations` (about 3 minutes for its default N = 10 cells;',
    '`LEASECRON_BENCH_CELLS=100x3,1000x10` asks for more, ~7 and ~13 minutes a cell) runs one App’s N',
    'installations on R workers with the fair share (§8); `npm run bench -- stand-in-pool` (a few minutes)',
    'measures what stalls FerretDB’s PostgreSQL pool. `npm run bench -- render` re-renders this page from',
    '`bench/results/` without running anything.',
    '',
  ]
}

/** The machine of the first scenario result present (budget aside), and the full suite's duration. */
function machineLine(results: Map<string, Json>): string[] {
  const scenarios = ['replicas', 'takeover', 'store-load', 'footprint', 'agenda']
  const any = scenarios.map((name) => results.get(name)).find(Boolean)
  if (!any) return []
  const m = any.machine
  const suite = results.get('suite')
  const md = [
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}; Mongo: ${m.server.description.replace(/ at .*/, '')}.`,
  ]
  if (suite)
    md.push(
      `Full suite: ${suite.totalS} s (${(suite.totalS / 60).toFixed(1)} min), commit \`${String(suite.commit).slice(0, 10)}\`.`,
    )
  md.push('')
  return md
}

/** §1: forge requests per hour by replica count, elected and unelected. */
async function replicasSection(replicas: Json): Promise<string[]> {
  await writeFile(join(docsDir, 'bench-replicas.svg'), replicasChart(replicas))
  const t = replicas.target
  return [
    '## 1. Replicas: forge cost flat in the replica count',
    '',
    `N workers run the merge-gate sweeper (every second; TTL 3 s, retry 1 s) and the board issue sync (every 5 s) over the same seeded data (${replicas.inputs.seededData.gatingRuns}; sandbox ${JSON.stringify(replicas.inputs.seededData.sandbox)}) for a ${replicas.inputs.windowMs / 1000} s window each — ${replicas.inputs.windowAlignment}. Requests are the sandbox’s own count, charged to nets by route; token mints (auth) are shown apart. **Elected** is \`leasecron run\`; **unelected** is the same nets on the same worker with its lease store, run ledger and controls in memory per replica (\`bench/unelected-worker.mjs\`), every replica running every pass.`,
    '',
    replicasTable(replicas),
    '',
    `Target: elected ratio ≤ 1.05 at N = 10 — measured **${Number(t.measured).toFixed(3)}×** (${t.met ? 'met' : 'missed'}).`,
    '',
    '![forge requests per hour by replica count](bench-replicas.svg)',
    '',
  ]
}

function replicasChart(replicas: Json): string {
  const total = (w: Json) => w.requestsPerHour['merge-gate-sweeper'] + w.requestsPerHour['board-issue-sync']
  return lineChart(
    'Forge requests per hour, both nets, by replica count',
    'replicas (N)',
    'requests / hour',
    replicas.byN.map((r: Json) => r.n),
    [
      {
        label: 'unelected',
        values: replicas.byN.map((r: Json) => total(r.unelected)),
        color: COLORS[1]!,
        dashed: true,
      },
      {
        label: 'elected (leasecron)',
        values: replicas.byN.map((r: Json) => total(r.elected)),
        color: COLORS[0]!,
      },
    ],
  )
}

function replicasTable(replicas: Json): string {
  const rows = [
    [
      'N',
      'mode',
      'sweeper req/h',
      'board sync req/h',
      'auth req/h',
      'passes in window (sweep / board)',
      'ratio to N = 1',
    ],
  ]
  for (const cells of replicaCells(replicas.byN)) rows.push([...cells.slice(0, -1), `**${cells.at(-1)}**`])
  return mdTable(rows)
}

/** §2: signal to the next pass on another process, by kind of stop. */
async function takeoverSection(takeover: Json): Promise<string[]> {
  await writeFile(join(docsDir, 'bench-takeover.svg'), takeoverChart(takeover))
  const inputs = takeover.inputs
  return [
    '## 2. Takeover',
    '',
    `${inputs.workers} workers run the sweeper (TTL ${inputs.ttlMs} ms, retry ${inputs.retryMs} ms ${inputs.retryJitter}, one tick = ${inputs.tickMs} ms). ${inputs.trialsPerKind} trials of each kind, alternating; the holder gets the signal ${inputs.phase}; measured ${inputs.measured}.${inputs.midPassTrials ? ` Then ${inputs.midPassTrials} directed trials: ${inputs.midPass}.` : ''}`,
    '',
    takeoverTable(takeover.summary),
    '',
    'Dots are trials, the black tick the median, the dashed red line the bound with jitter.',
    '',
    '![takeover trials](bench-takeover.svg)',
    '',
  ]
}

function takeoverChart(takeover: Json): string {
  const s = takeover.summary
  const trials = (kind: string) =>
    takeover.trials.filter((t: Json) => t.kind === kind).map((t: Json) => t.takeoverMs)
  return stripChart('Takeover: signal to the next pass on another process', 'milliseconds', [
    {
      label: 'SIGTERM (clean)',
      values: trials('clean'),
      bound: s.clean.bound.withJitterMs,
      color: COLORS[0]!,
    },
    {
      label: 'SIGKILL (crash)',
      values: trials('crash'),
      bound: s.crash.bound.withJitterMs,
      color: COLORS[1]!,
    },
    ...(s['clean-mid-pass']?.takeover.n
      ? [
          {
            label: 'SIGTERM mid-pass',
            values: trials('clean-mid-pass'),
            bound: s['clean-mid-pass'].bound.withJitterMs,
            color: COLORS[3]!,
          },
        ]
      : []),
  ])
}

const TAKEOVER_LABELS: Record<string, string> = {
  clean: 'SIGTERM, random phase',
  crash: 'SIGKILL, random phase',
  'clean-mid-pass': 'SIGTERM 30 ms into a pass',
}

function takeoverTable(summary: Json): string {
  const rows = [
    [
      'stop',
      'trials',
      'min',
      'median',
      'p95',
      'max',
      'bound (nominal / with jitter)',
      'over bound (nominal / with jitter)',
      'holder hit its shutdown timeout',
    ],
  ]
  for (const [kind, label] of Object.entries(TAKEOVER_LABELS)) {
    const k = summary[kind]
    if (!k || k.takeover.n === 0) continue
    rows.push([
      label,
      String(k.takeover.n),
      `${k.takeover.minMs} ms`,
      `${k.takeover.medianMs} ms`,
      `${k.takeover.p95Ms} ms`,
      `${k.takeover.maxMs} ms`,
      `${k.bound.nominalMs} / ${k.bound.withJitterMs} ms`,
      `${k.overNominal} / ${k.overWithJitter}`,
      kind === 'crash' ? '–' : String(k.shutdownTimedOut ?? '–'),
    ])
  }
  return mdTable(rows)
}

/** §3: Mongo operations per hour of 10 workers × 10 nets, next to the model. */
async function storeLoadSection(store: Json): Promise<string[]> {
  await writeFile(join(docsDir, 'bench-store-load.svg'), storeLoadChart(store))
  return [
    '## 3. Store load',
    '',
    `${store.inputs.workers} workers × ${store.inputs.netsPerWorker} nets (${store.inputs.schedule}; TTL ${store.inputs.ttlMs} ms, retry ${store.inputs.retryMs} ms) for ${store.windowMs / 1000} s, counted at \`bench/mongo-op-counter.ts\`, a TCP proxy that cuts the client→server stream into wire-protocol messages by their header and names each OP_MSG by its command and collection. ${storeLoadModelText(store)}`,
    '',
    storeLoadTable(store),
    '',
    '![store load](bench-store-load.svg)',
    '',
  ]
}

/** The model sentence: issue 25's vacancy-read model beside the polling one, or the polling model alone. */
function storeLoadModelText(store: Json): string {
  const polling = '`holders × 3/TTL + candidates × (1/retry + 1/TTL)`'
  const counts = `${store.model.holders} holders and ${store.model.candidates} candidates`
  if (store.model.pollingModelPerHour === undefined)
    return `Model: ${polling} (renewals, acquire attempts, the waiting candidates' reads) with ${counts}.`
  return (
    `Model: \`${store.model.formula}\` with ${counts}: each replica reads the vacant leases once a retry ` +
    `instead of polling every lease it does not hold (the polling model, ${polling}, would be ` +
    `${store.model.pollingModelPerHour} per hour).`
  )
}

function storeLoadChart(store: Json): string {
  return barChart(
    'Mongo operations per hour: 10 workers × 10 nets (TTL 3 s, retry 1 s)',
    'operations / hour',
    [
      { label: 'lease ops, measured', value: store.perHour.lease, color: COLORS[0] },
      { label: 'model, nominal retry', value: store.model.nominalPerHour, color: '#93c5fd' },
      { label: 'model, mean retry jitter', value: store.model.withMeanJitterPerHour, color: '#93c5fd' },
      { label: 'driver monitoring', value: store.perHour.monitoring, color: '#9ca3af' },
      { label: 'session housekeeping', value: store.perHour.session, color: '#9ca3af' },
      { label: 'other data commands', value: store.perHour.data, color: '#9ca3af' },
    ],
  )
}

function storeLoadTable(store: Json): string {
  const rows = [['operations', 'per hour']]
  rows.push(['lease operations, measured', `**${store.perHour.lease}**`])
  for (const [k, v] of Object.entries(store.leaseByCommandPerHour)) rows.push([`  \`${k}\``, String(v)])
  rows.push(['model, nominal retry', String(store.model.nominalPerHour)])
  rows.push(['model, mean retry jitter (+10%)', String(store.model.withMeanJitterPerHour)])
  if (store.model.pollingModelPerHour !== undefined)
    rows.push([
      'model before issue 25 (every candidate polls every lease)',
      String(store.model.pollingModelPerHour),
    ])
  if (store.replicaOpsPerHour !== undefined)
    rows.push([
      'fair-share announcements (`replicas`), measured / model',
      `${store.replicaOpsPerHour} / ${store.model.replicaModelPerHour}`,
    ])
  rows.push([
    'measured ÷ model (nominal / jitter)',
    `${Number(store.model.leaseOverNominal).toFixed(2)}× / ${Number(store.model.leaseOverJitterModel).toFixed(2)}×`,
  ])
  rows.push(['driver monitoring (hello, handshakes, pings)', String(store.perHour.monitoring)])
  rows.push(['session housekeeping', String(store.perHour.session)])
  rows.push(['other data commands', String(store.perHour.data)])
  rows.push(['all OP_MSG', String(store.perHour.all)])
  rows.push([
    'at the shipped pace (TTL 180 s, retry 60 s): model / measured lease ops scaled',
    `${store.atProductionPace.modelNominalPerHour} / ${store.atProductionPace.measuredLeaseScaledPerHour}`,
  ])
  return mdTable(rows)
}

/** §4: cold start, idle memory and CPU of a worker next to bare Node. */
async function footprintSection(footprint: Json): Promise<string[]> {
  await writeFile(join(docsDir, 'bench-footprint.svg'), footprintChart(footprint))
  return [
    '## 4. Footprint',
    '',
    `One worker with ten do-nothing nets on Mongo; the worker is ${footprint.inputs.worker ?? '`node dist/src/worker/main.js`'}. Cold start: ${footprint.inputs.coldStart} (${footprint.inputs.coldStarts} trials, medians). Idle: ${footprint.inputs.idle}, over ${footprint.idle.windowS} s.`,
    '',
    `Load average when it ran: ${footprint.machine.loadAverage.join(' / ')} (1 / 5 / 15 min). Read the ratios on a quiet machine: under load \`node -e 0\` slows more than the worker does, which flatters them.`,
    '',
    `On ${footprint.machine.node}, the Node running the bench:`,
    '',
    footprintTable(footprint),
    '',
    ...node24Lines(footprint),
    '![footprint](bench-footprint.svg)',
    '',
    ...installLines(footprint),
  ]
}

/** The same figures on the image's Node 24, in the same sitting, when the result records them. */
function node24Lines(footprint: Json): string[] {
  const n = footprint.node24
  if (!n) return []
  const image = n.idle.workerShippedPaceImage
  return [
    `On ${n.node}, the Node the image ships (cold starts trial by trial with the above, idle in the same minute):`,
    '',
    footprintTable({ coldStart: n.coldStart, idle: n.idle }),
    ...(image
      ? [
          '',
          `With the image's \`NODE_OPTIONS=${n.imageNodeOptions}\`${n.imageNodeFlags?.length ? ` and \`node ${n.imageNodeFlags.join(' ')}\`` : ''} (Dockerfile), shipped pace: RSS ${image.rssMiB.mean} MiB (max ${image.rssMiB.max}), ${image.rssOverNode}× bare Node 24; CPU ${image.cpuPercentOfOneCore}% of a core.`,
        ]
      : []),
    '',
  ]
}

/** The consumer install (`npm install <tarball>` in an empty project), when the result records it. */
function installLines(footprint: Json): string[] {
  const install = footprint.consumerInstall
  if (!install) return []
  return [
    `What a consumer installs: ${footprint.inputs.consumerInstall}.`,
    '',
    mdTable([
      ['packages', 'MB', 'seconds', 'EBADENGINE', 'npm warnings', 'node / npm'],
      [
        `${install.packages} (${install.packageNames.join(', ')})`,
        String(install.megabytes),
        String(install.seconds),
        install.engineWarnings.join(', ') || 'none',
        String(install.warnings.length),
        `${install.node} / ${install.npm}`,
      ],
    ]),
    '',
  ]
}

function footprintChart(footprint: Json): string {
  const c = footprint.coldStart
  const i = footprint.idle
  return barChart(
    'Footprint: an idle worker with 10 nets next to bare Node',
    'milliseconds (cold start) · MiB (RSS)',
    [
      { label: 'node -e 0: spawn → exit (ms)', value: c.nodeE0.medianMs, color: '#9ca3af' },
      { label: 'worker: spawn → first acquire (ms)', value: c.firstAcquire.medianMs, color: COLORS[0] },
      { label: 'worker: spawn → /readyz 200 (ms)', value: c.ready.medianMs, color: COLORS[0] },
      { label: 'idle node: RSS (MiB)', value: i.nodeIdle.rssMiB.mean, color: '#9ca3af' },
      { label: 'worker, 1 min pace: RSS (MiB)', value: i.workerShippedPace.rssMiB.mean, color: COLORS[2] },
      { label: 'worker, 1 s pace: RSS (MiB)', value: i.workerCompressedPace.rssMiB.mean, color: COLORS[2] },
    ],
  )
}

function footprintTable(footprint: Json): string {
  const c = footprint.coldStart
  const i = footprint.idle
  const node = `${i.nodeIdle.rssMiB.mean} MiB`
  const rss = (pace: Json) => `${pace.rssMiB.mean} MiB (max ${pace.rssMiB.max})`
  return mdTable([
    ['measure', 'leasecron', 'bare node', 'ratio'],
    [
      'cold start → first acquire sent (median)',
      `${c.firstAcquire.medianMs} ms`,
      `${c.nodeE0.medianMs} ms (\`node -e 0\`)`,
      `${c.firstAcquireOverNode}×`,
    ],
    [
      'cold start → /readyz 200 (median)',
      `${c.ready.medianMs} ms`,
      `${c.nodeE0.medianMs} ms`,
      `${c.readyOverNode}×`,
    ],
    ...(c.once
      ? [
          [
            '`leasecron once`, a pass that does nothing: spawn → exit (median)',
            `${c.once.medianMs} ms`,
            `${c.nodeE0.medianMs} ms`,
            `${c.onceOverNode}×`,
          ],
        ]
      : []),
    ...(c.serverless
      ? [
          [
            '`leasecron/serverless`, a cold function instance: spawn → first invocation answered (median; in-process: import at ' +
              `${c.serverlessImport.medianMs} ms, answer at ${c.serverlessFirstInvocation.medianMs} ms)`,
            `${c.serverless.medianMs} ms`,
            `${c.nodeE0.medianMs} ms`,
            `${c.serverlessOverNode}×`,
          ],
        ]
      : []),
    [
      'RSS, shipped pace (every minute)',
      rss(i.workerShippedPace),
      node,
      `${i.workerShippedPace.rssOverNode}×`,
    ],
    [
      'RSS, compressed pace (every second)',
      rss(i.workerCompressedPace),
      node,
      `${i.workerCompressedPace.rssOverNode}×`,
    ],
    [
      'CPU, shipped pace',
      `${i.workerShippedPace.cpuPercentOfOneCore}% of a core`,
      `${i.nodeIdle.cpuPercentOfOneCore}%`,
      '',
    ],
    [
      'CPU, compressed pace',
      `${i.workerCompressedPace.cpuPercentOfOneCore}% of a core`,
      `${i.nodeIdle.cpuPercentOfOneCore}%`,
      '',
    ],
  ])
}

/** §5: agenda and leasecron on one database: executions per tick, Mongo operations, kill recovery. */
async function agendaSection(agenda: Json): Promise<string[]> {
  const a = agenda.agenda
  const l = agenda.leasecron
  await writeFile(
    join(docsDir, 'bench-agenda.svg'),
    barChart(
      'agenda vs leasecron: 10 workers, one job every 2 s',
      'Mongo operations / hour (work, monitoring excluded)',
      [
        { label: 'agenda 6', value: a.opsPerHour.work, color: COLORS[4] },
        { label: 'leasecron', value: l.opsPerHour.work, color: COLORS[0] },
      ],
    ),
  )
  const inputs = agenda.inputs
  const md = [
    '## 5. agenda',
    '',
    `${inputs.workers} processes of each on one database, one job ${inputs.compression}. agenda: ${inputs.agenda.schedule}, processEvery ${inputs.agenda.processEveryMs} ms, lock lifetime ${inputs.agenda.lockLifetimeMs} ms (${inputs.agenda.lockLifetimeNote}). leasecron: \`${inputs.leasecron.schedule}\`, TTL ${inputs.leasecron.ttlMs} ms, retry ${inputs.leasecron.retryMs} ms. Window ${inputs.windowMs / 1000} s; then ${inputs.killTrials} trials: ${inputs.kill}.`,
    '',
    agendaTable(a, l),
    '',
  ]
  if (inputs.killLockHolder) md.push(`Lock-holder trials: ${inputs.killLockHolder}`, '')
  md.push(
    `Busiest commands per hour — agenda: ${busiestCommands(a)}; leasecron: ${busiestCommands(l)}.`,
    '',
    '![agenda vs leasecron](bench-agenda.svg)',
    '',
  )
  return md
}

function agendaTable(a: Json, l: Json): string {
  const rows = [['', 'agenda 6', 'leasecron']]
  rows.push(['executions per tick', String(a.executionsPerTick), String(l.executionsPerTick)])
  rows.push(['most executions on one tick', String(a.maxPerTick), String(l.maxPerTick)])
  rows.push([
    'processes that ran it in the window',
    String(a.executingProcesses),
    String(l.executingProcesses),
  ])
  rows.push(['Mongo ops/hour, work', `**${a.opsPerHour.work}**`, `**${l.opsPerHour.work}**`])
  rows.push([
    'Mongo ops/hour, driver monitoring',
    String(a.opsPerHour.monitoring),
    String(l.opsPerHour.monitoring),
  ])
  const takeover = (k: Json) => `${k.minMs} / ${k.medianMs} / ${k.maxMs} ms`
  rows.push(['SIGKILL → next run: min / median / max', takeover(a.kill.takeover), takeover(l.kill.takeover)])
  if (a.killLockHolder) {
    const k = a.killLockHolder.takeover
    rows.push([
      'SIGKILL of the process holding the job’s lock → next run: min / median / max',
      `${takeover(k)} (${k.n} trials)`,
      'the holder is the latest executor: the row above',
    ])
  }
  return mdTable(rows)
}

/** The six commands sent most per hour, busiest first. */
function busiestCommands(side: Json): string {
  return Object.entries(side.byCommandPerHour as Record<string, number>)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 6)
    .map(([k, v]) => `\`${k}\` ${v}`)
    .join(', ')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await renderDocs())
