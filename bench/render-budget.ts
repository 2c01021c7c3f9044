/**
 * The `budget` section of docs/benchmarks.md (docs/decisions/0002) and its chart, from bench/results/budget.json:
 * rate-limit points per hour by mode at each churn, the work done, and the pointsRatio per churn.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { barChart } from './svg-charts.js'

// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by the budget scenario
type Json = Record<string, any>

/** The bar chart renderer the caller passes in (svg-charts.ts's own signature). */
type Chart = typeof barChart

/** Writes docs/bench-budget.svg and returns the markdown lines of the section. */
export async function renderBudget(
  budget: Json,
  docsDir: string,
  barChart: Chart,
  mdTable: (rows: string[][]) => string,
) {
  const mixOf = (r: Json) => r.mix ?? 'shipped'
  const bars = budget.runs
    .filter((r: Json) => ['worker-unconditional', 'worker', 'once-memory', 'once-mongo'].includes(r.mode))
    .map((r: Json) => ({
      label: `${r.churn * 100}% · ${r.mode}${mixOf(r) === 'shipped' ? '' : ' · board every pass'}`,
      value: r.pointsPerHour,
      color:
        r.mode === 'worker-unconditional' ? '#9ca3af' : r.mode.startsWith('once') ? '#f59e0b' : '#2563eb',
    }))
  await writeFile(
    join(docsDir, 'bench-budget.svg'),
    barChart('Rate-limit points per hour, by churn and mode', 'points / hour (sandbox ground truth)', bars),
  )
  const rows = runRows(budget)
  const ratios = ratioRows(budget)
  const mixes = (budget.inputs.mixes ?? []) as Json[]
  const mixText = mixes.map((m) => `“${m.label}”: ${m.passes} passes`).join('; ')
  return [
    '## 6. budget: conditional requests',
    '',
    `Both nets over the seeded sandbox (${JSON.stringify(budget.inputs.sandbox)}, ${budget.inputs.gatingRuns} gating runs — the replicas scenario's — of which ${budget.inputs.staleGatingRuns} went silent), passes driven directly per mode (a pass is one minute), a seeded churn before each pass after the first. Mixes: ${mixText}. The board's issue list carries a \`since\` watermark that moves only when the list outgrew one page (to the newest update read), so its URL stays from pass to pass: a quiet repository's list revalidates as a 304 and a churned one pays for the one page that lists what changed; \`pointsRatio\` is the shipped-cadence figure and “board every pass” weighs the board sync more. The sandbox stamps churn with the wall clock, which the one-minute passes run ahead of: each pass's watermark is capped at its start minus one minute, so churned issues are read on the next pass as in production. Per hour scales the passes after the first — the sweeper to a pass a minute, the board sync to one every five; the term's first pass is cold once per term, not once per run, and is reported apart (“cold pass”). Points, 304s and requests are the sandbox’s ground truth. \`pointsRatio\` = points with conditional requests ÷ points without, over the whole run (the first, cold pass included, so it weighs a cold start as if a term lasted the run's 20 minutes); “steady” is the same ratio over the passes after the first, what a long-lived worker's hour pays. The \`once\` modes are a fresh forge per pass in one process (new token, empty memory tier), not child processes. “stable etags” runs the sandbox with \`etagPerToken: false\` (GitHub does not document whether an etag survives a token rotation; the sandbox’s default assumes it does not, and then only answers with a last-modified — single pulls and issues — revalidate for a new token).`,
    '',
    mdTable(ratios),
    '',
    mdTable(rows),
    '',
    ...ledgerSection(budget, mdTable),
    '',
    '![rate-limit points per hour](bench-budget.svg)',
    '',
  ]
}

/** One row per mode and churn. */
function runRows(budget: Json): string[][] {
  const rows = [
    [
      'mix',
      'churn',
      'mode',
      'requests/h',
      '304s/h',
      'points/h',
      'statuses posted',
      'cards written',
      'ms/pass',
    ],
  ]
  for (const r of budget.runs) {
    rows.push([
      r.mix === 'board-every-pass' ? 'board every pass' : 'shipped',
      `${r.churn * 100} %`,
      r.mode,
      String(r.requestsPerHour),
      String(r.notModifiedPerHour),
      `**${r.pointsPerHour}**`,
      String(r.statusesPosted),
      String(r.cardsWritten),
      String(r.meanPassMs),
    ])
  }
  return rows
}

