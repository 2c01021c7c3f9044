/**
 * Loads the worker's nets module (`--config FILE`): the file's default export `{ nets, leases? }`.
 *
 * A `.ts`/`.mts`/`.cts` file is loaded through jiti (a runtime dependency: 1.8 MB, no native binary, Node
 * 20 and later), so a user's `worker.config.ts` runs in production (`npm ci --omit=dev`) without a build
 * step or a loader flag; jiti is imported only then, so `.js`/`.mjs` configurations and the shipped default
 * never pay for it. jiti hands packages in node_modules to Node's own `import()`, so `leasecron` imported
 * by the configuration is the same module instance the worker runs (its classes and registries are shared).
 *
 * What it is not: a validator of the nets themselves (load-config.ts checks options and schedules).
 */
import { existsSync } from 'node:fs'
import { basename, extname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { LeaseDefinition } from '../leases.js'
import type { NetDefinition } from '../nets/net.js'

/** What a worker configuration module exports (default export). */
export interface WorkerFileConfig {
  nets: readonly NetDefinition[]
  leases?: readonly LeaseDefinition[]
}

/** A configuration module that could not be found or loaded, or whose default export has the wrong shape. */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError'
  readonly code: 'CONFIG_FILE_MISSING' | 'CONFIG_FILE_FAILED' | 'CONFIG_FILE_SHAPE' | 'CONFIG_FILE_UNSETTLED'
  readonly component = 'config-file'
  readonly file: string

  constructor(code: ConfigFileError['code'], file: string, detail: string, options?: { cause?: unknown }) {
    super(`${file}: ${detail}`, options)
    this.code = code
    this.file = file
  }
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts'])

/** The module kinds a configuration may be: its nets carry functions (setup, term), so no data format. */
const MODULES = ['.ts', '.mts', '.js', '.mjs', '.cts', '.cjs']

/** How errors name the configuration shipped in the package (the merge-gate sweeper and board sync). */
const SHIPPED = 'the shipped worker.config'

/** Imports one module, TypeScript through jiti; resolves its default export. */
async function importDefault(file: string): Promise<unknown> {
  if (file === SHIPPED) {
    // A literal specifier, so that the bundle carries the shipped configuration as one of its entries and
    // tsc's output (dist/src/config/) finds it at dist/worker.config.js.
    const module = (await import('../../worker.config.js')) as { default?: unknown }
    return module.default
  }
  if (!TYPESCRIPT.has(extname(file))) {
    const module = (await import(pathToFileURL(file).href)) as { default?: unknown }
    return module.default
  }
  const { createJiti } = await import('jiti')
  const jiti = createJiti(import.meta.url, { interopDefault: false })
  const module = await jiti.import<{ default?: unknown }>(file)
  return module.default
}

/** What the module exported instead, in words: `an object without a nets array`, `a function`, … */
function describeExport(value: unknown): string {
  if (value === undefined) return 'no default export'
  if (value === null) return 'null'
  const nets = (value as { nets?: unknown }).nets
  if (typeof value === 'object' && nets !== undefined)
    return `nets as ${nets === null ? 'null' : typeof nets === 'object' ? 'an object' : `a ${typeof nets}`}, not an array: write nets: [yourNet, …]`
  if (typeof value === 'object')
    return `an object without a nets array (keys: ${Object.keys(value).join(', ') || 'none'})`
  return `a ${typeof value}`
}

function checkShape(file: string, value: unknown): WorkerFileConfig {
  const nets = (value as { nets?: unknown } | undefined)?.nets
  if (!value || typeof value !== 'object' || !Array.isArray(nets)) {
    throw new ConfigFileError(
      'CONFIG_FILE_SHAPE',
      file,
      `its default export must be { nets: NetDefinition[], leases? } (got ${describeExport(value)})`,
    )
  }
  return value as WorkerFileConfig
}

/**
 * `loading`, or a CONFIG_FILE_UNSETTLED error when the event loop drains while it is still pending: a
 * module whose top-level `await` waits on nothing that can ever settle it. Without this the process
 * would simply end, exit 0, with nothing printed. Node's 'beforeExit' is the one signal that nothing is
 * left to run; a module still working (a timer, a socket) keeps the loop alive and is waited for.
 */
function settledOrDrained<T>(loading: Promise<T>, file: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const drained = () =>
      reject(
        new ConfigFileError(
          'CONFIG_FILE_UNSETTLED',
          file,
          'its loading never finished: a top-level await waits on a promise nothing will settle (nothing was left to run); make every top-level await settle',
        ),
      )
    process.once('beforeExit', drained)
    loading.then(resolve, reject).finally(() => process.off('beforeExit', drained))
  })
}

/**
 * Loads `path` (relative to the working directory), else the configuration shipped in the package.
 * Throws ConfigFileError when the file does not exist, fails to load (its own error is the `cause`) or
 * does not default-export `{ nets, leases? }`.
 */
export async function loadWorkerFile(path: string | undefined): Promise<WorkerFileConfig> {
  const file = path ? resolve(path) : SHIPPED
  if (path && !existsSync(file)) {
    const beside = MODULES.map((ext) => `${file}${ext}`).find((candidate) => existsSync(candidate))
    const hint = beside ? `; did you mean ${basename(beside)}?` : ''
    throw new ConfigFileError('CONFIG_FILE_MISSING', file, `no such file${hint}`)
  }
  if (path && !MODULES.includes(extname(file))) {
    throw new ConfigFileError(
      'CONFIG_FILE_FAILED',
      file,
      `expected a .ts, .mts, .js or .mjs module whose default export is { nets, leases? } (its nets are defineNet objects with functions, which ${extname(file) || 'a file without an extension'} cannot hold)`,
    )
  }
  let loaded: unknown
  try {
    loaded = await settledOrDrained(importDefault(file), file)
  } catch (error) {
    if (error instanceof ConfigFileError) throw error
    const reason = error instanceof Error ? error.message : String(error)
    throw new ConfigFileError('CONFIG_FILE_FAILED', file, `could not be loaded: ${reason}`, { cause: error })
  }
  return checkShape(file, loaded)
}
