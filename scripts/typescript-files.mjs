/**
 * The TypeScript sources below a folder (or the file itself), for the house checks in scripts/: every
 * .ts/.mts/.tsx file but declarations, skipping node_modules and dot-folders.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

export function* typeScriptFiles(dir) {
  if (!statSync(dir).isDirectory()) {
    yield dir
    return
  }
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (entry === 'node_modules' || entry.startsWith('.')) continue
    if (statSync(path).isDirectory()) yield* typeScriptFiles(path)
    else if (/\.(ts|mts|tsx)$/.test(entry) && !entry.endsWith('.d.ts')) yield path
  }
}
