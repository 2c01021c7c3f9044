/**
 * The `stand-in-load` section of docs/benchmarks.md (issue 37), from bench/results/stand-in-load.json: per
 * cell (the driver's pool × leases × minutes) each store operation's latencies against its bound, the calls
 * that failed, and the longest bursts. No chart: the question is whether any call missed its bound. Only
 * reads the JSON the scenario wrote.
 */

// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by the stand-in-load scenario
type Json = Record<string, any>

const OPS = ['acquire', 'renew', 'claim', 'finish', 'ping']

/** The markdown lines of the section. */
export function renderStandInLoad(result: Json, mdTable: (rows: string[][]) => string): string[] {
  const inputs = result.inputs as Json
  const lines = [
    '## The Mongo stand-in under one replica’s load (`stand-in-load`)',
    '',
    `One MongoClient drives the product's own MongoStore and MongoRunLedger as a replica holding N every-minute nets at the shipped pace (TTL ${inputs.ttlMs / 1000} s): ${inputs.shape}. Every store call is bounded at ${inputs.callBoundMs} ms, a ping at ${inputs.pingBoundMs} ms; FerretDB's PostgreSQL pool is ${inputs.ferretDbPoolMaxConns ?? 'not in play'} connections. A cell is the driver's \`maxPoolSize\` × leases × minutes.`,
    '',
  ]
  for (const cell of result.cells as Json[]) lines.push(...cellLines(cell, mdTable))
  return lines
}

function cellLines(cell: Json, mdTable: (rows: string[][]) => string): string[] {
  const rows = [['operation', 'calls', 'median ms', 'p95 ms', 'max ms', 'over bound', 'failed']]
  for (const op of OPS) {
    const r = cell.ops[op] as Json
    rows.push([
      op,
      String(r.n),
      String(r.medianMs),
      String(r.p95Ms),
      String(r.maxMs),
      String(r.overBound),
      String(r.failed),
    ])
  }
  const longest = (kind: string) =>
    Math.max(...(cell.bursts as Json[]).filter((b) => b.kind === kind).map((b) => b.ms as number))
  const failures = OPS.flatMap((op) => (cell.ops[op].firstFailures as string[]).map((f) => `${op}: ${f}`))
  return [
    `### Driver pool ${cell.pool}, ${cell.leases} leases, ${cell.minutes} min`,
    '',
    `\`${cell.command}\`${cell.note ? ` (${cell.note})` : ''}, started ${cell.startedAt} at commit ${String(cell.commit).slice(0, 8)}, load average ${cell.loadAverage.join(' / ')}. Longest burst: passes ${longest('passes')} ms, renewals ${longest('renewals')} ms.`,
    '',
    mdTable(rows),
    '',
    ...(failures.length > 0 ? ['First failures:', '', ...failures.slice(0, 6).map((f) => `- ${f}`), ''] : []),
  ]
}
