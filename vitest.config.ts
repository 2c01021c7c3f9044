import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/**
 * Files run side by side, three per core: most of the suite waits (on its real processes, the Mongo
 * server, a browser, timers), so on the 2-core CI machine one file at a time left it ~1 core idle and took
 * ~12 min; six at a time take ~4.5 min with the same outcomes. Each file has its own database
 * (test/support/mongo.ts), its own ports and temp directories, so files share only the run's servers.
 * LEASECRON_TEST_WORKERS overrides it (1 runs the files one after another, as before).
 */
function workers(): number {
  const given = process.env.LEASECRON_TEST_WORKERS
  if (given === undefined || given === '') return Math.max(2, availableParallelism() * 3)
  const asked = Number(given)
  if (!Number.isInteger(asked) || asked < 1)
    throw new Error(
      `LEASECRON_TEST_WORKERS is ${JSON.stringify(given)}; expected a whole number of files run at once, 1 or more`,
    )
  return asked
}

export default defineConfig({
  test: {
    // examples/: an example's own test, as its author would write it (it imports the built package).
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: workers(),
  },
})
