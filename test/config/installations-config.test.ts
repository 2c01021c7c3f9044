import { describe, expect, it } from 'vitest'
import { defineLease, defineNet, loadConfig } from '../../src/index.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { parseForgeEnv } from '../../src/config/forge-env.js'
import { installationNets } from '../../src/worker/installation-nets.js'
import { generateAppKeyPair } from '../../src/sandbox/sandbox-keys.js'
import { createBoardIssueSync } from '../../src/nets/board-sync/board-issue-sync.js'
import { createMergeGateSweeper } from '../../src/nets/merge-gate/merge-gate-sweeper.js'
import { LEASES } from '../../src/leases.js'

const privateKey = generateAppKeyPair('pkcs8').privateKey.replace(/\n/g, '\\n')
const app = { GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: privateKey }
const nets = [createMergeGateSweeper(), createBoardIssueSync()]
const load = (env: Record<string, string>) => loadConfig(env, nets, LEASES)
const problems = (env: Record<string, string>) => {
  const result = load(env)
  if (result.ok) throw new Error('expected the configuration to be rejected')
  return result.issues
}
const sweeperOff = { LEASECRON_NET_MERGE_GATE_SWEEPER_ENABLED: 'false' }

describe('installations: GITHUB_INSTALLATION_IDS and GITHUB_INSTALLATION_ID', () => {
  it('reads GITHUB_INSTALLATION_ID as one installation whose nets keep their names', () => {
    const result = parseForgeEnv({ ...app, GITHUB_INSTALLATION_ID: '34' })
    expect(result).toMatchObject({
      ok: true,
      installations: { kind: 'one', id: 34 },
      config: { installationId: 34 },
    })
  })

  it('reads a comma list in its order, spaces allowed, and `all` in any case', () => {
    expect(parseForgeEnv({ ...app, GITHUB_INSTALLATION_IDS: ' 7, 3 ,90' })).toMatchObject({
      ok: true,
      installations: { kind: 'list', ids: [7, 3, 90] },
      config: { installationId: 7 },
    })
    const all = parseForgeEnv({ ...app, GITHUB_INSTALLATION_IDS: 'ALL' })
    expect(all).toMatchObject({ ok: true, installations: { kind: 'all' } })
    expect(all.ok && all.config, 'under `all` no installation is known before discovery').toBeUndefined()
  })

  it.each([
    ['7,,3', 'an entry is empty'],
    ['7,', 'an entry is empty'],
    ['7,x3,-1', 'not an installation id: x3, -1'],
    ['0', 'not an installation id: 0'],
    ['7,3,7', 'named twice: 7'],
    ['some', 'not an installation id: some'],
  ])('refuses GITHUB_INSTALLATION_IDS=%j, saying %s and what it expects', (value, why) => {
    const found = problems({ ...app, GITHUB_INSTALLATION_IDS: value })
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ variable: 'GITHUB_INSTALLATION_IDS', value })
    expect(found[0]!.expected).toContain(why)
    expect(found[0]!.expected).toContain('comma-separated list of installation ids')
  })

  it('refuses both variables naming different installations, and accepts them naming the same one', () => {
    const found = problems({ ...app, GITHUB_INSTALLATION_ID: '5', GITHUB_INSTALLATION_IDS: '5,6' })
    expect(found.map((i) => i.variable)).toEqual(['GITHUB_INSTALLATION_IDS'])
    expect(found[0]!.expected).toMatch(/only one of GITHUB_INSTALLATION_ID .* and GITHUB_INSTALLATION_IDS/)
    expect(found[0]!.expected).toContain('GITHUB_INSTALLATION_ID=5')
    expect(problems({ ...app, GITHUB_INSTALLATION_ID: '5', GITHUB_INSTALLATION_IDS: 'all' })).toHaveLength(1)
    const same = parseForgeEnv({ ...app, GITHUB_INSTALLATION_ID: '5', GITHUB_INSTALLATION_IDS: '5' })
    expect(same).toMatchObject({ ok: true, installations: { kind: 'one', id: 5 } })
  })

  it('names both variables when neither is set, and why an App is expected', () => {
    const found = problems({ ...app })
    const issue = found.find((i) => i.variable === 'GITHUB_INSTALLATION_ID')
    expect(issue?.expected).toContain('GITHUB_INSTALLATION_IDS')
    expect(issue?.expected).toMatch(/required: some GitHub App variables are set/)
  })

  it('treats GITHUB_INSTALLATION_IDS alone as asking for the App', () => {
    const found = problems({ GITHUB_INSTALLATION_IDS: '3,4' })
    expect(found.map((i) => i.variable).sort()).toEqual(['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY'])
  })

  it('refuses a one-installation net while acting as several installations, naming the way out', () => {
    const single = defineNet({
      name: 'single-account',
      lease: 'single-account',
      scope: 'one-installation',
      schedule: '* * * * *',
      description: 'acts as one installation',
      options: {},
      setup: () => undefined,
      term: () => async () => {},
    })
    const leases = [...LEASES, defineLease('single-account', 'acts as one installation')]
    const loadWith = (env: Record<string, string>) => loadConfig(env, [...nets, single], leases)
    for (const ids of ['3,4', 'all']) {
      const result = loadWith({ ...app, GITHUB_INSTALLATION_IDS: ids })
      if (result.ok) throw new Error('expected the one-installation net to be refused')
      expect(result.issues.map((i) => i.variable)).toEqual(['LEASECRON_NET_SINGLE_ACCOUNT_ENABLED'])
      expect(result.issues[0]!.expected).toMatch(/acts as one installation/)
      expect(result.issues[0]!.expected).toContain('GITHUB_INSTALLATION_ID')
    }
    const off = { LEASECRON_NET_SINGLE_ACCOUNT_ENABLED: 'false' }
    expect(loadWith({ ...app, ...off, GITHUB_INSTALLATION_IDS: '3,4' }).ok).toBe(true)
    expect(
      loadWith({ ...app, GITHUB_INSTALLATION_IDS: '3' }).ok,
      'a list of one acts as one installation',
    ).toBe(true)
  })

  it('runs the merge-gate sweeper per installation under a list and `all`', () => {
    for (const ids of ['3,4', 'all']) expect(load({ ...app, GITHUB_INSTALLATION_IDS: ids }).ok).toBe(true)
  })

  it('shows the installations in the effective configuration, never the key', () => {
    const result = load({ ...app, ...sweeperOff, GITHUB_INSTALLATION_IDS: '3,4' })
    if (!result.ok) throw new Error(JSON.stringify(result.issues))
    const shown = redactedConfig(result.config)
    expect(shown.forge).toMatchObject({ kind: 'github', installations: '3,4', privateKey: '[redacted]' })
    expect(JSON.stringify(shown)).not.toContain(privateKey.slice(40, 80))
  })
})

