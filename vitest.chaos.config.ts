import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// The chaos suite: real worker processes, a real Mongo behind a TCP proxy, the sandbox forge.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Files side by side, two per core: each scenario file has its own FerretDB, proxies, workers and
    // sandbox, and spends its time waiting out TTLs and outages (3 at once used ~0.4 of a core and took
    // 170 s, where one at a time took ~380 s, with the same outcomes). Scenarios within a file stay in
    // order. The report's merge is locked (test/chaos/scenario.ts).
    maxWorkers: Math.max(2, availableParallelism() * 2),
    // One retry for a scenario that fails: the machine is shared and 2-core, and a rare timing outlier
    // must not block a landing. A systematic failure fails twice; every retry is printed in the run.
    retry: 1,
  },
})
