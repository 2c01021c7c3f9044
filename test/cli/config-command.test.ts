/**
 * `leasecron config` lists the variables the worker reads beside the effective configuration: the GitHub
 * App's among them, which decide between GitHub and the sandbox (they were missing, so the list a
 * newcomer reads to learn the variables named none of the forge's). Run through the CLI's own entry.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'

describe('leasecron config', () => {
  it('names the GitHub App variables and GITHUB_API_URL among the variables the worker reads', async () => {
    const out: string[] = []
    const code = await main(['config'], { out: (l) => out.push(l), err: () => undefined, env: {} })
    expect(code).toBe(0)
    const shown = JSON.parse(out.join('\n')) as { variables: string[] }
    expect(shown.variables).toEqual(
      expect.arrayContaining([
        'MONGO_URI',
        'GITHUB_APP_ID',
        'GITHUB_INSTALLATION_ID',
        'GITHUB_INSTALLATION_IDS',
        'GITHUB_APP_PRIVATE_KEY',
        'GITHUB_APP_PRIVATE_KEY_FILE',
        'GITHUB_API_URL',
      ]),
    )
  })

  it('names the missing <net> argument when once is given none', async () => {
    const err: string[] = []
    const code = await main(['once'], { out: () => undefined, err: (l) => err.push(l), env: {} })
    expect(code).toBe(64)
    expect(err.join('\n'), 'a bare `once` said "got nothing" without saying what was missing').toContain(
      'got no <net> argument (usage: leasecron once <net>)',
    )
  })

  it('exits 78 when run and once would refuse the GitHub App variables, still printing them', async () => {
    const out: string[] = []
    const err: string[] = []
    const code = await main(['config'], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { GITHUB_APP_ID: 'abc' },
    })
    expect(
      code,
      'a CI step validating the environment with `config` would pass a worker that refuses to start',
    ).toBe(78)
    const shown = JSON.parse(out.join('\n')) as { forge: { issues: { variable: string }[] } }
    expect(shown.forge.issues.map((i) => i.variable)).toContain('GITHUB_APP_ID')
    expect(err.join('\n')).toContain('run and once would refuse the GitHub App variables (GITHUB_APP_ID')
  })

  it('says when once runs a net the workers have disabled', async () => {
    const err: string[] = []
    const code = await main(['once', 'merge-gate-sweeper', '--now'], {
      out: () => undefined,
      err: (l) => err.push(l),
      env: { LEASECRON_NET_MERGE_GATE_SWEEPER_ENABLED: 'false', LOG_LEVEL: 'silent' },
    })
    expect(code).toBe(0)
    expect(err.join('\n'), 'a disabled net ran without a word').toContain(
      'merge-gate-sweeper is disabled (LEASECRON_NET_MERGE_GATE_SWEEPER_ENABLED=false)',
    )
  })
})
