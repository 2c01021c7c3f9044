/**
 * What the library docs say a consumer gets: every public entry point of package.json named where
 * docs/library.md lists them, and the install size docs/install.md gives as measured (bench/results/footprint.json).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

describe('the library docs', () => {
  it('name every entry point package.json exports where docs/library.md lists what is public', () => {
    // Before: leasecron/serverless was exported and used by the README's handlers, but missing from the list.
    const exports = Object.keys((JSON.parse(read('package.json')) as { exports: object }).exports)
    const subpaths = exports
      .filter((e) => e.startsWith('./') && e !== './package.json')
      .map((e) => e.slice(2))
    const list =
      /Everything public comes from([\s\S]*?)no deep imports/.exec(read('docs/library.md'))?.[1] ?? ''
    for (const subpath of subpaths)
      expect(list, `docs/library.md's list of public entry points omits leasecron/${subpath}`).toContain(
        `\`leasecron/${subpath}\``,
      )
  })

  it('give the consumer install size that was measured', () => {
    // Before: docs/install.md said 5.6 MB where the footprint bench measured 5.07 (the README: 5.1).
    const measured = (
      JSON.parse(read('bench/results/footprint.json')) as { consumerInstall: { megabytes: number } }
    ).consumerInstall.megabytes
    const stated = /leasecron and jiti\*\* \([^)]*\), about\s+([\d.]+) MB/.exec(read('docs/install.md'))?.[1]
    expect(stated, 'docs/install.md no longer states the install size in the expected words').toBeDefined()
    expect(Number(stated), 'docs/install.md states an install size the bench did not measure').toBe(
      Math.round(measured * 10) / 10,
    )
  })
})
