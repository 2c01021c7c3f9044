/**
 * `npm run test:quick` leaves out exactly the files that need the Mongo server, real processes, the built
 * package or are end-to-end, as test/support/test-needs.ts reads them, helpers followed; and its config
 * (vitest.quick.config.ts) excludes them all.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import quickConfig from '../../vitest.quick.config.js'
import { slowFiles, suiteFiles, testNeeds } from './test-needs.js'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const scratch = mkdtempSync(join(tmpdir(), 'leasecron-test-needs-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

// The signs test-needs.ts looks for, spelled apart so that this file, which only writes them into
// fixtures, is not taken for a file that uses them (and left out of test:quick).
const CHILD_PROCESS = ['node', 'child_process'].join(':')
const MONGO_HELPER = ['./mongo', 'js'].join('.')
const BUILT = ['lease', 'cron'].join('')

/** A small project of its own: `files` (paths under it) with their text. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(scratch, 'p-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('what a test file needs', () => {
  it('reads the repository’s own files by what they use', () => {
    const needs = (file: string) => testNeeds(join(repo, file), repo)
    expect(needs('test/lease/mongo-store.test.ts')).toContain('mongo')
    expect(needs('test/e2e/worker-e2e.test.ts')).toEqual(expect.arrayContaining(['processes', 'slow-suite']))
    expect(needs('test/support/run-tests.test.ts')).toContain('processes')
    expect(needs('test/schedule/dst-rule.test.ts'), 'a pure schedule test needs nothing').toEqual([])
    expect(needs('test/lease/memory-store.test.ts'), 'the memory twin needs no server').toEqual([])
  })

  it('follows relative imports of test helpers, however deep, and not into src/', () => {
    const root = project({
      'test/a/deep.test.ts': "import { suite } from './suite.js'\nsuite()\n",
      'test/a/suite.ts': "export { useIt as suite } from '../support/use-db.js'\n",
      'test/support/use-db.ts': `import { useTestDatabase } from '${MONGO_HELPER}'\nexport const useIt = useTestDatabase\n`,
      'test/a/spawns.test.ts': `import { spawn } from '${CHILD_PROCESS}'\n`,
      'test/a/built.test.ts': `import { defineNet } from '${BUILT}'\n`,
      'test/a/uses-src.test.ts': "import { x } from '../../src/x.js'\n",
      'src/x.ts': `import { spawn } from '${CHILD_PROCESS}'\nexport const x = spawn\n`,
      'test/e2e/plain.test.ts': "import { it } from 'vitest'\n",
    })
    const needs = (file: string) => testNeeds(join(root, file), root)
    expect(needs('test/a/deep.test.ts'), 'a Mongo helper two imports away was missed').toEqual(['mongo'])
    expect(needs('test/a/spawns.test.ts')).toEqual(['processes'])
    expect(needs('test/a/built.test.ts')).toEqual(['build'])
    expect(needs('test/a/uses-src.test.ts'), 'src/ is the code under test, not a test helper').toEqual([])
    expect(needs('test/e2e/plain.test.ts')).toEqual(['slow-suite'])
  })
})

describe('npm run test:quick', () => {
  it('excludes every file that needs something, and runs every other file of the suite', async () => {
    const excluded = new Set(quickConfig.test?.exclude)
    const slow = await slowFiles(repo)
    const relative = (file: string) => file.slice(repo.length + 1)
    expect(slow.map((f) => relative(f.file)).filter((f) => !excluded.has(f))).toEqual([])
    const quick = (await suiteFiles(repo)).map(relative).filter((f) => !excluded.has(f))
    expect(quick.length, 'test:quick would run nothing').toBeGreaterThan(50)
    expect(quick).toContain('test/schedule/dst-rule.test.ts')
  })
})
