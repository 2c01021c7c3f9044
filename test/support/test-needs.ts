/**
 * What a test file needs beyond Node itself, read from its source and from the test helpers it imports
 * (followed through relative imports inside test/ and examples/): the run's Mongo server, real child
 * processes, the built package (dist/), or a place in the slow suites (test/e2e, test/chaos). `npm run
 * test:quick` (vitest.quick.config.ts) runs only the files that need none of these. It is computed on
 * every run, so a new file is sorted by what it uses, not by a list someone must remember; a file it
 * misses fails loudly under test:quick (test/support/quick-setup.ts says why).
 */
import { readFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'

export type TestNeed = 'mongo' | 'processes' | 'build' | 'slow-suite'

/** The signs in a source's own text, each of a need. */
const SIGNS: readonly [TestNeed, RegExp][] = [
  ['mongo', /inject\(\s*'mongo'\s*\)/],
  ['processes', /from 'node:child[_]process'/],
  ['build', /inject\(\s*'buildError'\s*\)|from 'leasecron(\/[a-z]+)?'|dist\/bundle/],
]
/** The harness modules that bring a need to whoever imports them (directly or through other helpers). */
const HELPERS: Readonly<Record<string, TestNeed>> = {
  'test/support/mongo.ts': 'mongo',
  'test/support/mongo-server.ts': 'mongo',
  'test/support/ferretdb-server.ts': 'mongo',
  'test/support/ferretdb-backend.ts': 'mongo',
  'test/support/postgres-cluster.ts': 'processes',
  'test/support/node-process.ts': 'processes',
  'test/support/worker-process.ts': 'processes',
}
const SLOW_DIRS = ['test/e2e/', 'test/chaos/']

/** The needs of the test file `file` (absolute), its relative test-helper imports followed; `root` the repo. */
export function testNeeds(file: string, root: string): TestNeed[] {
  const needs = new Set<TestNeed>()
  const rel = relative(root, file)
  if (SLOW_DIRS.some((dir) => rel.startsWith(dir))) needs.add('slow-suite')
  const seen = new Set<string>()
  const visit = (path: string) => {
    if (seen.has(path)) return
    seen.add(path)
    let source: string
    try {
      source = readFileSync(path, 'utf8')
    } catch {
      return // an import of a non-TypeScript file or a directory index: not a helper to read
    }
    for (const [need, sign] of SIGNS) if (sign.test(source)) needs.add(need)
    for (const helper of localImports(source, path, root)) {
      const need = HELPERS[relative(root, helper)]
      if (need) needs.add(need)
      visit(helper)
    }
  }
  visit(file)
  return [...needs].sort()
}

/** The relative imports of `source` that stay inside test/ or examples/, as .ts paths. */
function localImports(source: string, path: string, root: string): string[] {
  const found: string[] = []
  for (const match of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(path), match[1]!.replace(/\.js$/, '.ts'))
    const rel = relative(root, target)
    if (rel.startsWith('test/') || rel.startsWith('examples/')) found.push(target)
  }
  return found
}

/** Every test file of the default suite (vitest.config.ts's include) under `root`, absolute. */
export async function suiteFiles(root: string): Promise<string[]> {
  const files: string[] = []
  for (const top of ['test', 'examples']) {
    const entries = await readdir(join(root, top), { recursive: true }).catch(() => [] as string[])
    for (const entry of entries) if (entry.endsWith('.test.ts')) files.push(join(root, top, entry))
  }
  return files.filter((f) => !relative(root, f).startsWith('test/chaos/')).sort()
}

/** The files test:quick leaves out, each with its needs. */
export async function slowFiles(root: string): Promise<{ file: string; needs: TestNeed[] }[]> {
  const all = await suiteFiles(root)
  return all.map((file) => ({ file, needs: testNeeds(file, root) })).filter((f) => f.needs.length > 0)
}
