import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { loadConfig, type NetDefinition } from '../../src/index.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const { net } = recordingNet()
const P = 'LEASECRON_NET_TICK_NET_'
const load = (env: Record<string, string>, nets: NetDefinition[] = [net as NetDefinition]) =>
  loadConfig(env, nets, TEST_LEASES)
const catchUpOf = (result: ReturnType<typeof load>) => {
  if (!result.ok) throw new Error(`configuration refused: ${JSON.stringify(result.issues)}`)
  const { catchUp, catchUpWindowMs, catchUpMax } = result.config.nets[0]!
  return { catchUp, catchUpWindowMs, catchUpMax }
}

describe('a net’s catch-up configuration', () => {
  it('catches up the latest slot, with a 24h window and 10 slots an election for `all`, by default', () => {
    expect(catchUpOf(load({}))).toEqual({ catchUp: 'latest', catchUpWindowMs: 86_400_000, catchUpMax: 10 })
  })

  it('reads CATCH_UP=all, CATCH_UP_WINDOW as a duration and CATCH_UP_MAX, and shows them in `config`', () => {
    const result = load({
      [`${P}CATCH_UP`]: 'all',
      [`${P}CATCH_UP_WINDOW`]: '90m',
      [`${P}CATCH_UP_MAX`]: '25',
    })
    expect(catchUpOf(result)).toEqual({ catchUp: 'all', catchUpWindowMs: 5_400_000, catchUpMax: 25 })
    if (!result.ok) return
    expect(redactedConfig(result.config).nets).toEqual([
      expect.objectContaining({ catchUp: 'all', catchUpWindow: '90m', catchUpMax: 25 }),
    ])
  })

  it('takes the net’s own catchUp, catchUpWindow and catchUpMax, under the variables', () => {
    const own = { ...net, catchUp: 'all', catchUpWindow: '6h', catchUpMax: 3 } as NetDefinition
    expect(catchUpOf(load({}, [own]))).toEqual({ catchUp: 'all', catchUpWindowMs: 21_600_000, catchUpMax: 3 })
    expect(catchUpOf(load({ [`${P}CATCH_UP`]: 'none', [`${P}CATCH_UP_MAX`]: '4' }, [own]))).toEqual({
      catchUp: 'none',
      catchUpWindowMs: 21_600_000,
      catchUpMax: 4,
    })
  })

  it('refuses a window without a unit, under a second or over a year, and a cap of 0 or over 1000, naming each', () => {
    for (const [window, max] of [
      ['24', '0'],
      ['500ms', '1001'],
      ['367d', '-1'],
      ['1 h', 'ten'],
    ]) {
      const result = load({ [`${P}CATCH_UP_WINDOW`]: window!, [`${P}CATCH_UP_MAX`]: max! })
      expect(result.ok, `window ${window} and cap ${max} were accepted`).toBe(false)
      if (result.ok) continue
      expect(result.issues).toEqual([
        {
          variable: `${P}CATCH_UP_WINDOW`,
          expected: expect.stringMatching(/a duration with a unit .* from 1s to 366d/),
          value: window,
        },
        { variable: `${P}CATCH_UP_MAX`, expected: 'a whole number of slots from 1 to 1000', value: max },
      ])
    }
  })

  it('refuses the net’s own bad settings, naming the net and the field', () => {
    const own = {
      ...net,
      catchUp: 'every',
      catchUpWindow: '1 day',
      catchUpMax: 0,
    } as unknown as NetDefinition
    const result = load({}, [own])
    expect(result.ok).toBe(false)
    if (result.ok) return
    const module = 'net "tick-net" (worker configuration module)'
    expect(result.issues).toEqual([
      { variable: module, expected: expect.stringMatching(/^its catchUp "every" to be `latest`/) },
      { variable: module, expected: expect.stringMatching(/^its catchUpWindow "1 day" to be a duration/) },
      { variable: module, expected: 'its catchUpMax 0 to be a whole number of slots from 1 to 1000' },
    ])
  })

  it('hints at CATCH_UP_WINDOW for a misspelt name', () => {
    const result = load({ [`${P}CATCH_UP_WINDOWS`]: '6h' })
    expect(!result.ok && result.issues[0]?.expected).toMatch(
      /did you mean LEASECRON_NET_TICK_NET_CATCH_UP_WINDOW\?/,
    )
  })

  it('makes `leasecron config` exit 78 naming the variable and what it takes', async () => {
    const err: string[] = []
    const code = await main(['config'], {
      out: () => {},
      err: (line) => err.push(line),
      env: { LEASECRON_NET_MERGE_GATE_SWEEPER_CATCH_UP_WINDOW: '0s' },
    })
    expect(code, 'a bad window must stop the worker before it starts').toBe(78)
    expect(err.join('\n')).toMatch(/LEASECRON_NET_MERGE_GATE_SWEEPER_CATCH_UP_WINDOW.*a duration with a unit/)
  })
})
