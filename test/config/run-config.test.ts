import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/index.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const { net } = recordingNet()
const load = (env: Record<string, string>) => loadConfig(env, [net], TEST_LEASES)

describe('the run ledger’s configuration', () => {
  it('keeps 1000 runs per net and catches up the latest slot by default', () => {
    const result = load({})
    expect(result.ok && result.config.runHistory).toBe(1000)
    expect(result.ok && result.config.nets[0]?.catchUp).toBe('latest')
  })

  it('reads LEASECRON_RUN_HISTORY and LEASECRON_NET_<NET>_CATCH_UP', () => {
    const result = load({ LEASECRON_RUN_HISTORY: '50', LEASECRON_NET_TICK_NET_CATCH_UP: 'none' })
    expect(result.ok && result.config.runHistory).toBe(50)
    expect(result.ok && result.config.nets[0]?.catchUp).toBe('none')
  })

  it('refuses a history below 1 and an unknown catch-up, naming what was expected', () => {
    const result = load({ LEASECRON_RUN_HISTORY: '0', LEASECRON_NET_TICK_NET_CATCH_UP: 'every' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues).toEqual([
      {
        variable: 'LEASECRON_RUN_HISTORY',
        expected: 'a whole number of runs from 1 to 999999999',
        value: '0',
      },
      {
        variable: 'LEASECRON_NET_TICK_NET_CATCH_UP',
        expected: expect.stringMatching(/`latest`.*`all`.*`none`/),
        value: 'every',
      },
    ])
  })
})

describe('a net’s overlap policy', () => {
  const overlapOf = (result: ReturnType<typeof load>) => (result.ok ? result.config.nets[0]?.overlap : result)

  it('buffers one overlapped slot by default, takes the net’s own policy, and LEASECRON_NET_<NET>_OVERLAP over both', () => {
    expect(overlapOf(load({})), 'an overlapped slot would be lost by default').toBe('buffer-one')
    const own = recordingNet()
    const skipping = { ...own.net, overlap: 'skip' as const }
    expect(overlapOf(loadConfig({}, [skipping], TEST_LEASES))).toBe('skip')
    const env = { LEASECRON_NET_TICK_NET_OVERLAP: 'buffer-one' }
    expect(overlapOf(loadConfig(env, [skipping], TEST_LEASES))).toBe('buffer-one')
    expect(overlapOf(load({ LEASECRON_NET_TICK_NET_OVERLAP: 'skip' }))).toBe('skip')
  })

  it('refuses an unknown policy naming both, and hints at OVERLAP for a misspelt name', () => {
    const bad = load({ LEASECRON_NET_TICK_NET_OVERLAP: 'queue' })
    expect(bad.ok).toBe(false)
    if (bad.ok) return
    expect(bad.issues).toEqual([
      expect.objectContaining({
        variable: 'LEASECRON_NET_TICK_NET_OVERLAP',
        expected: expect.stringMatching(/`buffer-one`.*`skip`/),
        value: 'queue',
      }),
    ])
    const typo = load({ LEASECRON_NET_TICK_NET_OVERLAPP: 'skip' })
    expect(!typo.ok && typo.issues[0]?.expected).toMatch(/did you mean LEASECRON_NET_TICK_NET_OVERLAP\?/)
  })

  it('names the policy a misspelt or capitalised value most likely meant, and none for a value near none', () => {
    const hintOf = (env: Record<string, string>) => {
      const result = load(env)
      return result.ok ? 'accepted' : result.issues[0]?.hint
    }
    expect(
      hintOf({ LEASECRON_NET_TICK_NET_OVERLAP: 'skp' }),
      'a typo would leave the operator guessing',
    ).toBe('did you mean skip?')
    expect(hintOf({ LEASECRON_NET_TICK_NET_OVERLAP: 'SKIP' })).toBe('did you mean skip?')
    expect(hintOf({ LEASECRON_NET_TICK_NET_CATCH_UP: 'Latest' })).toBe('did you mean latest?')
    expect(
      hintOf({ LEASECRON_NET_TICK_NET_OVERLAP: 'queue' }),
      'a guess far from every policy misleads',
    ).toBe(undefined)
    const bad = load({ LEASECRON_NET_TICK_NET_OVERLAP: 'skp' })
    expect(bad.ok ? '' : new ConfigError(bad.issues).message).toContain(
      'LEASECRON_NET_TICK_NET_OVERLAP: expected',
    )
    expect(bad.ok ? '' : new ConfigError(bad.issues).message).toMatch(/, got "skp" — did you mean skip\?$/m)
  })

  it('names the word a misspelt switch meant, and guesses none where a guess could mean the opposite', () => {
    const hintOf = (env: Record<string, string>) => {
      const result = load(env)
      return result.ok ? 'accepted' : result.issues[0]?.hint
    }
    expect(hintOf({ LEASECRON_FAIR_SHARE: 'Onn' }), 'an on/off switch got no guess').toBe('did you mean on?')
    expect(hintOf({ LEASECRON_FAIR_SHARE: 'OFF' })).toBe('did you mean off?')
    expect(hintOf({ LEASECRON_NET_TICK_NET_ENABLED: 'ture' })).toBe('did you mean true?')
    expect(hintOf({ LEASECRON_NET_TICK_NET_ENABLED: 'False' })).toBe('did you mean false?')
    expect(hintOf({ LEASECRON_FAIR_SHARE: 'no' }), '`no` was read as its opposite, `on`').toBe(undefined)
    expect(hintOf({ LEASECRON_FAIR_SHARE: 'of' }), '`of` is as near `on` as `off`').toBe(undefined)
    expect(hintOf({ LEASECRON_NET_TICK_NET_ENABLED: '2' }), 'a digit is no typo of another').toBe(undefined)
  })
})

describe('a net’s attempts within a slot', () => {
  const every5 = recordingNet({ schedule: '*/5 * * * *' }).net
  const loadNet = (env: Record<string, string>) => loadConfig(env, [every5], TEST_LEASES)
  const P = 'LEASECRON_NET_TICK_NET_'

  it('times a pass out after the schedule’s interval and makes no retry, nor runs a cut-off pass again, by default', () => {
    const result = loadNet({})
    expect(result.ok && result.config.nets[0]?.attempts).toEqual({
      timeoutMs: 300_000,
      retries: 0,
      retryBackoffMs: 10_000,
      retakes: 0,
    })
    const retrying = loadNet({ [`${P}RETRIES`]: '2' })
    expect(
      retrying.ok && retrying.config.nets[0]?.attempts.retakes,
      'RETAKES is not RETRIES when unset',
    ).toBe(2)
  })

  it('reads TIMEOUT, RETRIES, RETRY_BACKOFF and RETAKES, durations with their unit, and shows them so in `config`', async () => {
    const result = loadNet({
      [`${P}TIMEOUT`]: '90s',
      [`${P}RETRIES`]: '3',
      [`${P}RETRY_BACKOFF`]: '2m',
      [`${P}RETAKES`]: '0',
    })
    if (!result.ok) throw new Error('valid attempt variables were refused')
    expect(result.config.nets[0]?.attempts).toEqual({
      timeoutMs: 90_000,
      retries: 3,
      retryBackoffMs: 120_000,
      retakes: 0,
    })
    const { redactedConfig } = await import('../../src/config/redacted-config.js')
    expect(redactedConfig(result.config).nets).toEqual([
      expect.objectContaining({ timeout: '90s', retries: 3, retryBackoff: '2m', retakes: 0 }),
    ])
  })

  it('refuses a bare number, too many retries, a backoff without a unit and a word for RETAKES, naming each variable', () => {
    const result = loadNet({
      [`${P}TIMEOUT`]: '30',
      [`${P}RETRIES`]: '11',
      [`${P}RETRY_BACKOFF`]: '10 s',
      [`${P}RETAKES`]: 'yes',
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues.map((i) => i.variable)).toEqual([
      `${P}TIMEOUT`,
      `${P}RETRIES`,
      `${P}RETRY_BACKOFF`,
      `${P}RETAKES`,
    ])
    expect(result.issues[0]?.expected).toMatch(/a duration with a unit/)
    expect(result.issues[1]?.expected).toBe('a whole number of retries from 0 to 10')
    expect(result.issues[3]?.expected).toMatch(/^a whole number from 0 \(a pass cut off by its holder's end/)
  })

  it('knows the variables, so a typo of one is refused with a hint', () => {
    const result = loadNet({ [`${P}TIMOUT`]: '2m' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues[0]).toMatchObject({ variable: `${P}TIMOUT` })
    expect(result.issues[0]?.expected).toMatch(/did you mean LEASECRON_NET_TICK_NET_TIMEOUT\?/)
  })
})
