#!/usr/bin/env node
/**
 * Fails when a Mongo call in the given folders bypasses the one module that bounds them
 * (src/store-call/store-call.ts: server-side limits, the caller's signal, one error type):
 * - outside src/store-call/, a call of a driver entry point — `x.collection(…)`, `x.command(…)`,
 *   `x.admin()`, `x.createCollection(…)`, `x.dropCollection(…)`, `x.dropDatabase()` — the only ways to
 *   reach a collection or send a command from a `Db`; a store gets its collection as a `StoreCollection`,
 *   whose driver collection exists only inside its bounded `call`;
 * - outside src/store-call/ and the client openers below, `mongodb` imported as a value (statically or
 *   with `import()`): everything else needs its types only.
 * Found with the TypeScript compiler's syntax tree, so comments and strings never count.
 *
 * Usage: node scripts/check-store-calls.mjs [dir …]   (default dir: src)
 */
import { readFileSync } from 'node:fs'
import { relative, sep } from 'node:path'
import ts from 'typescript'
import { typeScriptFiles } from './typescript-files.mjs'

const STORE_CALL_ROOM = 'src/store-call/'
const DRIVER_ENTRIES = new Set([
  'collection',
  'command',
  'admin',
  'createCollection',
  'dropCollection',
  'dropDatabase',
])
/**
 * Files that may import the driver as a value, and why; named by file name, not folder, so the check
 * holds wherever the room they live in moves.
 */
const CLIENT_OPENERS = new Map([
  ['mongo-connection.ts', 'builds the worker’s MongoClient; its pings go through storeCommand'],
])

const posix = (path) => relative(process.cwd(), path).split(sep).join('/')
const isClientOpener = (file) => CLIENT_OPENERS.has(file.slice(file.lastIndexOf('/') + 1))

/** The bypasses in one file. */
function bypasses(path) {
  const file = posix(path)
  if (file.startsWith(STORE_CALL_ROOM)) return []
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const found = []
  const report = (node, what) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
    found.push(`${file}:${line} ${what}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 100)}`)
  }
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && isMongodb(node.moduleSpecifier) && !typeOnly(node)) {
      if (!isClientOpener(file)) report(node, 'imports the driver as a value')
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword && isMongodb(node.arguments[0])) {
        if (!isClientOpener(file)) report(node, 'loads the driver')
      } else if (ts.isPropertyAccessExpression(callee) && DRIVER_ENTRIES.has(callee.name.text)) {
        report(node, 'calls the driver outside store-call')
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function isMongodb(node) {
  return node !== undefined && ts.isStringLiteral(node) && node.text === 'mongodb'
}

/** `import type {…}`, or every named import marked `type`. */
function typeOnly(node) {
  const clause = node.importClause
  if (clause === undefined) return false
  if (clause.isTypeOnly) return true
  const bindings = clause.namedBindings
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  )
}

const dirs = process.argv.slice(2)
if (dirs.length === 0) dirs.push('src')
const found = dirs.flatMap((dir) => [...typeScriptFiles(dir)]).flatMap(bypasses)
if (found.length > 0) {
  console.error(
    `${found.length} Mongo call(s) bypass src/store-call/ (use StoreCollection.call or storeCommand, which bound the call and name its failure):`,
  )
  for (const line of found) console.error(`  ${line}`)
  process.exit(1)
}
console.log('check-store-calls: every Mongo call goes through src/store-call/')
