import { defineConfig } from 'vitest/config'
import { testWorkers } from './test/support/test-workers.js'

export default defineConfig({
  test: {
    // examples/: an example's own test, as its author would write it (it imports the built package).
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: testWorkers(),
  },
})
