#!/usr/bin/env node
/**
 * Fails when a function in the given folders is longer than the limit (80 lines by default), counted with
 * the TypeScript compiler's own syntax tree: every function, method, constructor, accessor and arrow
 * function, from its first line to its last, nested ones included in their parent's span.
 *
 * Usage: node scripts/check-function-size.mjs [--max N] [--report] [dir …]   (default dir: src)
 * `--report` lists every function over 50 lines too, longest first, and never fails.
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import ts from 'typescript'
import { typeScriptFiles } from './typescript-files.mjs'

const AIM = 50

function parseArgs(argv) {
  const options = { max: 80, report: false, dirs: [] }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--max') options.max = Number(argv[++i])
    else if (argv[i] === '--report') options.report = true
    else options.dirs.push(argv[i])
  }
  if (!Number.isInteger(options.max) || options.max < 1) throw new Error('--max takes a whole number ≥ 1')
  if (options.dirs.length === 0) options.dirs.push('src')
  return options
}

function functionName(node, source) {
  if (node.name) return node.name.getText(source)
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    return parent.name.getText(source)
  return '(anonymous)'
}

function measureFile(path) {
  const text = readFileSync(path, 'utf8')
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      found.push({ path, line: start + 1, name: functionName(node, source), lines: end - start + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const options = parseArgs(process.argv.slice(2))
const all = options.dirs.flatMap((dir) => [...typeScriptFiles(dir)].flatMap(measureFile))
const shown = (f) => `${relative(process.cwd(), f.path)}:${f.line} ${f.name} — ${f.lines} lines`
if (options.report) {
  for (const f of all.filter((f) => f.lines > AIM).sort((a, b) => b.lines - a.lines)) console.log(shown(f))
  process.exit(0)
}
const over = all.filter((f) => f.lines > options.max).sort((a, b) => b.lines - a.lines)
if (over.length > 0) {
  console.error(`${over.length} function(s) over ${options.max} lines — split each into named steps:`)
  for (const f of over) console.error(`  ${shown(f)}`)
  process.exit(1)
}
console.log(
  `function size: ${all.length} functions in ${options.dirs.join(', ')}, none over ${options.max} lines`,
)
