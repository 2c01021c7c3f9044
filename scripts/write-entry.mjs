// After the bundle: dist/index.js re-exports the bundled public API (dist/bundle/index.js), the same
// module instances the bundled CLI runs, for the repository's own fixtures and benchmarks that import it
// by path; its types are tsc's, at dist/src/index.d.ts.
import { writeFileSync } from 'node:fs'

writeFileSync('dist/index.js', "export * from './bundle/index.js'\n")
writeFileSync('dist/index.d.ts', "export * from './src/index.js'\n")
