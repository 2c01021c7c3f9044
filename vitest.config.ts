import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { testWorkers } from './test/support/test-workers.js'

// examples/: an example's own test, as its author would write it (it imports the built package).
const include = ['test/**/*.test.ts', 'examples/**/*.test.ts']
// test/docs: npm run test:docs (vitest.docs.config.ts), which builds the site first.
const exclude = ['test/chaos/**', 'test/docs/**', 'node_modules/**']
/**
 * Files that need a process of their own: they replace a module (vi.mock) before the code under test
 * imports it, which only works where that code was not imported by an earlier file.
 */
const isolated = ['test/worker/admin/admin-token.test.ts']

/** What both projects share; neither repeats the global setup, which the root runs once for both. */
const common: TestProjectInlineConfiguration['test'] = {
  setupFiles: ['test/support/fresh-file.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
  pool: 'forks',
  maxWorkers: testWorkers(),
}

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    maxWorkers: testWorkers(),
    projects: [
      // Each worker process runs file after file without re-importing the modules: on the 2-core machine
      // that took `npm test` from 371 s to 254–264 s (user + sys CPU from 668 s to 428–438 s). The files keep their
      // own databases, ports and temp directories (test/support/mongo.ts), and fresh-file.ts resets what the
      // product keeps process-wide.
      { test: { ...common, name: 'shared', isolate: false, include, exclude: [...exclude, ...isolated] } },
      { test: { ...common, name: 'isolated', isolate: true, include: isolated } },
    ],
  },
})
