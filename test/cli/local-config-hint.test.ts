/**
 * The `--config` hint names a worker.config.* in the working directory without loading it, and only
 * when `--config` was not given.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { localConfigHint } from '../../src/cli/local-config-hint.js'

const root = mkdtempSync(join(tmpdir(), 'leasecron-hint-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function folderWith(name: string, body = 'export default { nets: [] }\n'): string {
  const dir = mkdtempSync(join(root, 'dir-'))
  writeFileSync(join(dir, name), body)
  return dir
}

describe('the --config hint', () => {
  it('names each kind of file --config loads', () => {
    for (const ext of ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs']) {
      const dir = folderWith(`worker.config.${ext}`)
      expect(localConfigHint(undefined, dir)).toBe(
        `a worker.config.${ext} is here; pass --config ./worker.config.${ext} to use its nets`,
      )
    }
  })

  it('never loads the file it names', () => {
    const dir = folderWith('worker.config.mjs', "throw new Error('loaded')\n")
    expect(localConfigHint(undefined, dir)).toContain('worker.config.mjs')
  })

  it('says nothing when --config was given, or no worker.config.* is there', () => {
    expect(localConfigHint('./other.mjs', folderWith('worker.config.ts'))).toBeUndefined()
    expect(localConfigHint(undefined, folderWith('worker.config.json'))).toBeUndefined()
    const empty = join(root, 'empty')
    mkdirSync(empty)
    expect(localConfigHint(undefined, empty)).toBeUndefined()
  })

  it('says nothing in leasecron’s own checkout, whose worker.config.ts is the shipped one', () => {
    const dir = folderWith('worker.config.ts')
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'leasecron' }))
    expect(localConfigHint(undefined, dir)).toBeUndefined()
  })
})
