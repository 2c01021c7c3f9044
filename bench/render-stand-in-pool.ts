/**
 * The `stand-in-pool` section of docs/benchmarks.md (issue 37), from bench/results/stand-in-pool.json: per
 * shape and number sent at once, how many trials stalled FerretDB over a pool of P and how long it took
 * to answer again once the stalled client closed. No chart: the answer is a threshold. Only reads the JSON
 * the scenario wrote.
 */

// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by the stand-in-pool scenario
type Json = Record<string, any>

/** The markdown lines of the section. */
export function renderStandInPool(result: Json, mdTable: (rows: string[][]) => string): string[] {
  const inputs = result.inputs as Json
  const rows = [
    ['shape', 'at once', 'client pool', 'stalled', 'answered, max ms', 'answered again after the close, ms'],
  ]
  for (const r of result.rows as Json[]) {
    const recovered = (r.recoveredMs as (number | null)[]).map((ms) => (ms === null ? 'never' : String(ms)))
    rows.push([
      String(r.shape),
      String(r.k),
      String(r.clientPool),
      `${r.stalls} of ${r.trials}`,
      String(r.answeredMaxMs),
      recovered.join(', ') || '—',
    ])
  }
  return [
    '## The Mongo stand-in’s pool: what stalls it (`stand-in-pool`)',
    '',
    `${inputs.server}, \`pool_max_conns\` ${inputs.poolMaxConns}. ${inputs.shapes}; ${inputs.trials} trials each; a trial not answered within ${inputs.waitMs} ms is a stall. ${inputs.recovery}. \`${result.command}\`, ${result.generatedAt}, commit ${String(result.commit).slice(0, 8)}.`,
    '',
    mdTable(rows),
    '',
  ]
}
