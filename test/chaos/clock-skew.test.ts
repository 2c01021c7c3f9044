/**
 * Clock offset between replicas, with Debian's libfaketime preloaded into one worker (wall clock only:
 * FAKETIME_DONT_FAKE_MONOTONIC keeps CLOCK_MONOTONIC real, so deadlines and the checker's timeline are
 * untouched). The lease stamps expiries with the caller's wall clock, so a candidate whose clock runs
 * ahead sees the holder's lease expire early: below ttl/6 the holder's step-down margin absorbs it, above
 * it the two terms overlap by up to skew − ttl/6 — which the checker must see and bound.
 *
 * Each trial cuts the current holder off from the store for 2·ttl (its own proxy blackholed) and heals it.
 */
import { describe, expect, it } from 'vitest'
import type { Cluster } from './cluster.js'
import { mono, RETRY, sleep, TTL } from './cluster.js'
import { chaosEnvironment, expectOncePerSlot, runScenario, type ScenarioRun } from './scenario.js'

const { env, results } = chaosEnvironment()
const SLACK = 1500

async function skewedPair(run: ScenarioRun, skewMs: number, trials: number): Promise<void> {
  const { cluster } = run
  const straight = await cluster.start()
  await cluster.waitForHolder()
  // Beyond ttl/6 the clock guard would hold the skewed worker back (test/e2e/clock-guard-e2e.test.ts):
  // turned off here, so the checker still sees, and bounds, what the lease alone does with such a clock.
  const env: Record<string, string> = skewMs > TTL / 6 ? { LEASECRON_CLOCK_GUARD: 'off' } : {}
  const ahead = await cluster.start({ skewMs, env })
  for (let trial = 0; trial < trials; trial++) {
    const holder = await cluster.waitForHolder()
    await sleep(Math.floor(Math.random() * RETRY))
    await holder.proxy.setMode({ kind: 'blackhole' })
    const at = mono()
    run.takeovers.push({ from: at, exclude: holder.owner() })
    await cluster.waitForHolder({ after: at, exclude: [holder], timeoutMs: 20_000 })
    await sleep(Math.max(0, at + 2 * TTL - mono()))
    const end = mono()
    await holder.proxy.setMode({ kind: 'pass' })
    cluster.fault({
      kind: `blackhole holder (${holder === ahead ? `clock +${skewMs} ms` : 'true clock'}) ${Math.round(end - at)} ms`,
      start: at,
      end,
      unreachable: [holder.owner()!],
    })
    run.trials++
  }
  expectSkew(cluster, straight.id, ahead.id, skewMs)
}

function expectSkew(cluster: Cluster, straight: string, ahead: string, skewMs: number): void {
  const offset = (id: string) => {
    const w = cluster.workers.find((x) => x.id === id)!
    const l = w.proc.lines.find((x) => x.event === 'term-start' || x.event === 'pass-start')
    return l ? Number(l.wall) - Number(l.mono) : Number.NaN
  }
  const measured = offset(ahead) - offset(straight)
  expect(
    Math.abs(measured - skewMs),
    `faketime shifted the worker's wall clock by ${Math.round(measured)} ms instead of ${skewMs} ms: the scenario does not test the offset it claims`,
  ).toBeLessThan(50)
}

describe('clock offset between replicas (libfaketime)', () => {
  it('a candidate whose clock runs ttl/12 ahead never overlaps the holder it succeeds', async () => {
    const verdict = await runScenario(
      'clock-skew-below-ttl-6',
      env,
      results,
      (run) => skewedPair(run, TTL / 12, 6),
      {
        takeoverBoundMs: TTL + 1.2 * RETRY + SLACK,
      },
    )
    expect(
      verdict.overlapCount,
      'a skew under ttl/6 produced an overlap: the step-down margin is not enough',
    ).toBe(0)
    expectOncePerSlot('clock-skew-below-ttl-6', results, verdict)
  })

  it('a candidate whose clock runs 0.6·ttl ahead overlaps a cut-off holder, by no more than skew − ttl/6', async () => {
    const skew = 0.6 * TTL
    const verdict = await runScenario(
      'clock-skew-above-ttl-6',
      env,
      results,
      (run) => skewedPair(run, skew, 6),
      {
        takeoverBoundMs: TTL + skew + 1.2 * RETRY + SLACK,
      },
    )
    expect(
      verdict.expectedOverlaps,
      'a skew beyond ttl/6 showed no overlap: the checker cannot see the damage it is meant to bound',
    ).toBeGreaterThanOrEqual(1)
    expect(verdict.overlapMaxMs, 'the overlap exceeded skew − ttl/6 (+ timer slack)').toBeLessThanOrEqual(
      skew - TTL / 6 + 300,
    )
    expectOncePerSlot('clock-skew-above-ttl-6', results, verdict)
  })
})
