/**
 * Renders `docs/benchmarks.md` and its charts (`docs/bench-*.svg`) from whatever `bench/results/*.json`
 * hold. The SVG is written by hand here — plain rects, lines, circles and text — with no chart library, no
 * browser and no network. Runnable alone (`node --import tsx bench/render.ts`) to re-render committed
 * results. Not a measurement: it only reads the JSON the scenarios wrote.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderBudget } from './render-budget.js'
import { repoRoot, resultsDir } from './support.js'

const docsDir = join(repoRoot, 'docs')
// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by this suite's scenarios
type Json = any

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2']
const FONT = 'font-family="Helvetica, Arial, sans-serif"'

function niceMax(value: number): number {
  if (!(value > 0)) return 1
  const magnitude = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude
  return 10 * magnitude
}

function fmt(value: number): string {
  if (Math.abs(value) >= 1e6) return `${sigText(value / 1e6)}M`
  if (Math.abs(value) >= 1e4) return `${sigText(value / 1e3)}k`
  return sigText(value)
}
function sigText(v: number): string {
  return String(Number(v.toPrecision(3)))
}

function svg(width: number, height: number, title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n')
}

/** Horizontal bars, one per entry, with the value printed at the end. */
export function barChart(
  title: string,
  unit: string,
  bars: Array<{ label: string; value: number; color?: string }>,
) {
  const width = 720
  const left = 260
  const right = 90
  const barH = 22
  const gap = 10
  const top = 40
  const height = top + bars.length * (barH + gap) + 40
  const max = niceMax(Math.max(...bars.map((b) => b.value)))
  const x = (v: number) => left + (v / max) * (width - left - right)
  const body: string[] = []
  for (let t = 0; t <= 4; t++) {
    const v = (max / 4) * t
    body.push(
      `<line x1="${x(v)}" y1="${top - 4}" x2="${x(v)}" y2="${height - 30}" stroke="#e5e7eb"/>`,
      `<text x="${x(v)}" y="${height - 16}" text-anchor="middle" fill="#6b7280">${fmt(v)}</text>`,
    )
  }
  body.push(
    `<text x="${(left + width - right) / 2}" y="${height - 2}" text-anchor="middle" fill="#374151">${esc(unit)}</text>`,
  )
  bars.forEach((b, i) => {
    const y = top + i * (barH + gap)
    body.push(
      `<text x="${left - 8}" y="${y + barH / 2 + 4}" text-anchor="end">${esc(b.label)}</text>`,
      `<rect x="${left}" y="${y}" width="${Math.max(1, x(b.value) - left)}" height="${barH}" fill="${b.color ?? COLORS[0]}"/>`,
      `<text x="${x(b.value) + 6}" y="${y + barH / 2 + 4}">${fmt(b.value)}</text>`,
    )
  })
  return svg(width, height, title, body)
}

/** Lines over a numeric x axis, one per series, with a legend. */
export function lineChart(
  title: string,
  xLabel: string,
  yLabel: string,
  xs: number[],
  series: Array<{ label: string; values: number[]; color: string; dashed?: boolean }>,
) {
  const width = 720
  const height = 380
  const left = 80
  const right = 170
  const top = 40
  const bottom = 50
  const maxY = niceMax(Math.max(...series.flatMap((s) => s.values)))
  const maxX = Math.max(...xs)
  const x = (v: number) => left + (v / maxX) * (width - left - right)
  const y = (v: number) => height - bottom - (v / maxY) * (height - top - bottom)
  const body: string[] = []
  for (let t = 0; t <= 5; t++) {
    const v = (maxY / 5) * t
    body.push(
      `<line x1="${left}" y1="${y(v)}" x2="${width - right}" y2="${y(v)}" stroke="#e5e7eb"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#6b7280">${fmt(v)}</text>`,
    )
  }
  for (const v of xs) {
    body.push(`<text x="${x(v)}" y="${height - bottom + 18}" text-anchor="middle" fill="#6b7280">${v}</text>`)
  }
  body.push(
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#374151"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#374151"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="18" y="${(top + height - bottom) / 2}" text-anchor="middle" transform="rotate(-90 18 ${(top + height - bottom) / 2})">${esc(yLabel)}</text>`,
  )
  series.forEach((s, i) => {
    const points = s.values.map((v, j) => `${x(xs[j]!)},${y(v)}`).join(' ')
    body.push(
      `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      ...s.values.map((v, j) => `<circle cx="${x(xs[j]!)}" cy="${y(v)}" r="4" fill="${s.color}"/>`),
      `<line x1="${width - right + 14}" y1="${top + 10 + i * 20}" x2="${width - right + 38}" y2="${top + 10 + i * 20}" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${width - right + 44}" y="${top + 14 + i * 20}">${esc(s.label)}</text>`,
    )
  })
  return svg(width, height, title, body)
}

