import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/index.js'
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
    const result = load({ LEASECRON_RUN_HISTORY: '0', LEASECRON_NET_TICK_NET_CATCH_UP: 'all' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues).toEqual([
      {
        variable: 'LEASECRON_RUN_HISTORY',
        expected: 'a whole number of runs from 1 to 999999999',
        value: '0',
      },
      { variable: 'LEASECRON_NET_TICK_NET_CATCH_UP', expected: '`latest` or `none`', value: 'all' },
    ])
  })
})
