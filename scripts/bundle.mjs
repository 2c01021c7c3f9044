// After tsc: bundles the package's entries from dist/src into dist/bundle with esbuild, dependencies
// included, so that a process loads a few files instead of several hundred. Measured by
// `npm run bench -- footprint` (docs/decisions/0003): resolving and evaluating ~470 separate modules (the driver's,
// zod's, prom-client's, our own) was half of a worker's cold start.
//
// - Entries (index, sandbox, testing, serverless, the CLI, the shipped worker.config) share chunks: a configuration
//   module that imports `leasecron` gets the very module instances the CLI runs.
// - Octokit and undici are bundled too, but only src/forge/client/forge-client.ts imports them, and only through
//   `import()` on a forge's first request: esbuild gives that module a chunk of its own that no entry loads
//   statically (test/library/bundle-graph.test.ts). A consumer installs neither: Octokit's `content-type`
//   (engines: Node >= 22) made npm warn EBADENGINE on Node 20, and the pieces were 27 packages and 21 MB.
//   undici is safe to bundle: it is our own copy, with its own Agent and fetch, shared with nobody (Node's
//   fetch bundles its own undici; the public API takes and returns none of its objects).
// - Left to node_modules: jiti (1.8 MB, loaded only for a TypeScript configuration, and it resolves the
//   configuration's imports from its own location at run time) and vitest (the `testing` entry's peer).
// - @opentelemetry/api is bundled once: prom-client require()s it (CommonJS) and our tracing imports it, so
//   both are routed to its CommonJS build; an ES import would otherwise bundle its ES build as a second copy.
//   (Copies would still share the one global an SDK registers, but each would cost start-up and bytes.)
// - Types stay tsc's (dist/src/**/*.d.ts); the package.json `exports` map points at both.
import { rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { build } from 'esbuild'

const outdir = 'dist/bundle'

/** Routes the driver's import of saslprep to a shim that loads it on first use (see the shim's comment). */
const lazySaslprep = {
  name: 'lazy-saslprep',
  setup(build) {
    build.onResolve({ filter: /^@mongodb-js\/saslprep$/ }, (args) =>
      args.importer.includes('bundle-shims')
        ? undefined
        : { path: resolve('scripts/bundle-shims/lazy-saslprep.cjs') },
    )
  },
}
/**
 * Which dependency's import of which built-in loads on first use (see bundle-shims/lazy-builtin.cjs): each
 * is called only on a path `once` and an idle worker never take, and each costs its load to every start
 * otherwise (`child_process` with `dgram` ~4.5 ms, `http` ~2 ms, `zlib` and `dns` ~1 ms each on Node 20).
 * - the driver: `tls` (a TLS connection), `dns` (a `mongodb+srv` URI, Kerberos), `zlib` (wire compression,
 *   which leasecron never asks for), `http` (cloud credential endpoints);
 * - prom-client: `https` and `http` (its Pushgateway client, which leasecron never builds);
 * - node-cron: `child_process`, which it imports as an ES module for `fork` (its background tasks, which
 *   leasecron never creates): `names` lists what such an importer takes, each forwarded on call.
 * A dependency that destructures a built-in when it loads (pino's `worker_threads`, prom-client's `zlib`)
 * would load it at once through the shim too, so it is not listed.
 */
const LAZY_BUILTINS = [
  { builtin: 'tls', importer: /[\\/]node_modules[\\/]mongodb[\\/]/ },
  { builtin: 'dns', importer: /[\\/]node_modules[\\/]mongodb[\\/]/ },
  { builtin: 'zlib', importer: /[\\/]node_modules[\\/]mongodb[\\/]/ },
  { builtin: 'http', importer: /[\\/]node_modules[\\/](mongodb|prom-client)[\\/]/ },
  { builtin: 'https', importer: /[\\/]node_modules[\\/]prom-client[\\/]/ },
  { builtin: 'child_process', importer: /[\\/]node_modules[\\/]node-cron[\\/]/, names: ['fork'] },
]
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const names = LAZY_BUILTINS.map((l) => l.builtin).join('|')
    build.onResolve({ filter: new RegExp(`^(node:)?(${names})$`) }, (args) => {
      const builtin = args.path.replace(/^node:/, '')
      const lazy = LAZY_BUILTINS.find((l) => l.builtin === builtin && l.importer.test(args.importer))
      if (!lazy) return undefined
      return { path: builtin, namespace: lazy.names ? 'lazy-builtin-esm' : 'lazy-builtin' }
    })
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(resolve('scripts/bundle-shims/lazy-builtin.cjs'))})(() => require('node:${args.path}'))`,
      loader: 'js',
      resolveDir: resolve('scripts/bundle-shims'),
    }))
    // An ES importer's named imports: an ES module of functions that load the built-in when called (a
    // CommonJS shim would be loaded at once by esbuild's interop, which lists the module's keys).
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin-esm' }, (args) => ({
      contents: LAZY_BUILTINS.find((l) => l.builtin === args.path)
        .names.map((n) => `export function ${n}(...a) { return require('node:${args.path}').${n}(...a) }`)
        .join('\n'),
      loader: 'js',
    }))
  },
}
/** Routes `whatwg-url` (only mongodb-connection-string-url imports it) to Node's own URL classes. */
const nativeWhatwgUrl = {
  name: 'native-whatwg-url',
  setup(build) {
    build.onResolve({ filter: /^whatwg-url$/ }, () => ({
      path: resolve('scripts/bundle-shims/native-whatwg-url.cjs'),
    }))
  },
}
/** Routes zod's `locales` namespace (every language's messages) to English alone. */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: resolve('scripts/bundle-shims/zod-english-locale.mjs') }
        : undefined,
    )
  },
}
/** Routes every import of @opentelemetry/api to the CommonJS build prom-client already requires. */
const oneOpenTelemetryApi = {
  name: 'one-opentelemetry-api',
  setup(build) {
    const commonJs = createRequire(import.meta.url).resolve('@opentelemetry/api')
    build.onResolve({ filter: /^@opentelemetry\/api$/ }, () => ({ path: commonJs }))
  },
}
/**
 * Routes every import of luxon to the CommonJS build cron-parser requires: src/schedule/cron-locale.ts pins the
 * locale of the copy that computes the slots (an ES import would otherwise bundle luxon's ES build as a
 * second copy, whose settings cron-parser never reads).
 */
const oneLuxon = {
  name: 'one-luxon',
  setup(build) {
    const commonJs = createRequire(resolve('node_modules/cron-parser/package.json')).resolve('luxon')
    build.onResolve({ filter: /^luxon$/ }, () => ({ path: commonJs }))
  },
}
rmSync(outdir, { recursive: true, force: true })
const { metafile } = await build({
  entryPoints: {
    index: 'dist/src/index.js',
    sandbox: 'dist/src/sandbox.js',
    testing: 'dist/src/testing.js',
    serverless: 'dist/src/serverless.js',
    nets: 'dist/src/nets.js',
    leasecron: 'dist/src/cli/main.js',
    'worker.config': 'dist/worker.config.js',
  },
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['vitest', 'jiti'],
  // The bundled CommonJS dependencies call require() for Node's built-ins; an ES module has none.
  banner: {
    js: "import { createRequire as __leasecronCreateRequire } from 'node:module';\nconst require = __leasecronCreateRequire(import.meta.url);",
  },
  plugins: [lazySaslprep, lazyBuiltins, nativeWhatwgUrl, zodEnglishOnly, oneOpenTelemetryApi, oneLuxon],
  logLevel: 'warning',
  // Which inputs each output holds and how outputs import each other (statically or on demand): what
  // test/library/bundle-graph.test.ts reads to keep lazy things lazy. Beside the bundle, not shipped.
  metafile: true,
  // Whitespace and syntax only: identifiers keep their names, so stack traces and errors read as in the
  // source. V8 keeps every loaded function's source text: 2 MiB less heap an idle worker carries.
  minifyWhitespace: true,
  minifySyntax: true,
})
writeFileSync('dist/bundle-meta.json', JSON.stringify(metafile))