/** One row per churn: the ratios, whether the work matched, and what the Mongo tier cost and saved. */
function ratioRows(budget: Json): string[][] {
  const ratios = [
    [
      'churn',
      'pointsRatio (worker, shipped cadence)',
      'steady (after the first pass)',
      'floor ÷ unconditional (whole / steady)',
      'cold pass, points per term',
      'board every pass (worker)',
      'once, memory',
      'once, Mongo',
      'once, Mongo, stable etags',
      'same work',
      'Mongo ms/pass',
      'points saved/pass',
    ],
  ]
  for (const s of budget.summary) {
    ratios.push([
      `${s.churn * 100} %`,
      `**${s.pointsRatio}**`,
      `**${s.pointsRatioSteady ?? '—'}**`,
      s.floorRatio === undefined ? '—' : `${s.floorRatio} / ${s.steadyFloorRatio}`,
      String(s.coldPassPoints ?? '—'),
      String(s.pointsRatioBoardEveryPass ?? '—'),
      String(s.pointsRatioOnceMemory),
      String(s.pointsRatioOnceMongo),
      String(s.pointsRatioOnceMongoStableEtag),
      s.sameWork && s.sameWorkBoardEveryPass !== false ? 'yes' : '**no**',
      String(s.mongoMsPerPass),
      String(s.mongoPointsSavedPerPass),
    ])
  }
  return ratios
}

const REASON_COLUMNS = [
  'write',
  'first-read',
  'changed',
  'own-write',
  'token-rotation',
  'one-time-url',
  'no-validator',
  'unexplained',
] as const

/** Every point of the worker (shipped cadence) by route and reason at each churn, beside the floor. */
function ledgerSection(budget: Json, mdTable: (rows: string[][]) => string): string[] {
  const runs = budget.runs.filter((r: Json) => r.mix === 'shipped' && r.mode === 'worker' && r.ledger)
  if (runs.length === 0) return []
  const rows = [['churn', 'route', ...REASON_COLUMNS, 'points', 'of which after pass 1']]
  for (const r of runs) {
    const ledger = r.ledger as Json
    for (const [route, reasons] of Object.entries(ledger.byRoute as Record<string, Json>)) {
      const total = Object.values(reasons).reduce((n: number, v) => n + Number(v), 0)
      rows.push([
        `${r.churn * 100} %`,
        route,
        ...REASON_COLUMNS.map((c) => String(reasons[c] ?? '')),
        String(total),
        '',
      ])
    }
    const totals = ledger.total as Json
    const steady = ledger.steady as Json
    const sum = (row: Json) => Object.values(row).reduce((n: number, v) => n + Number(v), 0)
    rows.push([
      `**${r.churn * 100} %**`,
      `**all** (floor **${ledger.floor}**, after pass 1: ${ledger.steadyFloor})`,
      ...REASON_COLUMNS.map((c) => `**${totals[c] ?? 0}**`),
      `**${sum(totals)}**`,
      `**${sum(steady)}**`,
    ])
  }
  return [
    '### Where every point went (worker, shipped cadence)',
    '',
    "Each paid request in the sandbox's request log gets one reason (`bench/points-ledger.ts`): **write** (not a GET); **first-read** — no validator, the resource's first read in the term (a cold cache, once per term); **changed** — the churn changed the resource since the client last read it; **own-write** — only the client's own write changed it; **token-rotation** — the etag held was issued for the same body but another token; **one-time-url** — no validator for a URL never asked in the term although its resource was (a moving query); **no-validator** — the cache held none for a URL it asked before. The **floor** is writes + changed + first reads: what no client could save at this churn. Per-pass points are in `bench/results/budget.json` (`ledger.perPass`).",
    '',
    mdTable(rows),
    '',
  ]
}
