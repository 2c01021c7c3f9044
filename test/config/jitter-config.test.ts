/**
 * JITTER's configuration (net-section.ts): `LEASECRON_NET_<NET>_JITTER` over the net's own `jitter`, a
 * duration below the schedule's shortest gap, refused (exit 78's issues) naming the variable or the net.
 */
import { describe, expect, it } from 'vitest'
import { defineNet, loadConfig } from '../../src/index.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

function load(env: Record<string, string>, own: { schedule?: string; jitter?: unknown } = {}) {
  const { net } = recordingNet(own.schedule === undefined ? {} : { schedule: own.schedule })
  const definition = own.jitter === undefined ? net : defineNet({ ...net, jitter: own.jitter as string })
  return loadConfig(env, [definition], TEST_LEASES, { needsForge: false })
}

function jitterOf(env: Record<string, string>, own: { schedule?: string; jitter?: unknown } = {}): number {
  const loaded = load(env, own)
  if (!loaded.ok) throw new Error(`the configuration was refused: ${JSON.stringify(loaded.issues)}`)
  return loaded.config.nets[0]!.jitterMs
}

describe('JITTER', () => {
  it('is none unset, and takes a duration with its unit from the variable over the net’s own', () => {
    expect(jitterOf({}, { schedule: '* * * * *' })).toBe(0)
    expect(jitterOf({}, { schedule: '* * * * *', jitter: '20s' })).toBe(20_000)
    const env = { LEASECRON_NET_TICK_NET_JITTER: '45s', LEASECRON_NET_TICK_NET_SCHEDULE: '* * * * *' }
    expect(jitterOf(env, { jitter: '20s' })).toBe(45_000)
    expect(jitterOf({ LEASECRON_NET_TICK_NET_JITTER: '0s' })).toBe(0)
  })

  it('accepts a JITTER just below the shortest gap and refuses one equal to it, naming the gap', () => {
    const schedule = { LEASECRON_NET_TICK_NET_SCHEDULE: '0 9,10 * * *' } // gaps of 1 h and 23 h
    expect(jitterOf({ ...schedule, LEASECRON_NET_TICK_NET_JITTER: '3599999ms' })).toBe(3_599_999)
    const refused = load({ ...schedule, LEASECRON_NET_TICK_NET_JITTER: '1h' })
    expect(
      refused.ok,
      'a JITTER as long as the 1 h gap was accepted: a pass would start at the next slot',
    ).toBe(false)
    if (refused.ok) return
    expect(refused.issues).toHaveLength(1)
    expect(refused.issues[0]!.variable).toBe('LEASECRON_NET_TICK_NET_JITTER')
    expect(refused.issues[0]!.value).toBe('1h')
    expect(refused.issues[0]!.expected).toContain("below the schedule's shortest gap between slots (1h)")
  })

  it('refuses a bare number and a negative, naming the variable and what it expected', () => {
    for (const value of ['30', '-5s', 'soon']) {
      const refused = load({
        LEASECRON_NET_TICK_NET_SCHEDULE: '* * * * *',
        LEASECRON_NET_TICK_NET_JITTER: value,
      })
      expect(refused.ok, `JITTER=${value} was accepted`).toBe(false)
      if (refused.ok) continue
      expect(refused.issues.map((i) => i.variable)).toEqual(['LEASECRON_NET_TICK_NET_JITTER'])
      expect(refused.issues[0]!.expected).toMatch(/a duration with a unit .* e\.g\. 30s/)
    }
  })

  it('refuses the net’s own jitter when it does not fit, or is not a duration text, naming the net', () => {
    const tooLong = load({}, { schedule: '*/10 * * * * *', jitter: '10s' })
    expect(tooLong.ok).toBe(false)
    if (!tooLong.ok) {
      expect(tooLong.issues[0]!.variable).toBe('net "tick-net" (worker configuration module)')
      expect(tooLong.issues[0]!.expected).toContain('its jitter "10s" to be a duration')
      expect(tooLong.issues[0]!.expected).toContain('(or LEASECRON_NET_TICK_NET_JITTER set to one)')
    }
    const number = load({}, { jitter: 5000 })
    expect(number.ok, 'a jitter of 5000 (a number) was accepted').toBe(false)
    if (!number.ok) expect(number.issues[0]!.expected).toContain("a duration with its unit, e.g. '30s'")
  })

  it('is shown by `config` as its duration, or unset', () => {
    const loaded = load({
      LEASECRON_NET_TICK_NET_SCHEDULE: '0 * * * *',
      LEASECRON_NET_TICK_NET_JITTER: '90000ms',
    })
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
    const [shown] = redactedConfig(loaded.config).nets as Array<{ jitter: string }>
    expect(shown!.jitter).toBe('90s')
    const plain = load({})
    if (!plain.ok) throw new Error(JSON.stringify(plain.issues))
    expect((redactedConfig(plain.config).nets as Array<{ jitter: string }>)[0]!.jitter).toBe('(unset)')
  })
})
