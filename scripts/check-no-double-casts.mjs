#!/usr/bin/env node
/**
 * Fails when a TypeScript file in the given folders casts through `unknown` or `any` (`x as unknown as T`,
 * `<T>(<unknown>x)`): such a cast tells the compiler to stop checking, so two types that do not meet stay
 * unnoticed. Make the types meet instead (a type guard, the library's own type, a narrower signature).
 * Found with the TypeScript compiler's syntax tree, so comments and strings never count.
 *
 * Usage: node scripts/check-no-double-casts.mjs [dir …]   (default dir: src)
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import ts from 'typescript'
import { typeScriptFiles } from './typescript-files.mjs'

const isCast = (node) => ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)
const ESCAPES = new Set([ts.SyntaxKind.UnknownKeyword, ts.SyntaxKind.AnyKeyword])

/** The casts in one file whose operand is itself (in parentheses or not) a cast to unknown or any. */
function doubleCasts(path) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const found = []
  const visit = (node) => {
    if (isCast(node)) {
      let inner = node.expression
      while (ts.isParenthesizedExpression(inner)) inner = inner.expression
      if (isCast(inner) && ESCAPES.has(inner.type.kind)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
        found.push(`${relative(process.cwd(), path)}:${line} ${node.getText(source).replace(/\s+/g, ' ')}`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const dirs = process.argv.slice(2)
if (dirs.length === 0) dirs.push('src')
const files = dirs.flatMap((dir) => [...typeScriptFiles(dir)])
const found = files.flatMap(doubleCasts)
if (found.length > 0) {
  console.error(`${found.length} double cast(s) through unknown/any — make the types meet instead:`)
  for (const f of found) console.error(`  ${f.length > 160 ? `${f.slice(0, 157)}...` : f}`)
  process.exit(1)
}
console.log(`double casts: none in ${files.length} files of ${dirs.join(', ')}`)
