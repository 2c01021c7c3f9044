/**
 * leasecron's own version, read once from its package.json (found by walking up from this file, which sits
 * at a different depth in src/ and dist/).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let cached: string | undefined

/** The `version` of the nearest package.json named leasecron above this module; `unknown` if none. */
export function packageVersion(): string {
  cached ??= findVersion()
  return cached
}

function findVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'leasecron' && typeof pkg.version === 'string') return pkg.version
    }
    dir = dirname(dir)
  }
  return 'unknown'
}
