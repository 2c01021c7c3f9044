/**
 * The `peers-thousand` section of docs/benchmarks.md, from bench/results/peers-thousand.json: per system,
 * the job count, whether it held it, each (job, slot) run once / twice or more / never at rest and after the
 * SIGKILL, the start delay at rest, store operations an hour at rest (leasecron's beside its model), and
 * each process's RSS and CPU; then what stopped the systems that did not hold, the hand-written reading of
 * the committed run (bench/PEERS-THOUSAND-NOTES.md) when present, and each one's set-up. Renders; measures
 * nothing.
 */

import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// biome-ignore lint/suspicious/noExplicitAny: the results are JSON written by the peers-thousand scenario
type Json = Record<string, any>

const counts = (c: Json | undefined) => (c ? `${c.once} / ${c.twiceOrMore} / ${c.never}` : '–')
const seconds = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`
const thousands = (n: number) => n.toLocaleString('en-US')
/** What a failed system did not do, by the stage it failed at (the scenario's `failed.stage`). */
const FAILED: Record<string, string> = { store: 'get a store', start: 'start', run: 'finish its run' }

/** Store operations an hour at rest; leasecron's with its model for the window and for a steady state. */
function opsCell(s: Json): string {
  const measured = thousands(s.storeOpsAtRest.perHour)
  const model = s.leasecron?.opsModel
  if (!model) return measured
  return `${measured} (model ${thousands(model.thisWindow.perHour)}; steady ${thousands(model.steadyState.perHour)})`
}

function row(s: Json): string[] {
  if (s.failed)
    return [
      `**${s.system}**`,
      String(s.jobs),
      `no: did not ${FAILED[s.failed.stage] ?? s.failed.stage}`,
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
    ]
  return [
    `**${s.system}**`,
    s.jobs.toLocaleString('en-US'),
    s.held ? 'yes' : 'no',
    counts(s.windows.rest),
    counts(s.windows.kill),
    s.delayAtRestMs ? `${seconds(s.delayAtRestMs.p50)} / ${seconds(s.delayAtRestMs.p99)}` : 'none ran',
    opsCell(s),
    s.processes.map((p: Json) => `${p.rssMiB}${p.killed ? '†' : ''}`).join(', '),
    s.processes.map((p: Json) => `${p.cpuPercent}`).join(', '),
  ]
}

function table(systems: Json[], mdTable: (rows: string[][]) => string): string {
  const head = [
    'system',
    'jobs',
    'held',
    'rest: once / 2+ / never (job × slot)',
    'after the SIGKILL',
    'start delay at rest p50 / p99',
    'store ops/h at rest',
    'RSS MiB (each process; † killed)',
    'CPU % of a core at rest',
  ]
  return mdTable([head, ...systems.map(row)])
}

/** Why each system that did not hold stopped, and leasecron's model in words. */
function notes(systems: Json[]): string[] {
  const lines: string[] = []
  for (const s of systems) {
    if (s.failed)
      lines.push(
        `- **${s.system} at ${s.jobs} jobs did not ${FAILED[s.failed.stage] ?? s.failed.stage}**${s.failed.declaredJobs === undefined ? '' : ` (after ${s.failed.afterS} s, ${s.failed.declaredJobs} jobs declared)`}: ${s.failed.reason}`,
      )
    else if (!s.held)
      lines.push(
        `- **${s.system} did not hold ${s.jobs} jobs** (${s.jobsRunEverySlotAtRest} ran in every slot at rest): ${s.notHeldBecause.join('; ')}.`,
      )
  }
  const model = systems.find((s) => s.leasecron)?.leasecron?.opsModel
  if (model)
    lines.push(
      `- **leasecron's model** (bench/peers-thousand-model.ts): ${model.steadyState.formula}. Measured at rest, by term: ${Object.entries(
        model.measuredPerHourByTerm,
      )
        .map(([k, v]) => `${k} ${thousands(v as number)}/h`)
        .join(', ')}; the model of this window (each term's first passes): ${Object.entries(
        model.thisWindow.terms,
      )
        .map(([k, v]) => `${k} ${thousands(v as number)}/h`)
        .join(
          ', ',
        )}; renewal batches per replica and round, as measured: ${model.impliedRenewalBatchesPerRound}.`,
    )
  return lines
}

/** The hand-written reading of the committed run (bench/PEERS-THOUSAND-NOTES.md), when present. */
function reading(): string[] {
  const path = fileURLToPath(new URL('./PEERS-THOUSAND-NOTES.md', import.meta.url))
  return existsSync(path) ? [readFileSync(path, 'utf8').trim(), ''] : []
}

/** The section's markdown lines. */
export function renderPeersThousand(result: Json, mdTable: (rows: string[][]) => string): string[] {
  const systems: Json[] = result.systems
  const i = result.inputs
  const p = i.plan
  return [
    '## A thousand schedules: the peers at N every-minute jobs (`peers-thousand`)',
    '',
    `\`${result.command}\` (${result.durationS} s, ${new Date(result.generatedAt).toISOString().slice(0, 16)} UTC, commit \`${String(result.commit).slice(0, 10)}\`${result.quick ? '; QUICK — not a real run' : ''}). ${i.processesPerSystem} processes per system, ${i.concurrency}. Each system: a window at rest of ${p.restMinutes} min from 20 s after its first slot, then ${i.fault}, then ${p.afterKillMinutes} more slots. Delay: ${i.delay}. Operations at rest: ${i.opsAtRest}. ${i.processFigures}. Slot of a start: ${i.slotAttribution}. Held: ${i.held}.`,
    '',
    'Every count is over (job, slot) pairs, read from files each handler appended: *once / twice or more / never*.',
    '',
    table(systems, mdTable),
    '',
    ...notes(systems),
    '',
    ...reading(),
    'Set-up, each as its own documentation recommends:',
    '',
    // A variant of one system (leasecron on its image's runtime) is named by its row, not its version alone.
    ...systems.map((s) => {
      const name = s.version.startsWith(s.system) ? s.version : `${s.system}: ${s.version}`
      return `- **${name}** on ${s.store} — ${s.settings}. Docs: ${s.docs}.`
    }),
    '',
  ]
}
