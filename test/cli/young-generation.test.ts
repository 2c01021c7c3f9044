/**
 * `leasecron run` holds its young generation at V8's starting size (src/cli/young-generation.ts), on the
 * Node that runs these tests (CI runs them on Node 20 and 24). Each case is a Node process of its own that
 * allocates a burst of objects that survive — what makes V8 grow its new space — and reports the largest
 * new space it saw: a flag set inside the test's own process would hold the test runner's heap too.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { operatorYoungFlag, type YoungGeneration } from '../../src/cli/young-generation.js'

const PROBE = fileURLToPath(new URL('./fixtures/young-generation-probe.ts', import.meta.url))
const TS_LOADER = fileURLToPath(import.meta.resolve('jiti/register'))

interface Probe {
  outcome?: YoungGeneration
  newSpaceMiB: number
  startMiB: number
}

/** How much the burst grew the probe's new space, in MiB. */
const growth = (p: Probe) => p.newSpaceMiB - p.startMiB

/** Runs the probe (`hold` calls holdYoungGeneration first) with `nodeArgs` and NODE_OPTIONS `nodeOptions`. */
function probe(mode: 'hold' | 'none', nodeArgs: string[] = [], nodeOptions = ''): Probe {
  const run = spawnSync(process.execPath, [...nodeArgs, '--import', TS_LOADER, PROBE, mode], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions },
    timeout: 60_000,
  })
  if (run.status !== 0) throw new Error(`the probe exited ${run.status}: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Probe
}

let unheldProbe: Probe | undefined
/** The probe with nothing held, run once: what the burst grows V8's new space to on this Node. */
const unheld = () => {
  unheldProbe ??= probe('none')
  return unheldProbe
}

describe('the young generation of a run process', () => {
  // Growth from where the burst began, not a size: loading the probe through jiti can grow the new space
  // before the hold (2 or 4 MiB on Node 20), and on Node 24 a held one took a few pages more under load
  // (4-7 MiB) where the unheld one grew to 128 MiB (Node 20: 32).
  it('grows by a quarter or less of what the same burst grows an unheld one by', () => {
    const held = probe('hold')
    expect(held.outcome).toEqual({ held: true })
    expect(
      growth(held),
      'the held new space grew with the burst: a worker of many nets keeps tens of MiB more resident',
    ).toBeLessThanOrEqual(growth(unheld()) / 4)
  })

  it('is left to a young-generation flag node was started with, which then sizes it', () => {
    const chosen = probe('hold', ['--max-semi-space-size=4'])
    expect(chosen.outcome).toEqual({ held: false, operatorFlag: '--max-semi-space-size=4' })
    expect(chosen.newSpaceMiB, "the operator's 4 MiB semi-spaces were not used").toBeGreaterThan(4)
  })

  it('is left to a young-generation flag in NODE_OPTIONS', () => {
    expect(probe('hold', [], '--max-old-space-size=512 --max-semi-space-size=2').outcome).toEqual({
      held: false,
      operatorFlag: '--max-semi-space-size=2',
    })
  })

  it('is held when the flags node was started with size something else', () => {
    const other = probe('hold', ['--max-old-space-size=512'], '--max-old-space-size=600')
    expect(other.outcome).toEqual({ held: true })
    expect(growth(other)).toBeLessThanOrEqual(growth(unheld()) / 4)
  })

  it("knows V8's young-generation flags in either spelling, and only them", () => {
    const flags = ['--min_semi_space_size=2', '--semi-space-growth-factor=4', '--max-semi-space-size=1']
    for (const flag of flags) expect(operatorYoungFlag(['--inspect', flag], undefined)).toBe(flag)
    expect(operatorYoungFlag([], '--trace-gc  --max_semi_space_size=8')).toBe('--max_semi_space_size=8')
    const lookalikes = ['--max-semi-space-sizes=2', '--no-max-semi-space-size', '--max-old-space-size=64']
    expect(operatorYoungFlag(lookalikes, lookalikes.join(' '))).toBeUndefined()
  })
})