/** Each trial a dot on its row, with the row's bound as a red tick and the median as a black one. */
export function stripChart(
  title: string,
  unit: string,
  rows: Array<{ label: string; values: number[]; bound?: number; color: string }>,
) {
  const width = 720
  const left = 170
  const right = 40
  const rowH = 56
  const top = 44
  const height = top + rows.length * rowH + 44
  const max = niceMax(Math.max(...rows.flatMap((r) => [...r.values, r.bound ?? 0])) * 1.05)
  const x = (v: number) => left + (v / max) * (width - left - right)
  const body: string[] = []
  for (let t = 0; t <= 5; t++) {
    const v = (max / 5) * t
    body.push(
      `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${height - 34}" stroke="#e5e7eb"/>`,
      `<text x="${x(v)}" y="${height - 20}" text-anchor="middle" fill="#6b7280">${fmt(v)}</text>`,
    )
  }
  body.push(
    `<text x="${(left + width - right) / 2}" y="${height - 4}" text-anchor="middle">${esc(unit)}</text>`,
  )
  rows.forEach((r, i) => {
    const cy = top + i * rowH + rowH / 2
    body.push(`<text x="${left - 10}" y="${cy + 4}" text-anchor="end">${esc(r.label)}</text>`)
    const sorted = [...r.values].sort((a, b) => a - b)
    sorted.forEach((v, j) => {
      const jitter = ((j % 5) - 2) * 4
      body.push(`<circle cx="${x(v)}" cy="${cy + jitter}" r="4" fill="${r.color}" fill-opacity="0.7"/>`)
    })
    if (sorted.length) {
      const median = sorted[Math.ceil(sorted.length / 2) - 1]!
      body.push(
        `<line x1="${x(median)}" y1="${cy - 16}" x2="${x(median)}" y2="${cy + 16}" stroke="#111827" stroke-width="2"/>`,
      )
    }
    if (r.bound !== undefined) {
      body.push(
        `<line x1="${x(r.bound)}" y1="${cy - 20}" x2="${x(r.bound)}" y2="${cy + 20}" stroke="#dc2626" stroke-width="2" stroke-dasharray="4 3"/>`,
        `<text x="${x(r.bound) + 4}" y="${cy - 12}" fill="#dc2626" font-size="11">bound ${fmt(r.bound)}</text>`,
      )
    }
  })
  return svg(width, height, title, body)
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

/** Writes the charts and docs/benchmarks.md; returns the markdown's path. */
export async function renderDocs(): Promise<string> {
  const replicas = await load('replicas')
  const takeover = await load('takeover')
  const store = await load('store-load')
  const footprint = await load('footprint')
  const agenda = await load('agenda')
  const suite = await load('suite')
  const md: string[] = ['# Benchmarks', '']
  md.push(
    'Measured by `npm run bench` (`bench/run.ts`; one scenario alone: `npm run bench -- replicas`). Every',
    'scenario runs real worker processes from the built `dist/`, a real MongoDB-wire server (the tests’',
    'selection: `MONGO_URL`, else mongodb-memory-server, else FerretDB) and the sandbox forge in its own',
    'process, all on loopback. Time is compressed by configuration — schedules of one or two seconds, TTLs of',
    'a few seconds — never by faking clocks. The raw numbers, inputs and machine are in `bench/results/*.json`;',
    'these tables and charts are rendered from them by `bench/render.ts`. Benchmarks are scripts, not tests:',
    'nothing here gates CI.',
    '',
  )
  const any = replicas ?? takeover ?? store ?? footprint ?? agenda
  if (any) {
    const m = any.machine
    md.push(
      `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}; Mongo: ${m.server.description.replace(/ at .*/, '')}.`,
    )
    if (suite)
      md.push(
        `Full suite: ${suite.totalS} s (${(suite.totalS / 60).toFixed(1)} min), commit \`${String(suite.commit).slice(0, 10)}\`.`,
      )
    md.push('')
  }

  if (replicas) {
    const xs = replicas.byN.map((r: Json) => r.n)
    const total = (w: Json) => w.requestsPerHour['merge-gate-sweeper'] + w.requestsPerHour['board-issue-sync']
    await writeFile(
      join(docsDir, 'bench-replicas.svg'),
      lineChart(
        'Forge requests per hour, both nets, by replica count',
        'replicas (N)',
        'requests / hour',
        xs,
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
      ),
    )
    const t = replicas.target
    md.push(
      '## 1. Replicas: forge cost flat in the replica count',
      '',
      `N workers run the merge-gate sweeper (every second; TTL 3 s, retry 1 s) and the board issue sync (every 5 s) over the same seeded data (${replicas.inputs.seededData.gatingRuns}; sandbox ${JSON.stringify(replicas.inputs.seededData.sandbox)}) for a ${replicas.inputs.windowMs / 1000} s window each — ${replicas.inputs.windowAlignment}. Requests are the sandbox’s own count, charged to nets by route; token mints (auth) are shown apart. **Elected** is \`leasecron run\`; **unelected** is the same nets through \`createWorker({ unelected: true })\`, every replica running every pass.`,
      '',
    )
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
    for (const r of replicas.byN) {
      for (const w of [r.elected, r.unelected]) {
        rows.push([
          String(r.n),
          w.mode,
          String(w.requestsPerHour['merge-gate-sweeper']),
          String(w.requestsPerHour['board-issue-sync']),
          String(w.requestsPerHour.auth),
          `${w.passesStarted['merge-gate-sweeper']} / ${w.passesStarted['board-issue-sync']}`,
          `**${(w.mode === 'elected' ? r.electedRatio : r.unelectedRatio).toFixed(3)}×**`,
        ])
      }
    }
    md.push(mdTable(rows), '')
    md.push(
      `Target: elected ratio ≤ 1.05 at N = 10 — measured **${Number(t.measured).toFixed(3)}×** (${t.met ? 'met' : 'missed'}).`,
      '',
      '![forge requests per hour by replica count](bench-replicas.svg)',
      '',
    )
  }

  if (takeover) {
    const s = takeover.summary
    await writeFile(
      join(docsDir, 'bench-takeover.svg'),
      stripChart('Takeover: signal to the next pass on another process', 'milliseconds', [
        {
          label: 'SIGTERM (clean)',
          values: takeover.trials.filter((t: Json) => t.kind === 'clean').map((t: Json) => t.takeoverMs),
          bound: s.clean.bound.withJitterMs,
          color: COLORS[0]!,
        },
        {
          label: 'SIGKILL (crash)',
          values: takeover.trials.filter((t: Json) => t.kind === 'crash').map((t: Json) => t.takeoverMs),
          bound: s.crash.bound.withJitterMs,
          color: COLORS[1]!,
        },
        ...(s['clean-mid-pass']?.takeover.n
          ? [
              {
                label: 'SIGTERM mid-pass',
                values: takeover.trials
                  .filter((t: Json) => t.kind === 'clean-mid-pass')
                  .map((t: Json) => t.takeoverMs),
                bound: s['clean-mid-pass'].bound.withJitterMs,
                color: COLORS[3]!,
              },
            ]
          : []),
      ]),
    )
    md.push(
      '## 2. Takeover',
      '',
      `${takeover.inputs.workers} workers run the sweeper (TTL ${takeover.inputs.ttlMs} ms, retry ${takeover.inputs.retryMs} ms ${takeover.inputs.retryJitter}, one tick = ${takeover.inputs.tickMs} ms). ${takeover.inputs.trialsPerKind} trials of each kind, alternating; the holder gets the signal ${takeover.inputs.phase}; measured ${takeover.inputs.measured}.${takeover.inputs.midPassTrials ? ` Then ${takeover.inputs.midPassTrials} directed trials: ${takeover.inputs.midPass}.` : ''}`,
      '',
    )
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
    const labels: Record<string, string> = {
      clean: 'SIGTERM, random phase',
      crash: 'SIGKILL, random phase',
      'clean-mid-pass': 'SIGTERM 30 ms into a pass',
    }
    for (const kind of Object.keys(labels)) {
      const k = s[kind]
      if (!k || k.takeover.n === 0) continue
      rows.push([
        labels[kind]!,
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
    md.push(
      mdTable(rows),
      '',
      'Dots are trials, the black tick the median, the dashed red line the bound with jitter.',
      '',
      '![takeover trials](bench-takeover.svg)',
      '',
    )
  }

  if (store) {
    await writeFile(
      join(docsDir, 'bench-store-load.svg'),
      barChart('Mongo operations per hour: 10 workers × 10 nets (TTL 3 s, retry 1 s)', 'operations / hour', [
        { label: 'lease ops, measured', value: store.perHour.lease, color: COLORS[0] },
        { label: 'model, nominal retry', value: store.model.nominalPerHour, color: '#93c5fd' },
        { label: 'model, mean retry jitter', value: store.model.withMeanJitterPerHour, color: '#93c5fd' },
        { label: 'driver monitoring', value: store.perHour.monitoring, color: '#9ca3af' },
        { label: 'session housekeeping', value: store.perHour.session, color: '#9ca3af' },
        { label: 'other data commands', value: store.perHour.data, color: '#9ca3af' },
      ]),
    )
    md.push(
      '## 3. Store load',
      '',
      `${store.inputs.workers} workers × ${store.inputs.netsPerWorker} nets (${store.inputs.schedule}; TTL ${store.inputs.ttlMs} ms, retry ${store.inputs.retryMs} ms) for ${store.windowMs / 1000} s, counted at \`bench/mongo-op-counter.ts\`, a TCP proxy that cuts the client→server stream into wire-protocol messages by their header and names each OP_MSG by its command and collection. Model: \`holders × 3/TTL + candidates × 1/retry\` with ${store.model.holders} holders and ${store.model.candidates} candidates.`,
      '',
    )
    const rows = [['operations', 'per hour']]
    rows.push(['lease operations, measured', `**${store.perHour.lease}**`])
    for (const [k, v] of Object.entries(store.leaseByCommandPerHour)) rows.push([`  \`${k}\``, String(v)])
    rows.push(['model, nominal retry', String(store.model.nominalPerHour)])
    rows.push(['model, mean retry jitter (+10%)', String(store.model.withMeanJitterPerHour)])
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
    md.push(mdTable(rows), '', '![store load](bench-store-load.svg)', '')
  }

  if (footprint) {
    const c = footprint.coldStart
    const i = footprint.idle
    await writeFile(
      join(docsDir, 'bench-footprint.svg'),
      barChart(
        'Footprint: an idle worker with 10 nets next to bare Node',
        'milliseconds (cold start) · MiB (RSS)',
        [
          { label: 'node -e 0: spawn → exit (ms)', value: c.nodeE0.medianMs, color: '#9ca3af' },
          { label: 'worker: spawn → first acquire (ms)', value: c.firstAcquire.medianMs, color: COLORS[0] },
          { label: 'worker: spawn → /readyz 200 (ms)', value: c.ready.medianMs, color: COLORS[0] },
          { label: 'idle node: RSS (MiB)', value: i.nodeIdle.rssMiB.mean, color: '#9ca3af' },
          {
            label: 'worker, 1 min pace: RSS (MiB)',
            value: i.workerShippedPace.rssMiB.mean,
            color: COLORS[2],
          },
          {
            label: 'worker, 1 s pace: RSS (MiB)',
            value: i.workerCompressedPace.rssMiB.mean,
            color: COLORS[2],
          },
        ],
      ),
    )
    md.push(
      '## 4. Footprint',
      '',
      `One worker with ten do-nothing nets on Mongo. Cold start: ${footprint.inputs.coldStart} (${footprint.inputs.coldStarts} trials, medians). Idle: ${footprint.inputs.idle}, over ${i.windowS} s.`,
      '',
    )
    const rows = [['measure', 'leasecron', 'bare node', 'ratio']]
    rows.push([
      'cold start → first acquire sent (median)',
      `${c.firstAcquire.medianMs} ms`,
      `${c.nodeE0.medianMs} ms (\`node -e 0\`)`,
      `${c.firstAcquireOverNode}×`,
    ])
    rows.push([
      'cold start → /readyz 200 (median)',
      `${c.ready.medianMs} ms`,
      `${c.nodeE0.medianMs} ms`,
      `${c.readyOverNode}×`,
    ])
    if (c.once)
      rows.push([
        '`leasecron once`, a pass that does nothing: spawn → exit (median)',
        `${c.once.medianMs} ms`,
        `${c.nodeE0.medianMs} ms`,
        `${c.onceOverNode}×`,
      ])
    rows.push([
      'RSS, shipped pace (every minute)',
      `${i.workerShippedPace.rssMiB.mean} MiB (max ${i.workerShippedPace.rssMiB.max})`,
      `${i.nodeIdle.rssMiB.mean} MiB`,
      `${i.workerShippedPace.rssOverNode}×`,
    ])
    rows.push([
      'RSS, compressed pace (every second)',
      `${i.workerCompressedPace.rssMiB.mean} MiB (max ${i.workerCompressedPace.rssMiB.max})`,
      `${i.nodeIdle.rssMiB.mean} MiB`,
      `${i.workerCompressedPace.rssOverNode}×`,
    ])
    rows.push([
      'CPU, shipped pace',
      `${i.workerShippedPace.cpuPercentOfOneCore}% of a core`,
      `${i.nodeIdle.cpuPercentOfOneCore}%`,
      '',
    ])
    rows.push([
      'CPU, compressed pace',
      `${i.workerCompressedPace.cpuPercentOfOneCore}% of a core`,
      `${i.nodeIdle.cpuPercentOfOneCore}%`,
      '',
    ])
    md.push(mdTable(rows), '', '![footprint](bench-footprint.svg)', '')
  }

  if (agenda) {
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
    md.push(
      '## 5. agenda',
      '',
      `${agenda.inputs.workers} processes of each on one database, one job ${agenda.inputs.compression}. agenda: ${agenda.inputs.agenda.schedule}, processEvery ${agenda.inputs.agenda.processEveryMs} ms, lock lifetime ${agenda.inputs.agenda.lockLifetimeMs} ms (${agenda.inputs.agenda.lockLifetimeNote}). leasecron: \`${agenda.inputs.leasecron.schedule}\`, TTL ${agenda.inputs.leasecron.ttlMs} ms, retry ${agenda.inputs.leasecron.retryMs} ms. Window ${agenda.inputs.windowMs / 1000} s; then ${agenda.inputs.killTrials} trials: ${agenda.inputs.kill}.`,
      '',
    )
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
    rows.push([
      'SIGKILL → next run: min / median / max',
      `${a.kill.takeover.minMs} / ${a.kill.takeover.medianMs} / ${a.kill.takeover.maxMs} ms`,
      `${l.kill.takeover.minMs} / ${l.kill.takeover.medianMs} / ${l.kill.takeover.maxMs} ms`,
    ])
    if (a.killLockHolder) {
      const k = a.killLockHolder.takeover
      rows.push([
        'SIGKILL of the process holding the job’s lock → next run: min / median / max',
        `${k.minMs} / ${k.medianMs} / ${k.maxMs} ms (${k.n} trials)`,
        'the holder is the latest executor: the row above',
      ])
    }
    md.push(mdTable(rows), '')
    if (agenda.inputs.killLockHolder) md.push(`Lock-holder trials: ${agenda.inputs.killLockHolder}`, '')
    const top = (side: Json) =>
      Object.entries(side.byCommandPerHour as Record<string, number>)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 6)
        .map(([k, v]) => `\`${k}\` ${v}`)
        .join(', ')
    md.push(
      `Busiest commands per hour — agenda: ${top(a)}; leasecron: ${top(l)}.`,
      '',
      '![agenda vs leasecron](bench-agenda.svg)',
      '',
    )
  }
  const budget = await load('budget')
  if (budget) md.push(...(await renderBudget(budget, docsDir, barChart, mdTable)))
  const notes = join(repoRoot, 'bench', 'NOTES.md')
  if (existsSync(notes)) md.push((await readFile(notes, 'utf8')).trim(), '')
  const path = join(docsDir, 'benchmarks.md')
  await writeFile(path, md.join('\n'))
  return path
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await renderDocs())
