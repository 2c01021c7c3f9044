/**
 * Chaos on the forge side: the sandbox forge answers the passes' requests with 5xx, secondary rate-limit
 * 403s, truncated JSON, or drops the connection mid-request. A pass may fail; the term, the worker and
 * the election must not notice.
 */
import { describe, expect, it } from 'vitest'
import type { SandboxFaultInput } from '../../src/sandbox/sandbox-faults.js'
import { mono, sleep, TTL } from './cluster.js'
import { chaosEnvironment, runScenario } from './scenario.js'

const { env, results } = chaosEnvironment()

const FAULTS: SandboxFaultInput[] = [
  { kind: 'status', status: 502, path: '/rate_limit' },
  { kind: 'status', status: 500, path: '/rate_limit' },
  { kind: 'secondary-limit', status: 403, retryAfter: 1, path: '/rate_limit' },
  { kind: 'truncated', path: '/rate_limit' },
  { kind: 'malformed', path: '/rate_limit' },
  { kind: 'drop', path: '/rate_limit' },
]

describe('the forge misbehaves during passes', () => {
  it('5xx, rate-limit 403s, truncated JSON and dropped connections fail passes but never a term or a worker', async () => {
    const verdict = await runScenario('forge-faults', env, results, async (run) => {
      const { cluster } = run
      for (let i = 0; i < 3; i++) await cluster.start()
      const holder = await cluster.waitForHolder()
      for (const fault of FAULTS) {
        const at = mono()
        await env.sandbox.admin.addFault(fault)
        await sleep(TTL)
        await env.sandbox.admin.clearFaults()
        const end = mono()
        cluster.fault({
          kind: `forge ${fault.kind}${'status' in fault ? ` ${fault.status}` : ''}`,
          start: at,
          end,
        })
        run.trials++
        await holder.proc.waitFor(
          (l) => l.event === 'pass-end' && l.ok === true && Number(l.mono) > end,
          20_000,
          'a successful pass after the forge healed',
        )
      }
      expect(
        holder.proc.lines.filter((l) => l.event === 'term-end'),
        'a forge fault ended the holder’s term: the election reacted to the forge',
      ).toEqual([])
      expect(
        // A fault that outlasts the net's TIMEOUT (its 1 s interval by default) ends the pass timed out.
        holder.proc.lines.some((l) => l.msg === 'pass failed' || l.msg === 'pass timed out'),
        'no pass logged an error while the forge failed',
      ).toBe(true)
    })
    expect(
      verdict.passErrors,
      'no pass failed under forge faults: the faults did not reach the passes',
    ).toBeGreaterThan(0)
    expect(verdict.terms, 'forge faults moved the lease').toBe(1)
  })
})