describe('the nets per installation', () => {
  it('gives a per-installation net one lease and ledger name per installation, <net>:<installation>', () => {
    const result = load({ ...app, ...sweeperOff, GITHUB_INSTALLATION_IDS: '3,4' })
    if (!result.ok) throw new Error(JSON.stringify(result.issues))
    const forge = result.config.forge
    if (forge.kind !== 'github') throw new Error('expected the App')
    const shown = installationNets(result.config.nets, forge.installations, [3, 4]).map(({ net }) => ({
      name: net.definition.name,
      lease: net.definition.lease,
      installation: net.installation,
    }))
    expect(shown).toEqual([
      { name: 'merge-gate-sweeper:3', lease: 'merge-gate-sweeper:3', installation: 3 },
      { name: 'merge-gate-sweeper:4', lease: 'merge-gate-sweeper:4', installation: 4 },
      { name: 'board-issue-sync:3', lease: 'board-issue-sync:3', installation: 3 },
      { name: 'board-issue-sync:4', lease: 'board-issue-sync:4', installation: 4 },
    ])
  })

  it('keeps the plain names under GITHUB_INSTALLATION_ID, so an upgrade finds its leases and history', () => {
    const result = load({ ...app, GITHUB_INSTALLATION_ID: '34' })
    if (!result.ok) throw new Error(JSON.stringify(result.issues))
    const forge = result.config.forge
    if (forge.kind !== 'github') throw new Error('expected the App')
    const names = installationNets(result.config.nets, forge.installations, [34]).map(({ net }) => [
      net.definition.lease,
      net.installation,
    ])
    expect(names).toEqual([
      ['merge-gate-sweeper', 34],
      ['board-issue-sync', 34],
    ])
  })
})

describe('LEASECRON_FORGE_RESERVE', () => {
  it('defaults to 10 % of the limit and reads points or a percentage', () => {
    const read = (value?: string) => {
      const result = load(value === undefined ? {} : { LEASECRON_FORGE_RESERVE: value })
      if (!result.ok) throw new Error(JSON.stringify(result.issues))
      return result.config.forgeReserve
    }
    expect(read()).toEqual({ kind: 'fraction', fraction: 0.1 })
    expect(read('500')).toEqual({ kind: 'points', points: 500 })
    expect(read('2.5%')).toEqual({ kind: 'fraction', fraction: 0.025 })
    expect(read('0')).toEqual({ kind: 'points', points: 0 })
  })

  it.each(['-1', '10 %', '101%', 'lots', '1e3'])('refuses %j, naming what it expects', (value) => {
    const found = problems({ LEASECRON_FORGE_RESERVE: value })
    expect(found).toEqual([
      expect.objectContaining({
        variable: 'LEASECRON_FORGE_RESERVE',
        value,
        expected: expect.stringContaining('percentage of the limit'),
      }),
    ])
  })

  it('hints the variable for a typo', () => {
    const found = problems({ LEASECRON_FORGE_RESERVED: '500' })
    expect(found[0]!.expected).toContain('did you mean LEASECRON_FORGE_RESERVE?')
  })
})

describe('LEASECRON_INSTALLATIONS_REFRESH', () => {
  it('defaults to 10 minutes, reads a duration and refuses one out of 1s…24h', () => {
    const read = (env: Record<string, string>) => {
      const result = load(env)
      if (!result.ok) throw new Error(JSON.stringify(result.issues))
      return result.config.installationsRefreshMs
    }
    expect(read({})).toBe(600_000)
    expect(read({ LEASECRON_INSTALLATIONS_REFRESH: '90s' })).toBe(90_000)
    for (const value of ['500ms', '2d', 'often'])
      expect(problems({ LEASECRON_INSTALLATIONS_REFRESH: value })).toEqual([
        expect.objectContaining({
          variable: 'LEASECRON_INSTALLATIONS_REFRESH',
          expected: expect.stringContaining('from 1s to 24h'),
        }),
      ])
  })
})
