import { defineConfig } from 'vitest/config'

// The chaos suite: real worker processes, a real Mongo behind a TCP proxy, the sandbox forge.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
    // One retry for a scenario that fails: the machine is shared and 2-core, and a rare timing outlier
    // must not block a landing. A systematic failure fails twice; every retry is printed in the run.
    retry: 1,
  },
})
