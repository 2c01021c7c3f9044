/**
 * The command line guides a mistyped or misplaced word: "did you mean" for commands and options, and a
 * usage error followed by the help of the command it was given to. Run through the CLI's own entry
 * (`main`) with its output captured; nothing here loads a configuration module or a store.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('did you mean', () => {
  it('suggests the command a swapped pair of letters meant, with usage exit 64', async () => {
    const { code, out, err } = await cli(['stauts'])
    expect(code).toBe(64)
    expect(err).toMatch(/^leasecron: unknown command "stauts" — did you mean "status"\?$/m)
    expect(err, 'an unknown command should show the overview of every command').toContain('Commands:')
    expect(out, 'a usage error went to stdout').toBe('')
  })

  it('suggests the option a typo meant, among the options of the command it was given to', async () => {
    const json = await cli(['status', '--jsno'])
    expect(json.code).toBe(64)
    expect(json.err).toMatch(/^leasecron: unknown option --jsno — did you mean --json\?$/m)
    const slot = await cli(['once', 'some-net', '--slto', '2026-01-01T00:00:00Z'])
    expect(slot.err).toMatch(/unknown option --slto — did you mean --slot\?/)
    expect(slot.err, 'the once command’s usage was not shown').toContain('Usage: leasecron once <net>')
  })

  it('suggests a command in `help <typo>` too', async () => {
    const { code, err } = await cli(['help', 'hisotry'])
    expect(code).toBe(64)
    expect(err).toMatch(/unknown command "hisotry" — did you mean "history"\?/)
  })

  it('suggests nothing for a word that is near no command or option', async () => {
    const command = await cli(['frobnicate'])
    expect(command.code).toBe(64)
    expect(command.err).toMatch(/^leasecron: unknown command "frobnicate"$/m)
    const short = await cli(['foo'])
    expect(short.err, 'a three-letter word was matched to an unrelated command').toMatch(
      /^leasecron: unknown command "foo"$/m,
    )
    const option = await cli(['status', '--everything'])
    expect(option.err).toMatch(/^leasecron: unknown option --everything$/m)
  })
})

describe('a usage error shows the help of its command', () => {
  it('answers `status extra` with the status command’s usage, not the overview', async () => {
    const { code, err } = await cli(['status', 'extra'])
    expect(code).toBe(64)
    expect(err).toMatch(/^leasecron: status: unexpected argument "extra"$/m)
    expect(err).toContain('Usage: leasecron status [--json]')
    expect(err, 'the overview was shown instead of the status command’s help').not.toContain('Commands:')
  })

  it('answers an option of another command with the usage of the command it was given to', async () => {
    const { code, err } = await cli(['config', '--port', '1'])
    expect(code).toBe(64)
    expect(err).toMatch(/config: --port belongs to the sandbox command/)
    expect(err).toContain('Usage: leasecron config')
    expect(err).not.toContain('Commands:')
  })

  it('finds the command after a global option’s value when an option is unknown', async () => {
    const { err } = await cli(['--config', 'nets.mjs', 'history', 'x', '--limt', '5'])
    expect(err).toMatch(/unknown option --limt — did you mean --limit\?/)
    expect(err, 'the value of --config was taken for the command').toContain('Usage: leasecron history <net>')
  })
})
