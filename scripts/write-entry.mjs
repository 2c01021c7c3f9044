// After tsc: dist/index.js is the package entry, re-exporting the public API compiled at dist/src/index.js.
import { writeFileSync } from 'node:fs'

writeFileSync('dist/index.js', "export * from './src/index.js'\n")
writeFileSync('dist/index.d.ts', "export * from './src/index.js'\n")
