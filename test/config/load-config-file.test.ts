/**
 * What `--config FILE` says when the file is not a configuration module a newcomer meant: a path without
 * its extension, a JSON file, nets written as one net instead of a list.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigFileError, loadWorkerFile } from '../../src/config/load-config-file.js'

const dir = mkdtempSync(join(tmpdir(), 'leasecron-config-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function refusal(path: string): Promise<ConfigFileError> {
  try {
    await loadWorkerFile(path)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError)
    return error as ConfigFileError
  }
  throw new Error(`${path} was loaded`)
}

describe('a --config file that is not the module meant', () => {
  it('names the module beside a path given without its extension', async () => {
    // Before: "no worker configuration module here", with worker.config.mjs right beside it.
    writeFileSync(join(dir, 'worker.config.mjs'), 'export default { nets: [] }\n')
    const error = await refusal(join(dir, 'worker.config'))
    expect(error.code).toBe('CONFIG_FILE_MISSING')
    expect(error.message).toContain('no such file; did you mean worker.config.mjs?')
  })

  it('says what a missing file with no module beside it is, without a guess', async () => {
    const error = await refusal(join(dir, 'nowhere.ts'))
    expect(error.message).toMatch(/nowhere\.ts: no such file$/)
  })

  it('refuses a JSON file as no module, instead of passing on Node’s import-attribute error', async () => {
    // Before: 'could not be loaded: Module "file:///…/nets.json" needs an import attribute of type "json"'.
    writeFileSync(join(dir, 'nets.json'), '{ "nets": [] }\n')
    const error = await refusal(join(dir, 'nets.json'))
    expect(error.message).toContain(
      'expected a .ts, .mts, .js or .mjs module whose default export is { nets, leases? }',
    )
    expect(error.message).toContain('which .json cannot hold')
  })

  it('says nets must be a list when the module exported one net as nets', async () => {
    // Before: "got an object without a nets array (keys: nets, leases)", though nets was right there.
    writeFileSync(join(dir, 'one-net.mjs'), 'export default { nets: { name: "tick" }, leases: [] }\n')
    const error = await refusal(join(dir, 'one-net.mjs'))
    expect(error.code).toBe('CONFIG_FILE_SHAPE')
    expect(error.message).toContain('got nets as an object, not an array: write nets: [yourNet, …]')
  })
})
