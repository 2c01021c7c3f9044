import { describe, expect, it } from 'vitest'
import { defineNet, loadConfig, type NetDefinition } from '../../src/index.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { recordingNet, TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'

const { net } = recordingNet()
const load = (env: Record<string, string>, nets: NetDefinition[] = [net as NetDefinition]) =>
  loadConfig(env, nets, TEST_LEASES)

const zonedNet = (timeZone: string): NetDefinition =>
  defineNet({
    name: 'tick-net',
    lease: TICK_LEASE.name,
    schedule: '0 9 * * 1-5',
    timeZone,
    description: 'weekdays at nine',
    options: {},
    setup: () => undefined,
    term: () => async () => {},
  })

describe('a net’s time zone', () => {
  it('is UTC unless the net or LEASECRON_NET_<NET>_TIME_ZONE names one, and shows in the configuration', () => {
    const plain = load({})
    expect(plain.ok && plain.config.nets[0]?.timeZone).toBe('UTC')
    const declared = load({}, [zonedNet('Europe/Berlin')])
    expect(declared.ok && declared.config.nets[0]?.timeZone).toBe('Europe/Berlin')
    const overridden = load({ LEASECRON_NET_TICK_NET_TIME_ZONE: 'America/New_York' }, [
      zonedNet('Europe/Berlin'),
    ])
    expect(overridden.ok && overridden.config.nets[0]?.timeZone).toBe('America/New_York')
    if (!overridden.ok) return
    expect(redactedConfig(overridden.config).nets).toMatchObject([{ timeZone: 'America/New_York' }])
  })

  it('is kept by its canonical IANA name', () => {
    const result = load({ LEASECRON_NET_TICK_NET_TIME_ZONE: 'australia/lord_howe' })
    expect(result.ok && result.config.nets[0]?.timeZone).toBe('Australia/Lord_Howe')
  })

  it('refuses an unknown zone, naming the variable, the value and what is expected', () => {
    const result = load({ LEASECRON_NET_TICK_NET_TIME_ZONE: 'Mars/Olympus_Mons' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues).toEqual([
      {
        variable: 'LEASECRON_NET_TICK_NET_TIME_ZONE',
        expected:
          "an IANA time zone name, e.g. `Europe/Berlin`, `America/New_York` or `UTC` (the zone the schedule is read in); this one is not known to the runtime's time zone database",
        value: 'Mars/Olympus_Mons',
      },
    ])
  })

  it('refuses a net declared with an unknown zone, naming the net, unless the variable sets a good one', () => {
    const bad = load({}, [zonedNet('Berlin')])
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      expect(bad.issues).toHaveLength(1)
      expect(bad.issues[0]?.variable).toBe('net "tick-net" (worker configuration module)')
      expect(bad.issues[0]?.expected).toMatch(/its timeZone "Berlin" to be an IANA time zone name/)
    }
    const fixed = load({ LEASECRON_NET_TICK_NET_TIME_ZONE: 'Europe/Berlin' }, [zonedNet('Berlin')])
    expect(fixed.ok && fixed.config.nets[0]?.timeZone).toBe('Europe/Berlin')
  })

  it('is a known per-net variable: a misspelling is refused with the right name as a hint', () => {
    const result = load({ LEASECRON_NET_TICK_NET_TIMEZONE: 'Europe/Berlin' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues[0]?.expected).toMatch(/did you mean LEASECRON_NET_TICK_NET_TIME_ZONE\?/)
  })
})
