/**
 * The `--config` hint: when the working directory holds a `worker.config.*` and `--config` was not given,
 * a command that lists or resolves nets says so, because the nets it shows are the built-in ones, not that
 * file's. It only hints; it never loads the file.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The extensions `--config` loads (config/load-config-file.ts: TypeScript through jiti, else import()). */
const EXTENSIONS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs']

/**
 * `a worker.config.ts is here; pass --config ./worker.config.ts to use its nets`, or undefined when
 * `--config` was given (`configPath`) or `dir` holds no worker.config.*.
 *
 * Configuration is explicit: the nets a process runs are the ones its command line names (or the shipped
 * ones), never whatever file happens to sit in the directory it was started from — a worker started from
 * another folder, or a file left over, must not change what runs. So the file is named, not loaded.
 */
export function localConfigHint(configPath: string | undefined, dir = process.cwd()): string | undefined {
  if (configPath !== undefined || isLeasecronItself(dir)) return undefined
  const found = EXTENSIONS.map((ext) => `worker.config.${ext}`).find((name) => existsSync(join(dir, name)))
  return found && `a ${found} is here; pass --config ./${found} to use its nets`
}

/** leasecron's own checkout: its worker.config.ts is the shipped configuration, the one already in use. */
function isLeasecronItself(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'leasecron'
    )
  } catch {
    return false
  }
}
