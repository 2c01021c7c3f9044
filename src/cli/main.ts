#!/usr/bin/env node
/** The process entry: runs the CLI and exits with its code (`run` exits from its signal handlers). */
import module from 'node:module'
import { holdYoungGeneration } from './young-generation.js'

// Before anything else allocates: the burst of loading the configuration and starting a thousand nets
// would grow the new space first, and a held one does not shrink back (young-generation.ts).
holdYoungGeneration(process.execArgv, process.env.NODE_OPTIONS)

// On Node 22.1 and later, V8's compiled code is kept on disk (NODE_COMPILE_CACHE, else the OS temp
// directory), so each start after the first skips compiling the bundle: ~80 → ~57 ms to load it on Node 24,
// measured. A quiet optimization: Node 20 has no such cache, a directory that cannot be written goes without
// it (nothing is thrown), and NODE_DISABLE_COMPILE_CACHE=1 turns it off. Enabled before the CLI is imported,
// so that the CLI and everything it loads are covered.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()

// One import: each `import()` target becomes a file of its own in the bundle, and each file costs Node's
// module loader its resolve, read and link (~0.5 ms on Node 20) on every start.
const { main, scrubSecrets, EXIT, exitWhenWritten } = await import('./cli.js')

// Exits once stdout and stderr are flushed: a piped answer is whole (exit-when-written.ts).
main(process.argv.slice(2)).then(
  (code) => exitWhenWritten(code),
  (error: unknown) => {
    process.stderr.write(
      `leasecron: ${scrubSecrets(error instanceof Error ? error.message : String(error))}\n`,
    )
    return exitWhenWritten(EXIT.failure)
  },
)
