/**
 * Chaos on the holder's process: SIGKILL at a random phase, SIGTERM, and SIGSTOP for ttl/4, ttl and 2·ttl.
 * Three workers share the suite's Mongo, each through its own proxy (all in pass mode here).
 */
import { describe, expect, it } from 'vitest'
import { HOLD, mono, RETRY, sleep, TTL } from './cluster.js'
import type { LogLine } from '../support/worker-process.js'
import { chaosEnvironment, expectOncePerSlot, runScenario, type ScenarioRun } from './scenario.js'

const { env, results } = chaosEnvironment()
// A loaded 2-core machine: process start-up, timer lag and node-cron's whole-second ticks.
const SLACK = 1500

/**
 * Stops the holder with SIGSTOP for `stall` ms at a random phase, then checks what that stall must do to
 * its term. False when its term had already ended when it was stopped (lost to a FerretDB double win, say,
 * with the line still in the pipe): that stalls no holder, and the trial does not count.
 */
async function stallHolder(run: ScenarioRun, stall: number): Promise<boolean> {
  const { cluster } = run
  const holder = await cluster.waitForHolder()
  await sleep(Math.floor(Math.random() * RETRY))
  const term = cluster.openTerm(holder)
  if (term === undefined) return false
  cluster.signal(holder, 'SIGSTOP')
  const at = mono()
  await sleep(stall)
  const end = mono()
  cluster.signal(holder, 'SIGCONT')
  cluster.fault({ kind: `SIGSTOP holder ${stall} ms`, start: at, end, stalled: holder.owner() })
  const endOf = (l: LogLine) => l.event === 'term-end' && Number(l.term) === term
  if (stall >= TTL) {
    // Its term ends at once on waking: the step-down timer runs before any tick could start a pass.
    const ended = await holder.proc.waitFor(endOf, 10_000, `the stalled holder's term ${term} ending`)
    if (Number(ended.mono) <= at) return false
    run.takeovers.push({ from: at, exclude: holder.owner() })
  } else {
    await sleep(TTL)
    const ended = holder.proc.lines.find(endOf)
    if (ended && Number(ended.mono) <= at) return false
    expect(ended, `a ${stall} ms stall (under the ${HOLD} ms hold) cost the holder its term`).toBeUndefined()
  }
  run.trials++
  await cluster.waitForHolder({ timeoutMs: 20_000 })
  return true
}

describe('the holder’s process fails', () => {
  it('a holder killed with SIGKILL at a random phase is replaced within ttl + retry, with no overlap', async () => {
    await runScenario(
      'holder-sigkill',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        const phases: number[] = []
        for (let trial = 0; trial < 5; trial++) {
          const holder = await cluster.waitForHolder()
          const phase = Math.floor(Math.random() * RETRY)
          phases.push(phase)
          await sleep(phase)
          const at = mono()
          cluster.signal(holder, 'SIGKILL')
          cluster.fault({ kind: `SIGKILL holder +${phase} ms`, start: at, end: at })
          run.takeovers.push({ from: at, exclude: holder.owner() })
          run.trials++
          await cluster.waitForHolder({ after: at, exclude: [holder], timeoutMs: 20_000 })
          await cluster.start()
        }
        run.notes = `kill phases after a pass of the holder's term: ${phases.join(', ')} ms`
      },
      { takeoverBoundMs: TTL + 1.2 * RETRY + SLACK },
    )
  })

  it('a holder stopped with SIGTERM releases, and another worker takes over within one retry', async () => {
    await runScenario(
      'holder-sigterm',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        for (let trial = 0; trial < 4; trial++) {
          const holder = await cluster.waitForHolder()
          await sleep(Math.floor(Math.random() * RETRY))
          const at = mono()
          cluster.signal(holder, 'SIGTERM')
          cluster.fault({ kind: 'SIGTERM holder', start: at, end: at })
          run.takeovers.push({ from: at, exclude: holder.owner() })
          run.trials++
          const { code } = await holder.proc.exited
          expect(code, 'a holder stopped with SIGTERM did not exit 0').toBe(0)
          expect(
            holder.proc.lines.some((l) => l.msg === 'released'),
            'a stopping holder did not release: its successor waits out the TTL',
          ).toBe(true)
          await cluster.waitForHolder({ after: at, exclude: [holder], timeoutMs: 20_000 })
          await cluster.start()
        }
      },
      { takeoverBoundMs: 1.2 * RETRY + SLACK },
    )
  })

  it('a holder paused with SIGSTOP keeps its term through ttl/4, is replaced after ttl and 2·ttl, and its overlap never exceeds the stall', async () => {
    const verdict = await runScenario(
      'holder-sigstop',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        let voided = 0
        for (const stall of [TTL / 4, TTL / 4, TTL, TTL, 2 * TTL, 2 * TTL]) {
          // A trial whose holder's term had ended before the stop stalled no holder: it is made again.
          for (let tries = 1; !(await stallHolder(run, stall)); tries++) {
            voided++
            expect(tries, `the holder's term ended before each of ${tries} stops`).toBeLessThan(5)
          }
        }
        if (voided > 0) run.notes = `${voided} trial(s) made again: the term had ended before the stop`
      },
      { takeoverBoundMs: TTL + 1.2 * RETRY + SLACK },
    )
    expect(
      verdict.expectedOverlaps,
      'a holder stalled past its TTL showed no overlap: the checker cannot see one',
    ).toBeGreaterThanOrEqual(1)
    expectOncePerSlot('holder-sigstop', results, verdict)
  })
})
