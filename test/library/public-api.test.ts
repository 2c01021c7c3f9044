/**
 * The public entries' names, as TypeScript resolves them (values and types): `leasecron` exports at most
 * 100 — what a user writes code against — and the built-in nets and their internals are not among them.
 */
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

/** Every name `entry` (a path under src/) exports, resolved through its re-exports. */
function exportedNames(entry: string): string[] {
  const file = `${root}src/${entry}`
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  if (!source) throw new Error(`${entry} was not found: the test cannot count its names`)
  const module = checker.getSymbolAtLocation(source)
  if (!module) throw new Error(`${entry} is not a module`)
  return checker
    .getExportsOfModule(module)
    .map((s) => s.name)
    .sort()
}

describe('the public API', () => {
  const main = exportedNames('index.ts')
  const nets = exportedNames('nets.ts')

  it('exports at most 100 names from leasecron', () => {
    expect(main.length, `leasecron exports ${main.length} names: ${main.join(', ')}`).toBeLessThanOrEqual(100)
    expect(main, 'the count read nothing').toContain('defineNet')
  })

  it('keeps the built-in nets and their internals out of leasecron', () => {
    for (const internal of [
      'Reconciler',
      'Sweeper',
      'MongoGateRunStore',
      'seedDemoGatingRuns',
      'mergeGateSweeper',
    ])
      expect(main, `${internal} is back in the main entry`).not.toContain(internal)
  })

  it('offers the built-in nets, their leases and stores from leasecron/nets, and not their internals', () => {
    for (const name of [
      'mergeGateSweeper',
      'boardIssueSync',
      'LEASES',
      'MongoGateRunStore',
      'MongoBoardStore',
    ])
      expect(nets, `leasecron/nets lost ${name}`).toContain(name)
    for (const internal of ['Reconciler', 'Sweeper', 'seedDemoGatingRuns', 'planDemoGatingRuns'])
      expect(nets, `${internal} is exported from leasecron/nets`).not.toContain(internal)
  })
})
