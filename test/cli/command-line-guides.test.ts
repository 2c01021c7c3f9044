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

  it('points `leasecron version` at the --version option, as git and docker spell it', async () => {
    // Before: 'unknown command "version"' with no hint.
    const { code, err } = await cli(['version'])
    expect(code).toBe(64)
    expect(err).toMatch(/^leasecron: unknown command "version" — did you mean --version\?$/m)
  })

  it('suggests the option a typo meant, among the options of the command it was given to', async () => {
    const json = await cli(['status', '--jsno'])
    expect(json.code).toBe(64)
    expect(json.err).toMatch(/^leasecron: unknown option --jsno — did you mean --json\?$/m)
    const slot = await cli(['once', 'some-net', '--slto', '2026-01-01T00:00:00Z'])
    expect(slot.err).toMatch(/unknown option --slto — did you mean --slot\?/)
    expect(slot.err, 'the once command’s usage was not shown').toContain('Usage: leasecron once <net>')
  })

  it('names the command an option near the typo belongs to, instead of suggesting one this command refuses', async () => {
    const { code, err } = await cli(['run', '--prot', '8081'])
    expect(code).toBe(64)
    expect(err, '`run --prot` was told to use --port, which run refuses next').not.toMatch(
      /did you mean --port/,
    )
    expect(err).toMatch(
      /^leasecron: unknown option --prot — --port belongs to the sandbox command \(not to run\); the worker’s HTTP port is the PORT variable: PORT=8081 leasecron run$/m,
    )
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

  it('tells `run --port` that the worker’s port is the PORT variable, and lists several owners in words', async () => {
    const port = await cli(['run', '--port', '8081'])
    expect(port.code).toBe(64)
    expect(port.err).toMatch(
      /^leasecron: run: --port belongs to the sandbox command; the worker’s HTTP port is the PORT variable: PORT=8081 leasecron run$/m,
    )
    const json = await cli(['config', '--json'])
    expect(json.err, 'the owners of --json were not listed as a sentence').toMatch(
      /^leasecron: config: --json belongs to the once, backfill, status, history, pause and resume commands$/m,
    )
  })

  it('says a value starting with "-" was read as an option, and how to give it', async () => {
    const { code, err } = await cli(['history', 'board-issue-sync', '--limit', '-3'])
    expect(code).toBe(64)
    expect(err, 'the refusal claimed no value was given although -3 was').toMatch(
      /^leasecron: --limit needs a value: "-3" starts with "-", so it was read as an option; write --limit=-3 to give it as the value$/m,
    )
    const missing = await cli(['history', 'board-issue-sync', '--limit'])
    expect(missing.err).toMatch(/^leasecron: --limit needs a value$/m)
  })

  it('finds the command after a global option’s value when an option is unknown', async () => {
    const { err } = await cli(['--config', 'nets.mjs', 'history', 'x', '--limt', '5'])
    expect(err).toMatch(/unknown option --limt — did you mean --limit\?/)
    expect(err, 'the value of --config was taken for the command').toContain('Usage: leasecron history <net>')
  })
})
