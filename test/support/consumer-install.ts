/**
 * What a consumer's `npm install` of the packed leasecron costs: `npm pack` of the repository (dist/ as it
 * is built), then `npm install <tarball>` alone in an empty project, measured — the packages under
 * node_modules, their bytes, the wall time and npm's warnings. test/library/pack.test.ts holds the figures
 * to bounds; `npm run bench -- footprint` records them.
 *
 * Not a registry install (leasecron is not published): the tarball is what a release attaches. Installs
 * prefer the npm cache (`--prefer-offline`), which `npm ci` filled, so the seconds are mostly npm's own.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const env = { ...process.env, NODE_ENV: 'production', npm_config_update_notifier: 'false' }

/** Runs a command with the install's environment (production, no update notice) and generous bounds. */
export function sh(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  return exec(cmd, args, { cwd, env: { ...env, ...extra }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 })
}

/** `npm pack --json`'s answer for one package. */
export interface PackResult {
  filename: string
  files: { path: string }[]
}

/** Package names (with their nesting) under a node_modules directory, and the bytes of every file there. */
export function measureNodeModules(nodeModules: string): { packages: string[]; bytes: number } {
  const packages: string[] = []
  let bytes = 0
  const walk = (dir: string, prefix: string, inModules: boolean) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isSymbolicLink()) continue
      if (!entry.isDirectory()) {
        bytes += statSync(path).size
        continue
      }
      const scoped = inModules && entry.name.startsWith('@')
      const isPackage = inModules && !scoped && !entry.name.startsWith('.')
      if (isPackage) packages.push(`${prefix}${entry.name}`)
      walk(path, scoped ? `${prefix}${entry.name}/` : '', scoped || entry.name === 'node_modules')
    }
  }
  walk(nodeModules, '', true)
  return { packages, bytes }
}

/**
 * Packs `root` into `work` without lifecycle scripts (dist/ must be built already: a pack must not rebuild
 * under a running suite). Rejects with npm's error when packing fails.
 */
export async function packPackage(root: string, work: string): Promise<PackResult> {
  const { stdout } = await sh(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root)
  const packed = (JSON.parse(stdout) as PackResult[])[0]
  if (packed === undefined) throw new Error(`npm pack of ${root} reported no package: ${stdout}`)
  return packed
}

/** What `npm install <tarball>` cost in an empty project. */
export interface ConsumerInstall {
  packages: string[]
  bytes: number
  seconds: number
  /** The `package@version`s npm warned EBADENGINE for. */
  engineWarnings: string[]
  /** Every `npm warn` line, as printed. */
  warnings: string[]
  /** npm's own output (stdout, then stderr). */
  output: string
}

/**
 * Creates the empty ES-module project `consumer` (which must not exist) and installs `tarball` (a path
 * relative to it or absolute) alone into it: the README's install, measured.
 */
export async function installAlone(consumer: string, tarball: string): Promise<ConsumerInstall> {
  mkdirSync(consumer)
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: {} }),
  )
  const started = performance.now()
  const alone = await sh(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], consumer)
  const seconds = (performance.now() - started) / 1000
  const output = `${alone.stdout}\n${alone.stderr}`
  return {
    ...measureNodeModules(join(consumer, 'node_modules')),
    seconds,
    engineWarnings: [...output.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((m) => m[1] ?? ''),
    warnings: output.split('\n').filter((line) => /^npm warn/i.test(line)),
    output,
  }
}
