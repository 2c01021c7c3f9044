import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { slowFiles } from './test/support/test-needs.js'
import { testWorkers } from './test/support/test-workers.js'

// `npm run test:quick`, the inner loop: the default suite without the files that need the Mongo server,
// real processes, the built package, or are end-to-end (test/support/test-needs.ts sorts them by what
// they use, on every run). `npm test` runs everything.
const root = dirname(fileURLToPath(import.meta.url))
const slow = await slowFiles(root)

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**', ...slow.map(({ file }) => file.slice(root.length + 1))],
    globalSetup: ['test/support/quick-setup.ts'],
    // The lease model test's 1,000 runs, the least at which it still checks every fault was exercised
    // (npm test runs 10,000).
    env: { LEASECRON_MODEL_RUNS: '1000' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'threads',
    maxWorkers: testWorkers(),
  },
})
