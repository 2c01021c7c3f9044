// Fills V8's compile cache (Node >= 22.1, the directory NODE_COMPILE_CACHE names) with the bundle's code, so
// that a process started later reads its compiled modules instead of compiling ~2 MB of JavaScript. What the
// production image runs once, as the user the worker runs as (Dockerfile): a pod's /tmp is a fresh emptyDir,
// so without it every pod's first start compiles everything (measured in bench/NOTES.md, "compile cache").
//
// Run it with the Node flags the worker runs with (the Dockerfile's ENTRYPOINT): V8 keys the cache by them.
// It imports every file of dist/bundle but the CLI's entry (which would run a command) and asks `--version`
// of the CLI for that one; a file whose imports are not installed (testing.js needs vitest, a dev
// dependency) is skipped. Importing evaluates the modules' top levels: they define, they start nothing.
// Not a check of the bundle: nothing it throws fails the build, and on Node 20 it does nothing.
import { execFileSync } from 'node:child_process'
import module from 'node:module'
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const bundle = resolve(process.argv[2] ?? 'dist/bundle')
if (typeof module.enableCompileCache !== 'function' || !process.env.NODE_COMPILE_CACHE) {
  process.stdout.write(
    'warm-compile-cache: no compile cache on this Node or no NODE_COMPILE_CACHE: nothing to do\n',
  )
  process.exit(0)
}
const { status, message } = module.enableCompileCache()
const { ENABLED, ALREADY_ENABLED } = module.constants.compileCacheStatus
if (status !== ENABLED && status !== ALREADY_ENABLED) {
  // NODE_DISABLE_COMPILE_CACHE, or a directory that cannot be written: the image works, uncached.
  process.stdout.write(`warm-compile-cache: not enabled (${message ?? 'disabled'}): nothing to do\n`)
  process.exit(0)
}
// With this process's own Node flags: V8 keys the cache by its flags, so the CLI must start as the worker will.
execFileSync(process.execPath, [...process.execArgv, join(bundle, 'leasecron.js'), '--version'], {
  stdio: 'ignore',
})
const files = [
  ...readdirSync(bundle).filter((f) => f.endsWith('.js') && f !== 'leasecron.js'),
  ...readdirSync(join(bundle, 'chunks')).map((f) => join('chunks', f)),
]
let warmed = 0
for (const file of files) {
  try {
    await import(pathToFileURL(join(bundle, file)).href)
    warmed++
  } catch {
    // An optional peer (vitest) is not installed: that file compiles on first use, as before.
  }
}
module.flushCompileCache?.()
process.stdout.write(
  `warm-compile-cache: ${warmed} of ${files.length} files in ${module.getCompileCacheDir?.()}\n`,
)
process.exit(0)
