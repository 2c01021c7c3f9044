/**
 * START_AT and END_AT per net: read from the variables over the net's own startAt/endAt, as full ISO 8601
 * instants with a zone; an unreadable one or an END_AT not after START_AT is refused naming the variable.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

function load(env: Record<string, string>, own: { startAt?: string; endAt?: string } = {}) {
  const { net } = recordingNet()
  return loadConfig({ LEASECRON_FORGE: 'sandbox', ...env }, [{ ...net, ...own }], TEST_LEASES)
}

describe('LEASECRON_NET_<NET>_START_AT and _END_AT', () => {
  it('are read as instants, the variables over the net’s own startAt and endAt', () => {
    const loaded = load(
      { LEASECRON_NET_TICK_NET_END_AT: '2027-01-01T00:00:00+01:00' },
      { startAt: '2026-12-01T00:00:00Z', endAt: '2026-12-24T00:00:00Z' },
    )
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
    const net = loaded.config.nets[0]!
    expect(net.startAt?.toISOString()).toBe('2026-12-01T00:00:00.000Z')
    expect(net.endAt?.toISOString()).toBe('2026-12-31T23:00:00.000Z')
  })

  it('are unset by default: no bound', () => {
    const loaded = load({})
    expect(loaded.ok && [loaded.config.nets[0]!.startAt, loaded.config.nets[0]!.endAt]).toEqual([
      undefined,
      undefined,
    ])
  })

  it('refuse an instant without a zone or one that does not exist, naming the variable', () => {
    const loaded = load({
      LEASECRON_NET_TICK_NET_START_AT: '2026-12-01 00:00',
      LEASECRON_NET_TICK_NET_END_AT: '2026-02-30T00:00:00Z',
    })
    expect(loaded.ok).toBe(false)
    const issues = loaded.ok ? [] : loaded.issues
    expect(issues.map((i) => i.variable).sort()).toEqual([
      'LEASECRON_NET_TICK_NET_END_AT',
      'LEASECRON_NET_TICK_NET_START_AT',
    ])
    expect(JSON.stringify(issues)).toMatch(/ISO 8601 instant with a time zone/)
    expect(JSON.stringify(issues)).toMatch(/day 30/)
  })

  it('refuse an END_AT at or before START_AT, and a bad instant in the net’s own definition', () => {
    const reversed = load({
      LEASECRON_NET_TICK_NET_START_AT: '2026-12-02T00:00:00Z',
      LEASECRON_NET_TICK_NET_END_AT: '2026-12-01T00:00:00Z',
    })
    expect(reversed.ok ? [] : reversed.issues).toEqual([
      expect.objectContaining({
        variable: 'LEASECRON_NET_TICK_NET_END_AT',
        expected: expect.stringMatching(/after START_AT/),
      }),
    ])
    const own = load({}, { endAt: 'next week' })
    expect(own.ok ? [] : own.issues).toEqual([
      expect.objectContaining({ expected: expect.stringMatching(/its endAt "next week".*END_AT/) }),
    ])
  })
})
