/**
 * MIN_DURATION and MAX_DURATION (net-section.ts): durations with their unit, unset by default, a minimum
 * at or above the maximum refused naming both; `config` shows them.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { netPlans } from '../../src/worker/status/worker-status.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const load = (env: Record<string, string>) =>
  loadConfig(env, [recordingNet().net], TEST_LEASES, { needsForge: false })

describe('MIN_DURATION and MAX_DURATION', () => {
  it('are unset by default and take durations with their unit', () => {
    const plain = load({})
    if (!plain.ok) throw new Error(JSON.stringify(plain.issues))
    expect(plain.config.nets[0]).not.toHaveProperty('minDurationMs')
    expect(plain.config.nets[0]).not.toHaveProperty('maxDurationMs')
    const set = load({
      LEASECRON_NET_TICK_NET_MIN_DURATION: '30s',
      LEASECRON_NET_TICK_NET_MAX_DURATION: '10m',
    })
    if (!set.ok) throw new Error(JSON.stringify(set.issues))
    expect(set.config.nets[0]).toMatchObject({ minDurationMs: 30_000, maxDurationMs: 600_000 })
    const shown = redactedConfig(set.config).nets as Array<Record<string, unknown>>
    expect(shown[0]).toMatchObject({ minDuration: '30s', maxDuration: '10m' })
    expect(
      netPlans(set.config.nets)[0],
      'the page’s and /status’s state would not read the bounds',
    ).toMatchObject({
      minDurationMs: 30_000,
      maxDurationMs: 600_000,
    })
  })

  it('refuses a bare number, naming the variable', () => {
    const refused = load({ LEASECRON_NET_TICK_NET_MAX_DURATION: '600' })
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.issues.map((i) => i.variable)).toEqual(['LEASECRON_NET_TICK_NET_MAX_DURATION'])
      expect(refused.issues[0]!.expected).toContain('a pass that takes longer shows the net slow')
    }
  })

  it('refuses a minimum at or above the maximum: no pass could take between them', () => {
    const refused = load({
      LEASECRON_NET_TICK_NET_MIN_DURATION: '10m',
      LEASECRON_NET_TICK_NET_MAX_DURATION: '10m',
    })
    expect(refused.ok, 'MIN_DURATION = MAX_DURATION was accepted').toBe(false)
    if (!refused.ok) {
      expect(refused.issues[0]!.variable).toBe('LEASECRON_NET_TICK_NET_MIN_DURATION')
      expect(refused.issues[0]!.expected).toContain('below LEASECRON_NET_TICK_NET_MAX_DURATION (10m)')
    }
  })
})
